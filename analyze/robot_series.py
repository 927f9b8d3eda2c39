"""A series' claims beside what the kernel test robot measured on it (issue 23).

The robot's reports and the commits "applied" mails name are read from each message as it is
analysed (`robot_report` and `applied_commits` in the message's document). Here they meet the
series: each report is linked by the rules of `analyze.mail.robot_links`, and becomes an
entry of its series' `robot_reports` with the robot's findings (the report's own claims, read
by analyze/claims/tables/lkp.py). Where the series claims an improvement and the robot
measured a regression in the same benchmark family (or the reverse), they disagree.

Pure, and fed from message documents, so an analysis of files and a store's series rebuild
link alike, whichever mail arrived first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .claims.benchmark import family
from .mail.robot import RobotReport
from .mail.robot_links import RobotLink, SeriesRef, link_reports, normalised
from .model import Series
from .serialize import robot_report_from_dict, robot_report_to_dict

Doc = dict[str, Any]
_OPPOSITE = {"improvement": "regression", "regression": "improvement"}


@dataclass(slots=True)
class RobotMail:
    """The robot reports and applied commits of a run's message documents, gathered as the
    documents stream past (a store's rebuild reads a million; few are either)."""

    reports: list[tuple[RobotReport, Doc]] = field(default_factory=list)
    applied: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def add(self, doc: Mapping[str, Any]) -> None:
        found = doc.get("robot_report")
        commits = doc.get("applied_commits")
        if found is None and not commits:
            return
        key = str(doc.get("key") or doc.get("message_id") or "")
        if found is not None:
            about = {"message_id": doc.get("message_id"), "key": key, "date": doc.get("date"),
                     "subject": doc.get("subject"), "from": doc.get("from")}
            self.reports.append((robot_report_from_dict(key, found), about))
        if commits:
            self.applied[key] = tuple(commits)


@dataclass(frozen=True, slots=True)
class Linked:
    """One report, linked or not, as the store keeps it and the reports show it."""

    key: str
    link: RobotLink
    entry: Doc  # the `robot_reports` object of docs/json.md


def link_robot_mail(mail: RobotMail, series: Sequence[Series], subject_of: Mapping[str, str],
                    findings: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[Linked]:
    """Every report of `mail` with its link and entry. `subject_of` gives a patch's subject
    name by message key; `findings` the claims read from each report, by its key."""
    if not mail.reports:
        return []
    applied = _applied_by_commit(mail, series)
    links = link_reports((r for r, _ in mail.reports),
                         _candidates(mail, series, subject_of, set(applied.values())), applied)
    out = []
    for (report, about), link in zip(mail.reports, links, strict=True):
        entry = {**about, "rule": link.rule, "reason": link.reason,
                 **robot_report_to_dict(report),
                 "findings": [_finding(report, c) for c in findings.get(report.key, ())
                              if not c.get("quoted")]}
        out.append(Linked(report.key, link, entry))
    out.sort(key=lambda one: (one.entry.get("date") or "", one.key))
    return out


def _candidates(mail: RobotMail, series: Sequence[Series], subject_of: Mapping[str, str],
                applied: set[str]) -> list[SeriesRef]:
    """The series a report may name: one holding a patch a report links to, one with a patch
    subject a report's commit has, or one an applied mail in its thread ties to a commit.
    A store's million messages hold a few hundred reports: the rules compare those, not
    every series' subjects (`normalised` parses each one)."""
    links = {_bare(r.patch_link) for r, _ in mail.reports if r.patch_link}
    subjects = {_folded(normalised(r.commit_subject)) for r, _ in mail.reports if r.commit_subject}
    out = []
    for s in series:
        members = tuple(k for k in (s.cover, *s.patches) if k)
        names = tuple(subject_of[k] for k in s.patches if k in subject_of)
        if (s.id in applied or any(_bare(k) in links for k in members)
                or any(_folded(n) in subjects for n in names)):
            out.append(SeriesRef(s.id, s.version, members, names))
    return out


def named_patches(mail: RobotMail, patches: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Of (message key, subject name) of every patch, those whose subject a report's commit
    has: all the subject rule needs, where every patch's subject would be a million entries."""
    subjects = {_folded(normalised(r.commit_subject)) for r, _ in mail.reports if r.commit_subject}
    return {key: name for key, name in patches if _folded(name) in subjects} if subjects else {}


def _folded(name: str) -> str:
    # a patch's subject name is already without prefixes: case and blanks are what is left
    # to fold, as `normalised` folds them
    return " ".join(name.casefold().split()).rstrip(".")


def _bare(message_id: str) -> str:
    return message_id.strip().removeprefix("<").removesuffix(">")


def by_series(linked: Iterable[Linked]) -> dict[str, list[Doc]]:
    """The linked reports' entries by series id, oldest first."""
    out: dict[str, list[Doc]] = {}
    for one in linked:
        if one.link.series is not None:
            out.setdefault(one.link.series, []).append(one.entry)
    return out


def _applied_by_commit(mail: RobotMail, series: Sequence[Series]) -> dict[str, str]:
    """Each commit an applied mail named, to the series whose thread holds that mail (the
    mail answers the cover or a patch, so it is among the series' replies)."""
    if not mail.applied:
        return {}
    thread_of: dict[str, str] = {}
    for s in series:
        for key in s.replies:
            if key in mail.applied:
                thread_of.setdefault(key, s.id)
    out: dict[str, str] = {}
    for key, commits in mail.applied.items():
        if key in thread_of:
            for commit in commits:
                out.setdefault(commit, thread_of[key])
    return out


def _finding(report: RobotReport, claim: Mapping[str, Any]) -> Doc:
    condition = claim.get("condition") or {}
    measure = condition.get("measure") if isinstance(condition, Mapping) else None
    change = claim.get("change_pct")
    return {
        "claim_id": claim.get("id"),
        "metric": claim.get("metric"),
        "measure": measure,  # the robot's row: `fio.read_bw_MBps`
        "family": family(family_of_row(measure) or report.family or "") or None,
        "baseline": claim.get("baseline"),
        "patched": claim.get("patched"),
        "unit": claim.get("unit"),
        "change_pct": change if change is not None else claim.get("stated_change_pct"),
        "direction": claim.get("direction"),
    }


def family_of_row(measure: object) -> str | None:
    """`fio.read_bw_MBps` -> `fio`: the robot names its rows by benchmark first."""
    if isinstance(measure, str) and "." in measure:
        return measure.split(".", 1)[0]
    return None


# -- disagreement ----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Disagreement:
    claim_id: str  # the series' claim
    report: str  # the report's Message-ID (or key)
    finding: str | None  # the robot's claim id
    family: str
    metric: str
    claimed: str  # improvement | regression
    measured: str


def disagreements(claims: Iterable[Mapping[str, Any]],
                  reports: Iterable[Mapping[str, Any]]) -> list[Disagreement]:
    """Where a series' claim and a robot finding on it point opposite ways in one benchmark
    family: the same benchmark (the finding's, named by the claim) and the same metric class
    (throughput, latency, ...). A claim whose mail names no benchmark near it is compared
    with none."""
    claims = [c for c in claims if c.get("direction") in _OPPOSITE and not c.get("quoted")]
    out: list[Disagreement] = []
    for report in reports:
        for finding in report.get("findings") or ():
            family, metric = finding.get("family"), finding.get("metric")
            measured = finding.get("direction")
            if not family or measured not in _OPPOSITE or metric in (None, "other"):
                continue
            for claim in claims:
                if (claim.get("metric") == metric and claim["direction"] == _OPPOSITE[measured]
                        and claim.get("benchmark") == family):
                    out.append(Disagreement(str(claim.get("id")),
                                            str(report.get("message_id") or ""),
                                            finding.get("claim_id"), family, metric,
                                            claim["direction"], measured))
    return out


def link_documents(series: Sequence[Series], messages: Sequence[Mapping[str, Any]],
                   claims: Iterable[Mapping[str, Any]]) -> list[Linked]:
    """`link_robot_mail` over an analysis held in memory: its message documents and claims."""
    mail = RobotMail()
    for doc in messages:
        mail.add(doc)
    if not mail.reports:
        return []
    subject_of = {str(d.get("key") or d.get("message_id")): d["subject_parts"]["name"]
                  for d in messages if d.get("kind") == "patch"}
    keys = {report.key for report, _ in mail.reports}
    findings: dict[str, list[Mapping[str, Any]]] = {}
    for claim in claims:
        if claim.get("found_in") in keys:
            findings.setdefault(str(claim["found_in"]), []).append(claim)
    return link_robot_mail(mail, series, subject_of, findings)


def disagreement_to_dict(d: Disagreement) -> Doc:
    """A series' `robot_disagreements` item (docs/json.md)."""
    return {"claim_id": d.claim_id, "report": d.report, "finding": d.finding, "family": d.family,
            "metric": d.metric, "claimed": d.claimed, "measured": d.measured}


def series_claims(series: Mapping[str, Any], claims: Iterable[Mapping[str, Any]],
                  robot_keys: set[str]) -> list[Mapping[str, Any]]:
    """The claims a series makes itself: first written in its cover or patches (a
    reviewer's figures in a reply are not the author's claim), not the robot's."""
    return authors_claims(series, (c for c in claims if c.get("found_in") not in robot_keys))


def authors_claims(series: Mapping[str, Any], claims: Iterable[Mapping[str, Any]]
                   ) -> list[Mapping[str, Any]]:
    """The claims first written in the series' cover or patches: what disagreements compare."""
    keys = {k for k in (series.get("cover"), *series.get("patches", [])) if k}
    return [c for c in claims if c.get("message_id") in keys]
