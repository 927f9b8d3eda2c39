"""Which series a kernel test robot report tested (issue 23), by three rules in order:

1. `patch link`: the report names the Message-ID of the patch it tested, and a stored series
   holds that patch (cover or patch).
2. `subject`: the tested commit's subject, normalised as Patchwork and b4 compare subjects
   (no `Re:`/`[PATCH …]` prefixes, case and runs of blanks folded), is the subject of a
   series' patch; of several versions, the highest.
3. `applied`: the tested commit is one an "applied" mail of the series named (the ids
   compared by their common prefix, at least 7 digits, as git abbreviates them).

A report no rule links is kept unlinked, with the reason. Pure: the caller gathers the
series and the applied commits from the store, so a link is found whichever arrived first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .robot import RobotReport
from .subject import parse_subject

PATCH_LINK, SUBJECT, APPLIED = "patch link", "subject", "applied"
_MIN_ID = 7  # git's shortest abbreviation


@dataclass(frozen=True, slots=True)
class SeriesRef:
    """What linking needs of a series."""

    id: str
    version: int
    members: tuple[str, ...]  # Message-IDs (or keys) of its cover and patches
    subjects: tuple[str, ...]  # its patches' subjects, as sent


@dataclass(frozen=True, slots=True)
class RobotLink:
    report: str  # the report's message key
    series: str | None
    rule: str | None  # patch link | subject | applied; None when unlinked
    reason: str  # what matched, or why nothing did


def normalised(subject: str) -> str:
    """A subject as Patchwork and b4 compare them: the name without prefixes, casefolded,
    blanks folded, a trailing period dropped."""
    return " ".join(parse_subject(subject).name.casefold().split()).rstrip(".")


def link_reports(reports: Iterable[RobotReport], series: Sequence[SeriesRef],
                 applied: Mapping[str, str]) -> list[RobotLink]:
    """Each report's link. `applied` maps a commit id an applied mail named to its series."""
    by_member: dict[str, SeriesRef] = {}
    by_subject: dict[str, SeriesRef] = {}
    for s in series:
        for key in s.members:
            by_member.setdefault(_bare(key), s)
        for subject in s.subjects:
            name = normalised(subject)
            kept = by_subject.get(name)
            if name and (kept is None or s.version > kept.version):
                by_subject[name] = s
    # the applied commits by their first 7 digits: ids of any length that share a prefix
    # of 7 or more share those
    by_prefix: dict[str, list[tuple[str, str]]] = {}
    for commit, series_id in applied.items():
        if len(commit) >= _MIN_ID:
            by_prefix.setdefault(commit[:_MIN_ID], []).append((commit, series_id))
    return [_link(r, by_member, by_subject, by_prefix) for r in reports]


def _link(report: RobotReport, by_member: Mapping[str, SeriesRef],
          by_subject: Mapping[str, SeriesRef],
          by_prefix: Mapping[str, list[tuple[str, str]]]) -> RobotLink:
    if report.patch_link:
        found = by_member.get(_bare(report.patch_link))
        if found is not None:
            return RobotLink(report.key, found.id, PATCH_LINK, f"patch link <{report.patch_link}>")
    if report.commit_subject:
        found = by_subject.get(normalised(report.commit_subject))
        if found is not None:
            return RobotLink(report.key, found.id, SUBJECT,
                             f"commit subject \"{report.commit_subject}\"")
    if report.commit and len(report.commit) >= _MIN_ID:
        for commit, series_id in by_prefix.get(report.commit[:_MIN_ID], ()):
            if commit.startswith(report.commit) or report.commit.startswith(commit):
                return RobotLink(report.key, series_id, APPLIED,
                                 f"commit {report.commit[:12]} applied from the series")
    named = [f"patch link <{report.patch_link}>" if report.patch_link else "",
             f"commit subject \"{report.commit_subject}\"" if report.commit_subject else "",
             f"commit {report.commit[:12]}" if report.commit else ""]
    said = ", ".join(n for n in named if n) or "no patch, commit or subject"
    return RobotLink(report.key, None, None, f"no stored series matches ({said})")


def _bare(message_id: str) -> str:
    return message_id.strip().removeprefix("<").removesuffix(">")
