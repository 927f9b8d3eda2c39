"""Series assembly, the way Patchwork does it, and versions linked across threads.

Covers, patches and pull requests are taken in (date, key) order, so the result does not depend
on the order mail arrived in. Each joins a series found by its references (its own id, then
In-Reply-To, then References nearest first), else by series markers (same submitter, version
and total within 12 hours), else starts a new one. Patchwork's series fixtures (read from
../shared/peer by tests/test_peer_series.py) encode the cases: out-of-order arrival, a new version threaded under the old one, the same
patch sent twice, `3/2` extra patches, a v3 cover whose patches say no version.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from analyze.model import Message, ReceivedTrailer, Series

from .threads import (
    Parents,
    clean_name,
    consulted_references,
    link_parents,
    sort_key,
    unique_messages,
)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MARKER_WINDOW = timedelta(hours=12)  # Patchwork's window for grouping unthreaded mail
# How many candidate series one reference (or one submitter's window) may offer. Patchwork
# looks at one only; a few more let a resend find its place, and a flood of the same patch
# (Patchwork's bugs-spamming, or hostile mail) stays linear.
SCAN_LIMIT = 32

# Trailers a reviewer gives; Signed-off-by and Co-developed-by only ever come from authors.
_AUTHOR_ONLY = frozenset({"signed-off-by", "co-developed-by"})

@dataclass(eq=False)
class _Draft:
    """A series while it is being built (mutable; frozen into `Series` at the end)."""

    number: int  # creation order, for deterministic tie-breaks
    version: int
    version_written: bool
    submitter: str
    cover: Message | None = None
    patches: dict[int, list[Message]] = field(default_factory=dict)  # index -> messages
    pull_request: Message | None = None
    start: datetime | None = None  # the earliest member's date

    def members(self) -> list[Message]:
        out = [m for group in self.patches.values() for m in group]
        if self.cover is not None:
            out.append(self.cover)
        if self.pull_request is not None:
            out.append(self.pull_request)
        return sorted(out, key=sort_key)

    def cover_has_version(self) -> bool:
        return self.cover is not None and self.cover.subject.version_written


def assemble_series(
    messages: Iterable[Message], threads: Parents | None = None
) -> tuple[Series, ...]:
    """Group covers, patches and pull requests into series, ordered by date then id."""
    ordered = unique_messages(messages)
    del messages  # (the caller's list, when it passed its only reference)
    # Each phase is its own function, so what it builds to look things up is freed when it
    # returns, and what is no longer needed is dropped as soon as it is not: a rebuild of a
    # million-message store holds every message at once.
    drafts = _drafts(ordered)
    member_series = {m.key: d for d in drafts for m in d.members()}
    replies, received = _replies(ordered, threads or link_parents(ordered), member_series)
    del ordered, threads  # the drafts hold their members; the other mail is done with
    series = [_freeze(d, replies.pop(id(d), []), received.pop(id(d), [])) for d in drafts]
    _link_versions(series, drafts, member_series)
    series.sort(key=lambda s: (s.date is None, s.date or _EPOCH, s.id))
    return tuple(series)


def _drafts(ordered: tuple[Message, ...]) -> list[_Draft]:
    """The series being built, from the covers, patches and pull requests in `ordered`."""
    drafts: list[_Draft] = []
    # Only the first SCAN_LIMIT series of each id are ever looked at (`_by_references`):
    # the lists stop there, which keeps a flood linear and the lookups small.
    members_of: dict[str, list[_Draft]] = {}  # member key -> its series
    carried_by: dict[str, list[_Draft]] = {}  # referenced id -> series carrying it
    by_submitter: dict[str, list[_Draft]] = {}

    for message in ordered:
        if not _is_member_kind(message):
            continue
        if message.kind == "pull_request":
            draft = _new_draft(drafts, message)
            draft.pull_request = message
            draft.start = message.date
            _note(members_of, message.key, draft)
            continue
        sent_by = by_submitter.setdefault(message.from_addr.lower(), [])
        refs = consulted_references(message)
        found = _by_references(message, refs, members_of, carried_by) or _by_markers(
            message, sent_by
        )
        if found is None:
            found = _new_draft(drafts, message)
            sent_by.append(found)
        draft = found
        _add(draft, message)
        _note(members_of, message.key, draft)
        for ref in (message.in_reply_to, *refs):
            if ref:
                _note(carried_by, ref, draft)
    return drafts


def _note(index: dict[str, list[_Draft]], key: str, draft: _Draft) -> None:
    """Add `draft` under `key`, once, among the first SCAN_LIMIT."""
    found = index.get(key)
    if found is None:
        index[key] = [draft]
    elif len(found) < SCAN_LIMIT and draft not in found:
        found.append(draft)


def _is_member_kind(message: Message) -> bool:
    # Patchwork treats any `Re:` mail as a comment, even with a diff in it (a reviewer's
    # suggested fix must not start a series of its own).
    if message.subject.reply:
        return False
    return message.kind in ("cover", "patch", "pull_request")


def _index(message: Message) -> int:
    """The slot a message takes: 0 for a cover; a bare [PATCH] counts as 1 of 1."""
    if message.kind == "cover":
        return 0
    return message.subject.index if message.subject.index is not None else 1


def _total(message: Message) -> int:
    return message.subject.total if message.subject.total is not None else 1


def _new_draft(drafts: list[_Draft], message: Message) -> _Draft:
    draft = _Draft(
        number=len(drafts),
        version=message.subject.version,
        version_written=message.subject.version_written,
        submitter=message.from_addr.lower(),
    )
    drafts.append(draft)
    return draft


def _add(draft: _Draft, message: Message) -> None:
    if message.date is not None and (draft.start is None or message.date < draft.start):
        draft.start = message.date
    if message.kind == "cover":
        draft.cover = message
    else:
        draft.patches.setdefault(_index(message), []).append(message)


def _fits(draft: _Draft, message: Message) -> bool:
    """Same version (or none written under a versioned cover), and the slot still free."""
    if draft.pull_request is not None:
        return False
    subject = message.subject
    # base-different-versions: cover `[PATCH net-next v3 0/4]`, patches `[PATCH n/4]`.
    same_version = subject.version == draft.version or (
        not subject.version_written and draft.cover_has_version()
    )
    if not same_version:
        return False
    if message.kind == "cover":
        return draft.cover is None
    return _index(message) not in draft.patches


def _by_references(
    message: Message,
    references: tuple[str, ...],
    members_of: Mapping[str, list[_Draft]],
    carried_by: Mapping[str, list[_Draft]],
) -> _Draft | None:
    refs = [message.key, message.in_reply_to, *reversed(references)]
    for ref in refs:
        if not ref:
            continue
        for draft in (*members_of.get(ref, ()), *carried_by.get(ref, ())):
            if _fits(draft, message):
                return draft
    return None


def _by_markers(message: Message, sent_by: list[_Draft]) -> _Draft | None:
    """The most recent series of this submitter with the same version and total, 12 h around."""
    if message.date is None:
        return None
    # Mail is taken in date order, so `sent_by` (creation order) is in start order too:
    # walk back from the newest and stop once out of the window.
    for scanned, draft in enumerate(reversed(sent_by)):
        if scanned >= SCAN_LIMIT:
            break
        if draft.start is None:
            continue
        if abs(message.date - draft.start) > MARKER_WINDOW:
            if draft.start < message.date:
                break
            continue
        if _fits(draft, message) and _draft_total(draft) == _total(message):
            return draft
    return None


def _draft_total(draft: _Draft) -> int | None:
    if draft.cover is not None:
        return _total(draft.cover)
    for index in sorted(draft.patches):
        return _total(draft.patches[index][0])
    return None


def _replies(
    ordered: tuple[Message, ...], threads: Parents, member_series: Mapping[str, _Draft]
) -> tuple[dict[int, list[str]], dict[int, list[ReceivedTrailer]]]:
    """Replies under each series, and the trailers they give (own lines only, not quotes)."""
    replies: dict[int, list[str]] = {}
    received: dict[int, list[ReceivedTrailer]] = {}
    nearest: dict[str, str | None] = {}
    for message in ordered:
        if message.key in member_series:
            continue
        target = _nearest_member(message.key, threads, member_series, nearest)
        if target is None:
            continue
        draft = member_series[target]
        replies.setdefault(id(draft), []).append(message.key)
        if message.kind != "reply":
            continue
        for trailer in message.trailers:
            if trailer.key.lower() in _AUTHOR_ONLY or not trailer.key.lower().endswith("-by"):
                continue
            received.setdefault(id(draft), []).append(
                ReceivedTrailer(trailer=trailer, message_id=message.key, target=target)
            )
    return replies, received


def _nearest_member(
    key: str, threads: Parents, members: Mapping[str, object], nearest: dict[str, str | None]
) -> str | None:
    """The closest cover, patch or pull request above `key`, or None.

    Answers are kept in `nearest` for every node walked through, so a chain of 10,000 replies
    each answering the one before is walked once in all, not once per reply.
    """
    path: list[str] = []
    on_path: set[str] = set()  # `threads` may come from a caller: do not trust it to be a tree
    node = key
    found: str | None = None
    while True:
        if node in nearest:
            found = nearest[node]
            break
        path.append(node)
        on_path.add(node)
        above = threads.up(node)
        if above is None or above in on_path:
            break
        if above in members:
            found = above
            break
        node = above
    for walked in path:
        nearest[walked] = found
    return found


def _counts(draft: _Draft, received: list[ReceivedTrailer]) -> tuple[tuple[str, int], ...]:
    """Trailers by key over the members' own (cover, patches, pull request) and the received."""
    counts: Counter[str] = Counter()
    patches = (m for group in draft.patches.values() for m in group)
    for message in (draft.cover, draft.pull_request, *patches):
        if message is not None:
            counts.update(t.key for t in message.trailers)
    counts.update(r.trailer.key for r in received)
    return tuple(sorted(counts.items()))


