"""The datapath mechanism a patch changes, as the tags scenarios transform the stages by.

Read from the diff when there is one (added and removed lines, comments aside), else from
the words of the cover letter or the commit message ("per-cpu counters", "RCU", "remove the
spinlock"), and said which: a tag from words is weaker evidence than one from code.

  drop_lock         spin_lock*/spin_unlock* calls removed
  percpu_stats      this_cpu_*, per_cpu*, u64_stats_*, alloc_percpu added
  rcu_config        rcu_dereference*/rcu_assign_pointer added where a lock was removed
  skip_backlog      netif_rx() removed and RX_HANDLER_ANOTHER returned instead
  lastuse_per_tick  a store guarded by a jiffies check (`if (x != jiffies) x = jiffies`)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

TAGS = ("drop_lock", "percpu_stats", "rcu_config", "skip_backlog", "lastuse_per_tick")
MAX_DIFF_LINES = 200_000  # beyond this a diff is a tree-wide change, not a datapath tweak

_LOCK = re.compile(r"\bspin_(?:un)?lock(?:_bh|_irq|_irqsave|_irqrestore)?\s*\(")
_PERCPU = re.compile(r"\b(?:__)?this_cpu_\w+\s*\(|\bper_cpu(?:_ptr)?\s*\(|\bu64_stats_\w+"
                     r"|\balloc_percpu\w*\s*\(|\b__percpu\b")
_RCU = re.compile(r"\brcu_dereference\w*\s*\(|\brcu_assign_pointer\s*\(")
_NETIF_RX = re.compile(r"\bnetif_rx(?:_ni)?\s*\(")
_ANOTHER = re.compile(r"\bRX_HANDLER_ANOTHER\b")
_JIFFIES_CHECK = re.compile(r"\bif\s*\(.*(?:!=\s*jiffies\b|\bjiffies\s*!=|time_after\w*\s*\(\s*jiffies)")
_COMMENT = re.compile(r"/\*.*?\*/|//.*$")

_WORDS = {
    "percpu_stats": re.compile(r"\bper[- ]?cpu\s+(?:stats|counters|statistics)\b|\bpercpu\s+stats\b",
                               re.I),
    "rcu_config": re.compile(r"\bRCU\b"),
    "drop_lock": re.compile(
        r"\b(?:remove|removes|removed|avoid|avoids|drop|drops|without|no\s+longer|get\s+rid\s+of)"
        r"\b[^.\n]{0,40}?\bspin[- ]?locks?\b|\block-?less\b|\bdon't\s+use\s+spin[- ]?lock", re.I),
    "lastuse_per_tick": re.compile(r"\blastuse\b[^.\n]{0,60}\b(?:tick|jiffies|jiffy)\b", re.I),
    "skip_backlog": re.compile(r"\bRX_HANDLER_ANOTHER\b|\bbacklog\b[^.\n]{0,60}\bnetif_rx\b"
                               r"|\bnetif_rx\b[^.\n]{0,60}\bbacklog\b", re.I),
}


@dataclass(frozen=True, slots=True)
class Mechanisms:
    tags: tuple[str, ...]  # in TAGS order
    source: str  # diff | cover_letter | none
    evidence: tuple[str, ...] = ()  # a line that gave each tag, as written


def from_diff(diff_text: str) -> Mechanisms:
    """Tags from the added (+) and removed (-) lines of a unified diff."""
    added: list[str] = []
    removed: list[str] = []
    for k, line in enumerate(diff_text.splitlines()):
        if k >= MAX_DIFF_LINES:
            break
        if line.startswith(("+++", "---")):
            continue
        if line.startswith("+"):
            added.append(_COMMENT.sub("", line[1:]))
        elif line.startswith("-"):
            removed.append(_COMMENT.sub("", line[1:]))
    found: dict[str, str] = {}

    def first(pattern: re.Pattern[str], lines: Sequence[str]) -> str | None:
        return next((x.strip() for x in lines if pattern.search(x)), None)

    locks_gone = (sum(bool(_LOCK.search(x)) for x in removed)
                  > sum(bool(_LOCK.search(x)) for x in added))
    if locks_gone:
        found["drop_lock"] = "-" + (first(_LOCK, removed) or "")
    if (hit := first(_PERCPU, added)) is not None:
        found["percpu_stats"] = "+" + hit
    if locks_gone and (hit := first(_RCU, added)) is not None:
        found["rcu_config"] = "+" + hit
    if first(_NETIF_RX, removed) is not None and (hit := first(_ANOTHER, added)) is not None:
        found["skip_backlog"] = "+" + hit
    if (hit := first(_JIFFIES_CHECK, added)) is not None:
        found["lastuse_per_tick"] = "+" + hit
    return _made(found, "diff")


def from_words(text: str) -> Mechanisms:
    """Tags from what a cover letter or commit message says the patch does."""
    found = {}
    for tag, pattern in _WORDS.items():
        m = pattern.search(text[:100_000])
        if m is not None:
            found[tag] = m.group()
    return _made(found, "cover_letter")


def _made(found: dict[str, str], source: str) -> Mechanisms:
    tags = tuple(t for t in TAGS if t in found)
    return Mechanisms(tags, source if tags else "none", tuple(found[t] for t in tags))


def mechanisms_of(diffs: Sequence[str], words: Sequence[str]) -> Mechanisms:
    """From the series' diffs when any gives a tag, else from its words (cover letter,
    commit messages)."""
    combined = from_diff("\n".join(diffs)) if diffs else Mechanisms((), "none")
    if combined.tags:
        return combined
    return from_words("\n".join(words))
