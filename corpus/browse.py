"""One series as the TUI's detail pane shows it: its messages with their bodies and diffs,
read again from the stored raw mail, and its claims with any verdict kept in the store.

Library functions over the store, so the TUI holds no SQL and no analysis of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from analyze.errors import BadInput
from analyze.mail.message import parse_message

from .store import Store


@dataclass(frozen=True, slots=True)
class ThreadMessage:
    key: str
    role: str  # cover | patch | reply
    subject: str
    sender: str
    date: str  # ISO 8601 as the mail gives it, or empty
    kind: str
    lines: tuple[str, ...]  # the text/plain body as sent
    depths: tuple[int, ...]  # quote depth of each line
    diff: str  # the message's own diff (not one it only quotes), or empty
    problem: str = ""  # why the stored mail could not be read again, if it could not


@dataclass(frozen=True, slots=True)
class SeriesDetail:
    series: dict[str, Any]
    messages: tuple[ThreadMessage, ...]
    claims: tuple[dict[str, Any], ...]  # with `scenario_id` and `verdict` when judged before


def series_detail(store: Store, series_id: str) -> SeriesDetail | None:
    """The series with this id, its stored members in thread order, and its claims."""
    found = store.load_series([series_id])
    if not found:
        return None
    series = found[0]
    roles = ([("cover", series["cover"])] if series.get("cover") else []) + \
        [("patch", k) for k in series.get("patches", [])] + \
        [("reply", k) for k in series.get("replies", [])]
    messages = []
    for role, key in roles:
        raw = store.get_raw(key)
        if raw is None:
            continue  # named by the thread, never stored (a thread fetched in part)
        try:
            m = parse_message(raw, key)
        except BadInput as exc:
            messages.append(ThreadMessage(key, role, "", "", "", "other", (), (), "", str(exc)))
            continue
        messages.append(ThreadMessage(
            key=key, role=role, subject=m.subject.raw, sender=m.from_display,
            date=m.date.isoformat() if m.date else "", kind=m.kind,
            lines=m.body.lines, depths=m.body.depths,
            diff=m.patch.text if m.patch is not None and not m.patch.quoted else "",
        ))
    keys = [key for _, key in roles]
    claims = store.claim_docs(keys=keys)
    kept = store.stored_verdicts([c["id"] for c in claims])
    for claim in claims:
        if claim["id"] in kept:
            claim["scenario_id"], claim["verdict"] = kept[claim["id"]]
    return SeriesDetail(series, tuple(messages), tuple(claims))
