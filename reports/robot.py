"""The kernel test robot's findings on a series as rows every renderer shows alike.

A series' `robot_reports` (docs/json.md) hold each report and its findings; a report with no
measured finding (a build warning, a boot failure) is one row saying what it found. A row is
flagged where the robot measured the opposite of what the series claims in the same
benchmark family (`analyze.robot_series.disagreements`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analyze.robot_series import Disagreement

from .document import percent

_KIND = {"build": "build warnings or errors", "failure": "a failure (oops, warning, boot)",
         "performance": "a change it did not tabulate"}


@dataclass(frozen=True, slots=True)
class RobotRow:
    report: str  # the report's Message-ID
    date: str  # YYYY-MM-DD
    rule: str  # how it was linked: patch link | subject | applied
    test: str  # the testcase
    machine: str
    measure: str  # the robot's row (`netperf.Throughput_Mbps`), or what a report without one found
    change: str  # `-12.5 %`, or "" for a report without a measured change
    direction: str  # regression | improvement | ""
    disagrees: bool  # the series claims the opposite in this benchmark family

    @property
    def finding(self) -> str:
        """`regression` / `improvement`, with a flag where the series claims otherwise."""
        if self.disagrees:
            return f"{self.direction}: disagrees with a claim"
        return self.direction


def robot_rows(reports: Iterable[Mapping[str, Any]],
               disagreements: Sequence[Disagreement] = ()) -> list[RobotRow]:
    flagged = {d.finding for d in disagreements if d.finding}
    rows = []
    for r in reports:
        common = {"report": str(r.get("message_id") or ""), "date": str(r.get("date") or "")[:10],
                  "rule": str(r.get("rule") or "unlinked"), "test": str(r.get("testcase") or "?"),
                  "machine": str(r.get("machine") or "?")}
        findings = r.get("findings") or []
        if not findings:
            what = _KIND.get(str(r.get("kind")), str(r.get("kind")))
            change = r.get("change_pct")
            rows.append(RobotRow(**common, measure=str(r.get("metric") or what),
                                 change=percent(change) if change is not None else "",
                                 direction=str(r.get("direction") or ""), disagrees=False))
            continue
        for f in findings:
            rows.append(RobotRow(**common, measure=str(f.get("measure") or f.get("metric") or "?"),
                                 change=percent(f.get("change_pct")),
                                 direction=str(f.get("direction") or ""),
                                 disagrees=f.get("claim_id") in flagged))
    return rows


def disagreement_text(d: Disagreement) -> str:
    """One line: what was claimed, what the robot measured, in which family."""
    return (f"claim {d.claim_id}: an {d.claimed} in {d.family} {d.metric}; "
            f"the robot measured a {d.measured} (report {d.report})")