def _freeze(draft: _Draft, replies: list[str], received: list[ReceivedTrailer]) -> Series:
    patches = [m for index in sorted(draft.patches) for m in draft.patches[index]]
    if draft.pull_request is not None:
        pull = draft.pull_request
        return Series(
            id=_series_id(pull.key),
            name=pull.subject.name or pull.subject.raw,
            version=pull.subject.version,
            total=None,
            tree=pull.subject.tree,
            author=pull.from_display,
            date=pull.date,
            cover=pull.key,  # the pull request plays the cover letter's part
            patches=(),
            complete=None,
            replies=tuple(replies),
            received_trailers=tuple(received),
            trailer_counts=_counts(draft, received),
            pull_request=True,
        )
    anchor = draft.cover or patches[0]
    named = draft.cover or patches[0]
    total = _draft_total(draft)
    complete = None if total is None else all(i in draft.patches for i in range(1, total + 1))
    tree = next((m.subject.tree for m in (anchor, *patches) if m.subject.tree), None)
    return Series(
        id=_series_id(anchor.key),
        name=named.subject.name,
        version=draft.version,
        total=total,
        tree=tree,
        author=anchor.from_display,
        date=draft.start,
        cover=draft.cover.key if draft.cover else None,
        patches=tuple(m.key for m in patches),
        complete=complete,
        replies=tuple(replies),
        received_trailers=tuple(received),
        trailer_counts=_counts(draft, received),
    )


