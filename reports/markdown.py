"""Markdown rendering, ready to paste into a reply or a wiki. Mail text is escaped so it
cannot inject links, HTML or table structure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .document import (
    Document,
    agreement,
    before_after,
    condition_text,
    patch_summary,
    percent,
    received,
    trailer_counts,
    verdict_text,
)
from .links import lore_url
from .robot import disagreement_text, robot_rows
from .safe import one_line
from .tracks import point_texts, track_title
from .view import ReportView, SeriesView, build_view, series_heading, trailer_people

# Every ASCII punctuation Markdown gives a meaning to, `&` included (an entity: `&rlm;`
# would become a real right-to-left mark).
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~&])")
# A scheme's colon before `//` (`https\://` is no autolink).
_SCHEME = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]{0,30}):(?=//)")
# GitHub's autolink extension links `www.` at a word start, and any address-shaped token
# whatever its escapes (`a\@b.com` is linked too); an address goes in a code span, where
# nothing is linked, and `www.` loses its dot to an escape.
_EMAIL = re.compile(r"[A-Za-z0-9.+_-]+@[A-Za-z0-9._-]+")
_WWW = re.compile(r"\b([Ww][Ww][Ww])\.")


def md(text: object, width: int | None = None) -> str:
    """Mail text as Markdown that shows it as written: no link, no entity, no HTML, no table
    cell or emphasis it could make (checked with GitHub's renderer, cmark-gfm)."""
    flat = one_line(None if text is None else str(text), width)
    out, pos = [], 0
    for m in _EMAIL.finditer(flat):
        out += [_escaped(flat[pos:m.start()]), f"`{m.group()}`"]
        pos = m.end()
    out.append(_escaped(flat[pos:]))
    return "".join(out)


def _escaped(text: str) -> str:
    return _SCHEME.sub(r"\1\\:", _WWW.sub(r"\1\\.", _MD_SPECIAL.sub(r"\\\1", text)))


def render_markdown(doc: Document) -> str:
    out: list[str] = []
    if doc["series"]:
        out += ["## Series", "", "| series | v | tree | patches | complete | acks | reviews | tests | author |",
                "|---|---|---|---|---|---|---|---|---|"]
        for s in doc["series"]:
            c = trailer_counts(s)
            complete = s.get("complete")
            out.append(
                f"| {md(s['name'], 80)} | {s['version']} | {md(s.get('tree') or '-')} | {received(s)} | "
                f"{'?' if complete is None else ('yes' if complete else 'no')} | {c['Acked-by']} | "
                f"{c['Reviewed-by']} | {c['Tested-by']} | {md(s.get('author'))} |"
            )
        out.append("")
    if doc["messages"]:
        out += ["## Messages", "", "| date | kind | subject | from | diff |", "|---|---|---|---|---|"]
        for m in doc["messages"]:
            out.append(
                f"| {(m.get('date') or '')[:16]} | {m['kind']} | {md(m['subject'], 90)} | "
                f"{md(m['from'])} | {patch_summary(m)} |"
            )
        out.append("")
    if doc["claims"]:
        out += ["## Claims", "",
                "| id | metric | condition | before → after | change | stated | agrees | source | verdict | mail |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for claim in doc["claims"]:
            out.append(
                f"| {md(claim['id'])} | {claim['metric']} | {md(condition_text(claim))} | "
                f"{md(before_after(claim))} | "
                f"{percent(claim.get('change_pct'))} | {percent(claim.get('stated_change_pct'))} | "
                f"{agreement(claim)} | {claim['source']}{' (quoted)' if claim['quoted'] else ''} | "
                f"{md(verdict_text(claim))} | {_mail_link(claim)} |"
            )
        out.append("")
    view = build_view(doc, rank="date")
    for v in view.series:
        if v.robot:
            out += [f"## Kernel test robot on {md(v.series['name'], 80)} v{v.series['version']}", ""]
            out += _robot_rows(v) + [""]
        if v.tracks:
            out += [f"## {md(v.series['name'], 80)} across versions", ""]
            out += _track_rows(v.tracks) + [""]
    out += _unlinked(view)
    if not out:
        out.append("Nothing to report.")
    return "\n".join(out) + "\n"


def _robot_rows(v: SeriesView) -> list[str]:
    """The robot's findings on a series, beside its claims; a finding that disagrees with a
    claim says so in words (and what it disagrees with, below the table)."""
    out = ["| date | report | rule | test | measure | change | finding | machine |",
           "|---|---|---|---|---|---|---|---|"]
    for r in robot_rows(v.robot, v.disagreements):
        url = lore_url(r.report)
        finding = f"**{md(r.finding)}**" if r.disagrees else md(r.finding)
        out.append(f"| {r.date} | {f'[lore]({url})' if url else ''} | {md(r.rule)} | {md(r.test)} | "
                   f"{md(r.measure)} | {r.change} | {finding} | {md(r.machine, 60)} |")
    said = list(dict.fromkeys(disagreement_text(d) for d in v.disagreements))
    if said:
        out += [""] + [f"- ≠ {md(line)}" for line in said]
    return out


def _track_rows(tracks: Sequence[dict[str, Any]]) -> list[str]:
    """One table row per claim and version; a flagged move in bold, with why."""
    out = ["| claim | version | before → after | moved | note |", "|---|---|---|---|---|"]
    for track in tracks:
        for p in point_texts(track):
            note = f"**flagged**: {md(p.note)}" if p.flagged else md(p.note, 120)
            out.append(f"| {md(track_title(track), 60)} | {p.version} | {md(p.figures)} | "
                       f"{p.moved} | {note} |")
    return out


def _unlinked(view: ReportView) -> list[str]:
    if not view.unlinked_robot:
        return []
    out = ["### Kernel test robot reports linked to no series", "", "| date | report | why |",
           "|---|---|---|"]
    for r in view.unlinked_robot:
        url = lore_url(str(r.get("message_id") or ""))
        out.append(f"| {str(r.get('date') or '')[:10]} | {f'[lore]({url})' if url else ''} | "
                   f"{md(r.get('reason'), 160)} |")
    return out + [""]


def _claims_rows(claims: list[dict[str, object]] | tuple[dict[str, object], ...]) -> list[str]:
    out = ["| metric | condition | before → after | change | stated | agrees | verdict | mail |",
           "|---|---|---|---|---|---|---|---|"]
    for claim in claims:
        out.append(
            f"| {claim['metric']} | {md(condition_text(claim))} | {md(before_after(claim))} | "
            f"{percent(claim.get('change_pct'))} | {percent(claim.get('stated_change_pct'))} | "  # type: ignore[arg-type]
            f"{agreement(claim)} | {md(verdict_text(claim))} | {_mail_link(claim)} |"
        )
    return out


def _mail_link(claim: dict[str, object]) -> str:
    """The report's own link to the claim's mail on lore: the words are ours ("lore"), the
    URL percent-encoded (reports/links.py); mail text never becomes a link."""
    url = lore_url(str(claim.get("message_id") or claim.get("found_in") or ""))
    return f"[lore]({url})" if url else ""


def render_report_markdown(view: ReportView) -> str:
    """The report series by series, ready to paste into a reply or a wiki."""
    out: list[str] = []
    for v in view.series:
        s = v.series
        out += [f"### {md(s['name'], 100)}", "", f"{md(series_heading(v))}", ""]
        if v.files:
            out.append(f"- files: {md(', '.join(v.files[:10]))}"
                       + (f" and {len(v.files) - 10} more" if len(v.files) > 10 else ""))
        for key, person in trailer_people(s)[:10]:
            out.append(f"- {md(key)}: {md(person)}")
        if v.effect is not None:
            out.append(f"- largest claimed change: {v.effect:.1f} %")
        out.append("")
        out += _claims_rows(v.claims) if v.claims else ["No performance claims."]
        out.append("")
        if v.robot:
            out += ["Kernel test robot:", ""] + _robot_rows(v) + [""]
        if v.tracks:
            out += ["Across versions:", ""] + _track_rows(v.tracks) + [""]
    if view.other_messages:
        out += ["### Messages outside the series shown", "", "| date | kind | subject | from | diff |",
                "|---|---|---|---|---|"]
        out += [f"| {(m.get('date') or '')[:16]} | {m['kind']} | {md(m['subject'], 90)} | "
                f"{md(m['from'])} | {patch_summary(m)} |" for m in view.other_messages]
        out.append("")
    if view.other_claims:
        out += ["### Claims outside the series shown", ""] + _claims_rows(view.other_claims) + [""]
    out += _unlinked(view)
    if not out:
        out.append("Nothing to report.")
    return "\n".join(out) + "\n"
