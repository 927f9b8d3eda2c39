"""Threading: who answers whom.

The parent of a message is its In-Reply-To, else the nearest References entry found in the
input (else the last one as written), else — only for mail with neither header, like
lists.openwall.net pages — the earliest earlier message whose subject name matches `Re: X`.
Parents missing from the input are kept as the header value; References of their children
still say what lies above them, so walking up does not stop at a gap in the archive.

Everything here is near-linear in the input, whatever the headers say: a message's References
are consulted only in part (`consulted_references`), loops are found with a union-find over
the links made so far, and each root is found once, not by walking a chain per message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import MappingProxyType

from analyze.model import Message

_NAIVE_EPOCH = datetime(1970, 1, 1)
_ZERO = timedelta(0)
_MICROSECOND = timedelta(microseconds=1)
_SPACE = re.compile(r"\s+")
# A reply's References list its thread's root first and its nearest ancestors last (RFC 5322
# 3.6.4); real netdev threads reference a few dozen at most. The middle of a longer list tells
# nothing the ends do not, and a hostile one of 10,000 ids must not cost 10,000 steps per
# message, so only the first entry and the last REFERENCES_CONSULTED are looked at.
REFERENCES_CONSULTED = 64


@dataclass(frozen=True, eq=False)
class Parents:
    """Who answers whom: each message's parent, keyed by `Message.key`."""

    parent: Mapping[str, str | None]  # every input key -> parent id (maybe not in the input)
    above_missing: Mapping[str, str]  # missing id -> its parent as a child's References say

    def ancestors(self, key: str) -> Iterator[str]:
        """Yield the ids above `key`, nearest first; ids missing from the input included."""
        return _walk(key, self.parent, self.above_missing)

    def up(self, key: str) -> str | None:
        """The id directly above `key` (a parent, or what References put above a missing id)."""
        return self.parent[key] if key in self.parent else self.above_missing.get(key)


@dataclass(frozen=True, eq=False)
class Threads(Parents):
    """Thread structure over a set of messages: the parents, and each thread's top and
    children."""

    root: Mapping[str, str]  # every input key -> top of its thread (maybe not in the input)
    children: Mapping[str, tuple[str, ...]]  # id -> child keys oldest first, then missing ids

    def thread(self, root: str) -> tuple[str, ...]:
        """The known keys whose thread top is `root`, in walk order (parents before children)."""
        out: list[str] = []
        stack = [root]
        seen: set[str] = set()
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if node in self.parent:
                out.append(node)
            stack.extend(reversed(self.children.get(node, ())))
        return tuple(out)


def sort_key(message: Message) -> tuple:
    """Deterministic processing order: date (undated last), then key, then content."""
    date = message.date
    if date is None:
        return (True, 0, message.key, message.content_hash)
    # Microseconds since the epoch, as an int: the same order as comparing the aware
    # datetimes, five times faster to sort (mail carries many offsets), and timedelta
    # arithmetic cannot overflow where astimezone() would (a hostile `Date: 1 Jan 0001 +0100`).
    offset = date.utcoffset() or _ZERO
    instant = (date.replace(tzinfo=None) - _NAIVE_EPOCH - offset) // _MICROSECOND
    return (False, instant, message.key, message.content_hash)


def unique_messages(messages: Iterable[Message]) -> tuple[Message, ...]:
    """Messages in processing order, one per key (lore can serve two mails under one id)."""
    out: dict[str, Message] = {}
    for message in sorted(messages, key=sort_key):
        out.setdefault(message.key, message)
    return tuple(out.values())


def clean_name(name: str) -> str:
    """A subject name reduced for comparison: lowercased, whitespace collapsed."""
    return _SPACE.sub(" ", name).strip().lower()


def consulted_references(message: Message) -> tuple[str, ...]:
    """The References entries analysis looks at: all of them, or past
    REFERENCES_CONSULTED + 1, the first (the thread's root) and the last REFERENCES_CONSULTED."""
    refs = message.references
    if len(refs) > REFERENCES_CONSULTED + 1:
        refs = refs[:1] + refs[-REFERENCES_CONSULTED:]
    return refs if "" not in refs else tuple(r for r in refs if r)


