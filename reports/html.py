"""The HTML report: one self-contained file — tables, and plots of the claimed curves beside
the simulated ones as inline SVG. No script, no network resource; a Content-Security-Policy
says so to the browser as well.

Jinja2 (already installed with spaCy) with autoescaping on writes the page, so every piece
of mail text is escaped by the template engine rather than by hand at each use; the `t`
filter also shows control and bidi characters as visible escapes (`safe.inert`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from analyze.sim.predict import Verdict
from analyze.sim.scenario import Scenario

from .document import (
    Document,
    agreement,
    before_after,
    condition_text,
    patch_summary,
    percent,
    verdict_text,
)
from .links import lore_url
from .plots import Curve, Line, curve_svg, numeric
from .robot import RobotRow, disagreement_text, robot_rows
from .safe import one_line
from .simulation import simulation_document
from .tracks import point_texts, track_title
from .view import ReportView, SeriesView, build_view, series_heading, trailer_people

Runs = Mapping[str, tuple[Scenario, Verdict]]


def simulated_curve(scenario: Scenario, verdict: Verdict) -> Curve:
    """Claimed before/after and the model's before/after over the scenario's sweep."""
    sim = simulation_document(scenario, verdict)["simulation"]
    points = sim["points"]
    sweep = scenario.workload.sweep

    def column(name: str) -> tuple[float | None, ...]:
        return tuple(p.get(name) for p in points)

    lines = [Line("claimed before", column("claimed_before"), "claimed", "before"),
             Line("claimed after", column("claimed_after"), "claimed", "after")]
    if verdict.predicted_before:
        lines += [Line("simulated before", column("predicted_before"), "predicted", "before"),
                  Line("simulated after", column("predicted_after"), "predicted", "after")]
    band: tuple[tuple[float, float], ...] = ()
    if verdict.band and scenario.claimed is not None:
        band = tuple((lo * b, hi * b) for (lo, hi), b in zip(verdict.band, scenario.claimed.before,
                                                             strict=True))
    unit = f" ({scenario.metric.unit})" if scenario.metric.unit else ""
    return Curve(
        title=f"{scenario.id}: {verdict.verdict.replace('_', ' ')}",
        x_label=sweep, y_label=f"{scenario.metric.name}{unit}",
        xs=tuple(float(p[sweep]) for p in points), lines=tuple(lines), band=band,
    )


def claimed_curves(claims: Iterable[dict[str, Any]], skip: set[str]) -> list[Curve]:
    """The claims that sweep one numeric condition (threads 1, 2, 4 …) in one message, as
    curves of their before and after figures; claims with a simulated curve are in `skip`."""
    groups: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    for c in claims:
        condition = c.get("condition") or {}
        if c["id"] in skip or len(condition) != 1 or c.get("baseline") is None:
            continue
        (name,) = condition
        origin = c.get("message_id") or c["found_in"]
        groups.setdefault((origin, c["metric"], c.get("unit") or "", name), []).append(c)
    curves = []
    for (_origin, metric, unit, name), members in groups.items():
        xs = numeric([str(m["condition"][name]) for m in members])
        if xs is None or len(set(xs)) < 2:
            continue
        ordered = sorted(zip(xs, members, strict=True), key=lambda p: p[0])
        curves.append(Curve(
            title=f"{metric} by {name} (claimed; no scenario simulated)",
            x_label=name, y_label=f"{metric} ({unit})" if unit else metric,
            xs=tuple(x for x, _ in ordered),
            lines=(Line("claimed before", tuple(m["baseline"] for _, m in ordered), "claimed", "before"),
                   Line("claimed after", tuple(m["patched"] for _, m in ordered), "claimed", "after")),
        ))
    return curves


def _plots(claims: Iterable[dict[str, Any]], runs: Runs, numbers: Iterator[int]) -> list[str]:
    claims = list(claims)
    ids = list(dict.fromkeys(c["scenario_id"] for c in claims if c.get("scenario_id") in runs))
    simulated = {c["id"] for c in claims if c.get("scenario_id") in runs}
    curves = [simulated_curve(*runs[i]) for i in ids] + claimed_curves(claims, simulated)
    # one point is no curve: its figures are in the table
    return [curve_svg(c, next(numbers)) for c in curves if len(c.xs) >= 2]


def _claim_row(c: dict[str, Any]) -> dict[str, str]:
    return {
        "metric": c["metric"], "condition": condition_text(c), "before_after": before_after(c),
        "change": percent(c.get("change_pct")), "stated": percent(c.get("stated_change_pct")),
        "agrees": agreement(c), "verdict": verdict_text(c),
        "verdict_status": (c.get("verdict") or {}).get("status") or "",
        "reason": (c.get("verdict") or {}).get("reason") or "",
        "direction": c.get("direction") or "", "source": c["source"] + (" (quoted)" if c["quoted"] else ""),
        "quote": c.get("quote") or "",
        "id": c["id"], "link": lore_url(c.get("message_id") or c.get("found_in")) or "",
    }


def _message_row(m: dict[str, Any]) -> dict[str, str]:
    return {"date": (m.get("date") or "")[:16], "kind": m["kind"], "subject": m["subject"],
            "from": m["from"], "diff": patch_summary(m)}


# the classes a robot row's change may carry: the direction is read from the robot's mail,
# so only the names the page styles reach its class attribute
_DIRECTIONS = ("improvement", "regression")


def _robot_row(r: RobotRow, reason: str = "") -> dict[str, Any]:
    return {
        "date": r.date, "report": r.report, "link": lore_url(r.report) or "", "rule": r.rule,
        "test": r.test, "machine": r.machine, "measure": r.measure, "change": r.change,
        "direction": r.direction if r.direction in _DIRECTIONS else "",
        "finding": r.finding, "disagrees": r.disagrees, "reason": reason,
    }


def _unlinked_rows(reports: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reports no series was found for, a row a finding, each with why none matched."""
    reports = list(reports)
    reasons = {str(r.get("message_id") or ""): str(r.get("reason") or "") for r in reports}
    return [_robot_row(r, reasons.get(r.report, "")) for r in robot_rows(reports)]


