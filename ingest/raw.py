"""The unit of ingest: the bytes of one mail and where they came from."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RawMail:
    data: bytes  # an RFC 5322 message (for archive pages: rebuilt from the page's headers and body)
    origin: str  # path, `path#N` for the Nth message of an mbox, or a URL
    fmt: str  # mbox | eml | maildir | lore-html | openwall-html | lore-text | openwall-text