def build_threads(messages: Iterable[Message]) -> Threads:
    """Link every message to its parent and thread root; the result ignores input order."""
    ordered = unique_messages(messages)
    parents, forest = _link(ordered)
    children: dict[str, list[str]] = {}
    for message in ordered:
        up = parents.parent[message.key]
        if up is not None:
            children.setdefault(up, []).append(message.key)
    for missing, upper in sorted(parents.above_missing.items()):
        children.setdefault(upper, []).append(missing)  # bridges a gap in the archive

    root = {message.key: forest.top(message.key) for message in ordered}
    return Threads(
        parent=parents.parent,
        above_missing=parents.above_missing,
        root=MappingProxyType(root),
        children=MappingProxyType({k: tuple(v) for k, v in children.items()}),
    )


def link_parents(ordered: tuple[Message, ...]) -> Parents:
    """The parents alone, of messages already in `unique_messages` order: what series
    assembly walks up by. A series rebuild of a whole archive holds every message at once,
    and the roots and children `build_threads` adds would cost it a third more."""
    return _link(ordered)[0]


def _link(ordered: tuple[Message, ...]) -> tuple[Parents, _Forest]:
    known = {m.key for m in ordered}
    parent: dict[str, str | None] = {}
    above_missing: dict[str, str] = {}
    first_by_name: dict[str, Message] = {}
    forest = _Forest()

    for message in ordered:
        wanted = _header_parent(message, known)
        if wanted is None and message.in_reply_to is None and not message.references:
            wanted = _subject_parent(message, first_by_name)
        if wanted is not None and not forest.link(message.key, wanted):
            wanted = None  # hostile or broken headers: A answers B answers A
        parent[message.key] = wanted
        _note_missing(message, known, above_missing, forest)
        if not message.subject.reply:
            first_by_name.setdefault(clean_name(message.subject.name), message)
    return Parents(MappingProxyType(parent), MappingProxyType(above_missing)), forest


def _walk(
    key: str, parent: Mapping[str, str | None], above_missing: Mapping[str, str]
) -> Iterator[str]:
    seen = {key}
    current = parent[key] if key in parent else above_missing.get(key)
    while current is not None and current not in seen:
        yield current
        seen.add(current)
        current = parent[current] if current in parent else above_missing.get(current)


def _header_parent(message: Message, known: set[str]) -> str | None:
    own = message.key
    if message.in_reply_to and message.in_reply_to != own:
        return message.in_reply_to
    refs = [r for r in consulted_references(message) if r != own]
    for ref in reversed(refs):
        if ref in known:
            return ref
    return refs[-1] if refs else None


def _subject_parent(message: Message, first_by_name: dict[str, Message]) -> str | None:
    # openwall pages carry no threading headers at all: "Re: X" answers the first "X".
    if not message.subject.reply or message.date is None:
        return None
    original = first_by_name.get(clean_name(message.subject.name))
    if original is None or original.date is None or original.date >= message.date:
        return None
    return original.key


def _note_missing(
    message: Message, known: set[str], above_missing: dict[str, str], forest: _Forest
) -> None:
    """Remember, for ids missing from the input, what a child's References put above them."""
    refs = consulted_references(message)
    # Past the window the root and the last entries were not adjacent as written, but the
    # root is above them all: linking them keeps the thread's top right across the cut.
    for lower, upper in zip(refs[1:], refs[:-1], strict=False):
        if lower in known or lower in above_missing or lower == upper:
            continue
        if forest.link(lower, upper):
            above_missing[lower] = upper


class _Forest:
    """The links made so far, as union-find components, each remembering its top.

    Links only ever go from a top (a message not yet given a parent, a missing id not yet
    placed) to another node, so a link closes a loop exactly when both ends already share a
    component. Union by size and path halving keep every step near constant.
    """

    def __init__(self) -> None:
        self._up: dict[str, str] = {}  # union-find parent; absent for a component's own rep
        self._size: dict[str, int] = {}
        self._top: dict[str, str] = {}  # component rep -> the node with nothing above it

    def _find(self, node: str) -> str:
        up = self._up
        while node in up:
            above = up[node]
            if above in up:
                up[node] = up[above]
            node = above
        return node

    def link(self, lower: str, upper: str) -> bool:
        """Put `upper` above the top `lower`, unless that closes a loop (then say False)."""
        low, high = self._find(lower), self._find(upper)
        if low == high:
            return False
        top = self._top.get(high, high)
        small, big = (low, high) if self._size.get(low, 1) <= self._size.get(high, 1) else (high, low)
        self._up[small] = big
        self._size[big] = self._size.get(big, 1) + self._size.get(small, 1)
        self._top[big] = top
        self._top.pop(small, None)
        self._size.pop(small, None)
        return True

    def top(self, node: str) -> str:
        """The node at the top of `node`'s thread."""
        rep = self._find(node)
        return self._top.get(rep, rep)