def _series_id(anchor_key: str) -> str:
    return "s" + hashlib.sha1(anchor_key.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _link_versions(
    series: list[Series], drafts: list[_Draft], member_series: Mapping[str, _Draft]
) -> None:
    """Second pass, in place: `previous_version` by change-id, then name and author, then a
    lore link."""
    previous = _previous_versions(series, drafts, member_series)
    # The lookups are gone: each series is replaced by its linked copy one at a time,
    # never two copies of the whole list at once.
    for at, found in enumerate(previous):
        if found is not None:
            series[at] = replace(series[at], previous_version=found)


def _previous_versions(
    series: list[Series], drafts: list[_Draft], member_series: Mapping[str, _Draft]
) -> list[str | None]:
    """The id of each series' previous version, or None."""
    by_draft = {id(d): s for d, s in zip(drafts, series, strict=True)}
    by_change: dict[str, list[Series]] = {}
    by_name: dict[tuple[str, str], list[Series]] = {}
    change_ids: dict[int, set[str]] = {}
    for draft, one in zip(drafts, series, strict=True):
        if one.pull_request:
            continue
        change_ids[id(draft)] = {m.change_id for m in draft.members() if m.change_id}
        for change_id in change_ids[id(draft)]:
            by_change.setdefault(change_id, []).append(one)
        by_name.setdefault((draft.submitter, clean_name(one.name)), []).append(one)

    # Every lookup below is a bisection in a sorted group, not a scan of it: a flood of
    # 10,000 resends with one change-id or one name must not cost 10,000 x 10,000 steps.
    change_index = {c: _Versions(group) for c, group in by_change.items()}
    name_index = {k: _Versions(group) for k, group in by_name.items()}
    out: list[str | None] = []
    for draft, one in zip(drafts, series, strict=True):
        if one.pull_request:
            out.append(None)
            continue
        same_change = [change_index[c].older(one) for c in sorted(change_ids[id(draft)])]
        found = (
            _latest([s for s in same_change if s is not None])
            or name_index[(draft.submitter, clean_name(one.name))].lower_version(one)
            or _linked(draft, one, member_series, by_draft)
        )
        out.append(found.id if found else None)
    return out


def _rank(one: Series) -> tuple:
    """The order `_latest` picks by: version, then dated, then date, then id."""
    return (one.version, one.date is not None, one.date or _EPOCH, one.id)


class _Versions:
    """A group of series (one change-id, or one submitter and name) sorted by `_rank`."""

    def __init__(self, group: list[Series]) -> None:
        self._series = sorted(group, key=_rank)
        self._ranks = [_rank(s) for s in self._series]

    def lower_version(self, one: Series) -> Series | None:
        """The latest series of a lower version than `one`."""
        at = bisect_left(self._ranks, (one.version,))
        return self._series[at - 1] if at else None

    def older(self, one: Series) -> Series | None:
        """The latest series that `_older` says can precede `one`."""
        if one.date is not None:
            # Same version, dated, sent before `one`: these rank just below `one` itself.
            at = bisect_left(self._ranks, (one.version, True, one.date, one.id))
            if at and self._ranks[at - 1][:2] == (one.version, True):
                return self._series[at - 1]
        return self.lower_version(one)


def _older(candidate: Series, one: Series) -> bool:
    """Whether `candidate` can precede `one`: a lower version, or the same one sent earlier."""
    if candidate.id == one.id:
        return False
    if candidate.version != one.version:
        return candidate.version < one.version
    if candidate.date is None or one.date is None:
        return False
    return (candidate.date, candidate.id) < (one.date, one.id)


def _latest(candidates: list[Series]) -> Series | None:
    if not candidates:
        return None
    return max(candidates, key=lambda s: (s.version, s.date is not None, s.date or _EPOCH, s.id))


def _linked(
    draft: _Draft, one: Series, member_series: Mapping[str, _Draft], by_draft: Mapping[int, Series]
) -> Series | None:
    """The series a lore link in the cover letter (else the patches) points at."""
    sources = [draft.cover] if draft.cover is not None else draft.members()
    for message in sources:
        for msgid in message.links:
            other = member_series.get(msgid)
            if other is None or other is draft or other.pull_request is not None:
                continue
            if _older(by_draft[id(other)], one):
                return by_draft[id(other)]
    return None
