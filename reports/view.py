"""A report read series by series: each series with its messages, files and claims, ranked by
the size of the claimed effect (the digest) or by date.

Pure grouping of a `{messages, series, claims}` document, so it serves a report from the
store and an analysis of files alike; nothing here computes an analysis result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from analyze.robot_series import (
    Disagreement,
    authors_claims,
    disagreement_to_dict,
    disagreements,
)

from .document import received

Doc = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SeriesView:
    series: Doc
    messages: tuple[Doc, ...]  # the members present in the document: cover, patches, replies
    files: tuple[str, ...]  # paths the series' own diffs change (quoted diffs left out)
    claims: tuple[Doc, ...]  # claims first written in, or read from, a member
    effect: float | None  # the largest claimed change, in percent (absolute value)
    previous_version: int | None  # the version of the series this one follows, when shown
    # the kernel test robot's reports linked to the series (its `robot_reports`), and where
    # their findings and the series' claims point opposite ways
    robot: tuple[Doc, ...] = ()
    disagreements: tuple[Disagreement, ...] = ()
    tracks: tuple[Doc, ...] = ()  # its claims followed across its versions (`version_tracks`)

    @property
    def key(self) -> str:
        return str(self.series["id"])


@dataclass(frozen=True, slots=True)
class ReportView:
    series: tuple[SeriesView, ...]
    other_claims: tuple[Doc, ...]  # claims of messages no shown series holds
    other_messages: tuple[Doc, ...] = ()  # messages of no shown series (a lone mail)
    unlinked_robot: tuple[Doc, ...] = ()  # robot reports no series was found for


def claim_effect(claim: Doc) -> float | None:
    """How large a change the claim makes: the computed change, else the stated one."""
    value = claim.get("change_pct")
    if value is None:
        value = claim.get("stated_change_pct")
    return None if value is None else abs(float(value))


def claim_order(claim: Doc) -> tuple[Any, ...]:
    """Claims read as a table would: by metric, by what varies, then by its values in
    numeric order (threads 1, 2, 4, 8, not 1, 2, 4, 16, 8 in the order of the text)."""
    condition = claim.get("condition") or {}

    def value(v: Any) -> tuple[int, float, str]:
        try:
            return (0, float(v), "")
        except (TypeError, ValueError):
            return (1, 0.0, str(v))

    return (claim["metric"], claim.get("unit") or "", tuple(condition),
            tuple(value(v) for v in condition.values()))


def reading_order(claims: Iterable[Doc]) -> list[Doc]:
    """Claims as `patchperf claims` lists them: the mail in the order it was sent, each
    message's claims in `claim_order`. The store hands them over by id, a hash: threads 2,
    1, 4 and N 140, 50, 125 came out in that order."""
    def key(claim: Doc) -> tuple[Any, ...]:
        return (_sent(claim.get("date")), claim.get("message_id") or claim.get("found_in") or "",
                claim_order(claim), claim["id"])

    return sorted(claims, key=key)


def _sent(date: object) -> tuple[int, float]:
    """A claim's mail date as a sort key: undated mail last."""
    try:
        when = datetime.fromisoformat(str(date))
    except ValueError:
        return (1, 0.0)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (0, when.timestamp())


def message_key(message: Doc) -> str:
    """The key a series names its members by: the stored key, else the Message-ID."""
    return str(message.get("key") or message.get("message_id") or "")


def _members(series: Doc) -> list[str]:
    return [k for k in (series.get("cover"), *series.get("patches", []), *series.get("replies", []))
            if k]


