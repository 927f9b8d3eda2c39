"""Domain values: what analysis makes of a mail, a thread and a series.

Frozen dataclasses, so a value can be shared, hashed and compared freely. JSON shapes
(docs/json.md, docs/patchperf.schema.json) are produced from these by analyze/serialize.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Subject:
    """A subject line split into its parts (`[PATCH net-next v2 3/7] tcp: ...`)."""

    raw: str  # the decoded subject, folding whitespace collapsed
    name: str  # without Re:/Fwd: and without the bracketed prefixes
    prefixes: tuple[str, ...]  # every token inside the brackets, as written (PATCH included)
    tree: str | None  # net, net-next, bpf, ... ; None if none
    version: int  # 1 when not written
    version_written: bool  # False when `version` is the default 1
    index: int | None  # None for a bare [PATCH]
    total: int | None
    rfc: bool
    resend: bool
    reply: bool  # Re:, RE, re , Aw: ...


@dataclass(frozen=True, slots=True)
class Trailer:
    key: str  # canonical case: Signed-off-by, Acked-by, Fixes, Link, ...
    value: str
    name: str | None = None  # person's name, when the value is an address
    email: str | None = None


@dataclass(frozen=True, slots=True)
class FileChange:
    path: str  # the new path (the old one for a deletion)
    old_path: str | None  # differs from path on a rename/copy; None for a new file
    added: int
    removed: int
    binary: bool = False
    new_file: bool = False
    deleted_file: bool = False
    renamed: bool = False
    old_mode: str | None = None
    new_mode: str | None = None


@dataclass(frozen=True, slots=True)
class Patch:
    """The diff a message carries (or only quotes, when `quoted`)."""

    files: tuple[FileChange, ...]
    added: int
    removed: int
    quoted: bool  # True when the only diff is inside quotes (a review reply)
    text: str  # the diff itself, quote markers stripped


@dataclass(frozen=True, slots=True)
class DiffstatFile:
    path: str
    changed: int | None  # None for `Bin 0 -> 123 bytes`


@dataclass(frozen=True, slots=True)
class Diffstat:
    """A diffstat block as written in the mail (cover letters, format-patch output)."""

    files: tuple[DiffstatFile, ...]
    added: int | None
    removed: int | None


@dataclass(frozen=True, slots=True)
class Attachment:
    filename: str | None  # as sent: never used as a path
    content_type: str
    text: str | None  # decoded text for text/* parts, else None


@dataclass(frozen=True, slots=True)
class Body:
    """The text/plain body, line by line as sent (no unflowing of format=flowed)."""

    lines: tuple[str, ...]
    depths: tuple[int, ...]  # quote depth of each line
    signature_start: int | None = None  # index of the `-- ` line, if any
    footer_start: int | None = None  # index of a mailing-list footer, if any

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True, slots=True)
class Message:
    """One mail, decoded and understood."""

    key: str  # message_id, or `sha256:<hash>` when the mail has none
    message_id: str | None
    content_hash: str  # sha256 of the raw bytes
    subject: Subject
    from_name: str
    from_addr: str
    address_hidden: bool  # the archive shortened the address irreversibly (openwall)
    date: datetime | None  # aware, with the mail's own offset
    in_reply_to: str | None
    references: tuple[str, ...]
    body: Body
    attachments: tuple[Attachment, ...]
    kind: str  # pull_request | cover | patch | reply | other
    patch: Patch | None
    diffstat: Diffstat | None
    pull_url: str | None
    trailers: tuple[Trailer, ...]
    change_id: str | None = None
    list_id: str | None = None
    links: tuple[str, ...] = ()  # Message-IDs of lore/patch.msgid.link URLs in the body
    origin: str = ""  # where it was read: path, path#N, URL
    warnings: tuple[str, ...] = ()  # what was odd but not fatal (an unknown charset, ...)

    @property
    def from_display(self) -> str:
        if self.from_name:
            return f"{self.from_name} <{self.from_addr}>" if self.from_addr else self.from_name
        return self.from_addr


@dataclass(frozen=True, slots=True)
class ReceivedTrailer:
    trailer: Trailer
    message_id: str  # the reply that gave it
    target: str  # the cover or patch it answers


@dataclass(frozen=True, slots=True)
class Series:
    """A patch series as Patchwork would assemble it, with versions linked across threads."""

    id: str
    name: str
    version: int
    total: int | None
    tree: str | None
    author: str
    date: datetime | None
    cover: str | None  # message key
    patches: tuple[str, ...]  # message keys in index order
    complete: bool | None  # None when the total is unknown
    previous_version: str | None = None  # id of the series this one supersedes
    received_trailers: tuple[ReceivedTrailer, ...] = ()
    replies: tuple[str, ...] = ()  # keys of replies to the cover or the patches
    pull_request: bool = False
    # (key, count) sorted by key: the members' own trailers and the received ones, e.g.
    # (("Acked-by", 2), ("Signed-off-by", 3)); reports read it instead of recounting.
    trailer_counts: tuple[tuple[str, int], ...] = ()


# What a claim measures, and which way its figures moved (the JSON contract's values).
METRICS = ("throughput", "latency", "transactions", "cpu", "memory", "time", "size", "other")
DIRECTIONS = ("improvement", "regression", "neutral")


@dataclass(frozen=True, slots=True)
class Claim:
    """A performance claim: a figure before and after a patch, as a mail states it."""

    id: str  # stable: from where it was first written and what it measures
    message_id: str | None  # the message the figures were first written in (a quote's source)
    found_in: str  # key of the message they were read from
    quoted: bool
    metric: str  # one of METRICS
    unit: str | None  # as written
    canonical_unit: str | None
    baseline: float | None  # as written in `unit`
    patched: float | None
    baseline_canonical: float | None
    patched_canonical: float | None
    bound: str | None  # lower | upper | approx (of the patched figure, else the baseline)
    change_pct: float | None  # computed: 100 * (patched - baseline) / baseline
    stated_change_pct: float | None  # as the mail states it, sign included
    consistent: bool | None  # stated vs computed within the mail's rounding
    direction: str  # one of DIRECTIONS
    condition: tuple[tuple[str, str], ...]  # what varies: (("threads", "4"),)
    source: str  # table | list | prose
    quote: str
    line: int | None  # 1-based line of the body the figures were read from
    date: datetime | None = None  # of the message they were found in
    # the patched figure's unit when it is not the baseline's (`5 Mpps → 10 Gpps`): both
    # figures stay as written, `unit` is the baseline's
    patched_unit: str | None = None
    # the benchmark the figures came from, folded to its family (`netperf`, `fio`), when the
    # mail names it near them (analyze/claims/benchmark.py)
    benchmark: str | None = None
    # every run of each side as written, when the mail gives several; baseline and patched
    # keep the stated mean, else the first run
    runs: tuple[tuple[float, ...], tuple[float, ...]] | None = None


@dataclass(frozen=True, slots=True)
class Problem:
    """An input that was rejected: one line naming it and what is wrong."""

    origin: str
    reason: str
    skipped: bool = False  # a file in a folder that is no mail: a warning, not a rejection

    def __str__(self) -> str:
        return f"{self.origin}: {self.reason}"


@dataclass(frozen=True, slots=True)
class Analysis:
    messages: tuple[Message, ...] = ()
    series: tuple[Series, ...] = ()
    claims: tuple[Claim, ...] = ()
    problems: tuple[Problem, ...] = ()  # inputs that could not be read
    warnings: tuple[Problem, ...] = ()  # read, but part of it was not (a table past the limit)
