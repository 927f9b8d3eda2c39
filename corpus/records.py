"""The values the store takes and gives back, and how a Message-ID becomes a message key.

Plain frozen dataclasses, no SQL: `corpus.store` turns them into rows. The callers build the
JSON `doc` of an analysis or a series (`analyze.serialize`); the store keeps it as given.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from analyze.model import Message, Series

AddStatus = Literal["new", "duplicate", "variant"]


@dataclass(frozen=True)
class AddResult:
    """What `add_raw` did: stored a new message, found a duplicate, or kept a variant."""

    status: AddStatus
    row: int  # the message row (for a variant or duplicate: the message it belongs to)
    key: str  # the message key: its Message-ID, or `sha256:<hash>` when it has none


@dataclass(frozen=True)
class StoredRaw:
    """One stored mail's bytes verbatim, with the row it belongs to and where it came from."""

    row: int
    data: bytes
    origin: str
    fmt: str


@dataclass(frozen=True)
class StoreCounts:
    """How many rows each table of the store holds."""

    messages: int
    variants: int
    analyses: int
    series: int


@dataclass(frozen=True)
class AnalysisRecord:
    """The derived row of one message; `doc` is its JSON shape, made by the caller."""

    message_row: int
    analyzer_version: str
    kind: str
    doc: Mapping[str, Any] | str
    subject: str | None = None
    from_display: str | None = None
    date: datetime | None = None
    tree: str | None = None

    @classmethod
    def from_message(
        cls, message_row: int, message: Message, *, analyzer_version: str,
        doc: Mapping[str, Any] | str,
    ) -> AnalysisRecord:
        """Build the record of `message`, stored at `message_row`."""
        return cls(
            message_row=message_row, analyzer_version=analyzer_version, kind=message.kind,
            doc=doc, subject=message.subject.raw, from_display=message.from_display,
            date=message.date, tree=message.subject.tree,
        )


@dataclass(frozen=True)
class SeriesRecord:
    """One series to store; `doc` is its JSON shape, made by the caller."""

    id: str
    name: str
    version: int
    doc: Mapping[str, Any] | str
    total: int | None = None
    tree: str | None = None
    author: str | None = None
    date: datetime | None = None
    complete: bool | None = None
    cover: str | None = None
    patches: tuple[str, ...] = ()
    replies: tuple[str, ...] = ()

    @classmethod
    def from_series(cls, series: Series, *, doc: Mapping[str, Any] | str) -> SeriesRecord:
        """Build the record of `series`."""
        return cls(
            id=series.id, name=series.name, version=series.version, doc=doc,
            total=series.total, tree=series.tree, author=series.author, date=series.date,
            complete=series.complete, cover=series.cover, patches=series.patches,
            replies=series.replies,
        )


def fold(text: str) -> str:
    """Text as the series list searches it (the store's `*_folded` columns): casefolded, so
    `straße` finds `STRASSE`, and a NUL as U+FFFD (SQLite's LIKE ends a pattern at a NUL,
    PostgreSQL's text cannot hold one)."""
    return text.casefold().replace("\x00", "\ufffd")


def normalize_message_id(message_id: str | None) -> str | None:
    """A Message-ID without angle brackets or surrounding space; None when empty."""
    if message_id is None:
        return None
    mid = message_id.strip()
    if mid.startswith("<") and mid.endswith(">"):
        mid = mid[1:-1].strip()
    return mid or None


@dataclass(frozen=True, slots=True)
class SeriesRow:
    """A line of the series list: what the TUI shows and sorts by, without the document."""

    id: str
    name: str
    version: int
    total: int | None
    tree: str | None
    author: str | None
    date_utc: str | None
    complete: int | None
    claims: int
    effect: float | None  # the largest claimed change, percent, absolute