def _series_block(v: SeriesView, runs: Runs, numbers: Iterator[int]) -> dict[str, Any]:
    return {
        "name": v.series["name"], "heading": series_heading(v), "id": v.key,
        "files": list(v.files), "trailers": trailer_people(v.series),
        "effect": None if v.effect is None else f"{v.effect:.1f} %",
        "claims": [_claim_row(c) for c in v.claims],
        "robot": [_robot_row(r) for r in robot_rows(v.robot, v.disagreements)],
        # two findings of one report (a measure and its total) can oppose the same claim: one
        # line says so
        "disagreements": list(dict.fromkeys(disagreement_text(d) for d in v.disagreements)),
        "tracks": [{"title": track_title(t), "points": point_texts(t)} for t in v.tracks],
        "messages": [_message_row(m) for m in v.messages],
        "plots": _plots(v.claims, runs, numbers),
    }


def render_html(doc: Document, runs: Runs | None = None, *, title: str = "patchperf report",
                view: ReportView | None = None) -> str:
    """The whole page. `runs` (scenario id → scenario and verdict) gives the simulated
    curves; without it only claimed curves are drawn."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    numbers = itertools.count()  # the page's plots numbered from 0: the same file each time
    runs = runs or {}
    view = view or build_view(doc)
    env = Environment(loader=PackageLoader("reports", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True))
    env.filters["t"] = lambda value, width=None: one_line(None if value is None else str(value), width)
    template = env.get_template("report.html.j2")
    judged = sum(1 for c in doc["claims"] if c.get("verdict"))
    return template.render(
        title=title,
        counts={"series": len(view.series), "messages": len(doc["messages"]),
                "claims": len(doc["claims"]), "judged": judged},
        series=[_series_block(v, runs, numbers) for v in view.series],
        others=[_claim_row(c) for c in view.other_claims],
        lone=[_message_row(m) for m in view.other_messages],
        other_plots=_plots(view.other_claims, runs, numbers),
        unlinked=_unlinked_rows(view.unlinked_robot),
    )
