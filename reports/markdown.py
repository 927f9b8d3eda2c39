"""Markdown rendering, ready to paste into a reply or a wiki. Mail text is escaped so it
cannot inject links, HTML or table structure."""

from __future__ import annotations

import re

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
from .safe import one_line

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")


def md(text: object, width: int | None = None) -> str:
    return _MD_SPECIAL.sub(r"\\\1", one_line(None if text is None else str(text), width))


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
                "| metric | condition | before → after | change | stated | agrees | source | verdict |",
                "|---|---|---|---|---|---|---|---|"]
        for claim in doc["claims"]:
            out.append(
                f"| {claim['metric']} | {md(condition_text(claim))} | {md(before_after(claim))} | "
                f"{percent(claim.get('change_pct'))} | {percent(claim.get('stated_change_pct'))} | "
                f"{agreement(claim)} | {claim['source']}{' (quoted)' if claim['quoted'] else ''} | "
                f"{md(verdict_text(claim))} |"
            )
        out.append("")
    if not out:
        out.append("Nothing to report.")
    return "\n".join(out) + "\n"