def build_view(doc: Doc, *, rank: str = "effect") -> ReportView:
    """Group the document by series. `rank` is `effect` (largest claimed change first, series
    without claims last, newest first within a tie) or `date` (newest first)."""
    messages = {message_key(m): m for m in doc["messages"]}
    versions = {s["id"]: s.get("version") for s in doc["series"]}
    # the robot's findings are shown as the robot's, beside a series' claims, never as them
    robot_keys = {k for k, m in messages.items() if m.get("robot_report")}
    robot_keys.update(str(r.get(k)) for s in doc["series"] for r in s.get("robot_reports") or ()
                      for k in ("key", "message_id") if r.get(k))
    claimed: set[str] = {c["id"] for c in doc["claims"] if c.get("found_in") in robot_keys}
    views = []
    for series in doc["series"]:
        keys = _members(series)
        members = [messages[k] for k in keys if k in messages]
        key_set = set(keys)
        claims = sorted((c for c in doc["claims"]
                         if (c.get("message_id") in key_set or c.get("found_in") in key_set)
                         and c.get("found_in") not in robot_keys),
                        key=claim_order)
        claimed.update(c["id"] for c in claims)
        robot = tuple(series.get("robot_reports") or ())
        effects = [e for e in map(claim_effect, claims) if e is not None]
        views.append(SeriesView(
            series=series,
            messages=tuple(members),
            files=tuple(dict.fromkeys(_files(members))),
            claims=tuple(claims),
            effect=max(effects) if effects else None,
            previous_version=versions.get(series.get("previous_version")),
            robot=robot,
            disagreements=tuple(disagreements(authors_claims(series, claims), robot)),
            tracks=tuple(series.get("version_tracks") or ()),
        ))
    views.sort(key=lambda v: v.series.get("date") or "", reverse=True)  # newest first
    if rank == "effect":
        views.sort(key=lambda v: -1.0 if v.effect is None else v.effect, reverse=True)
    others = tuple(c for c in doc["claims"] if c["id"] not in claimed)
    in_series = {message_key(m) for v in views for m in v.messages}
    unlinked = tuple(doc.get("unlinked_robot_reports") or ())
    # a report shown under its series, or among the unlinked, is not a lone mail too
    in_series |= {str(r.get("message_id")) for v in views for r in v.robot}
    in_series |= {str(r.get("message_id")) for r in unlinked}
    lone = tuple(m for m in doc["messages"] if message_key(m) not in in_series)
    return ReportView(tuple(views), others, lone, unlinked)


def _files(members: Iterable[Doc]) -> Iterable[str]:
    for message in members:
        patch = message.get("patch")
        if patch and not patch.get("quoted"):
            for f in patch["files"]:
                yield f["path"]


def keep_verdict(view: ReportView, statuses: Sequence[str]) -> ReportView:
    """Only the series (and other claims) with a claim judged one of `statuses`."""
    def judged(claim: Doc) -> bool:
        return ((claim.get("verdict") or {}).get("status")) in statuses

    claims = tuple(c for c in view.other_claims if judged(c))
    origins = {k for c in claims for k in (c.get("message_id"), c.get("found_in"))}
    return ReportView(
        tuple(v for v in view.series if any(judged(c) for c in v.claims)),
        claims,
        tuple(m for m in view.other_messages if message_key(m) in origins),
    )


def keep_disagreeing(view: ReportView) -> ReportView:
    """Only the series whose claims and robot findings disagree (`report --disagree`)."""
    return ReportView(tuple(v for v in view.series if v.disagreements), (), ())


def trailer_people(series: Doc) -> list[tuple[str, str]]:
    """(trailer, person) given to the series in replies, in order, each once."""
    pairs = ((str(t.get("key", "")), str(t.get("value", "")))
             for t in series.get("received_trailers") or [])
    return list(dict.fromkeys(pairs))


def series_heading(view: SeriesView) -> str:
    """`v2 (after v1) · net-next · 3/3 patches · Alice Moreau <…> · 2024-03-18`"""
    s = view.series
    version = f"v{s['version']}" + (f" (after v{view.previous_version})"
                                     if view.previous_version is not None else "")
    patches = "pull request" if s.get("pull_request") else f"{received(s)} patches"
    parts = [version, s.get("tree") or "no tree", patches,
             s.get("author") or "?", (s.get("date") or "")[:10]]
    return " · ".join(parts)


def view_document(view: ReportView) -> Doc:
    """The `{messages, series, claims}` document of what a (filtered) view shows."""
    claims = {c["id"]: c for v in view.series for c in v.claims}
    claims.update((c["id"], c) for c in view.other_claims)
    messages = {message_key(m): m for v in view.series for m in v.messages}
    messages.update((message_key(m), m) for m in view.other_messages)
    series = [v.series if not v.disagreements else
              {**v.series, "robot_disagreements": [disagreement_to_dict(d) for d in v.disagreements]}
              for v in view.series]
    out: Doc = {"messages": list(messages.values()), "series": series,
                "claims": list(claims.values())}
    if view.unlinked_robot:
        out["unlinked_robot_reports"] = list(view.unlinked_robot)
    return out
