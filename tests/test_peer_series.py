"""Series assembly against Patchwork's own series fixtures (../shared/peer/patchwork-mails/series).

Patchwork feeds each mbox into a fresh project; expectations.json says what its tests assert:
how many covers, patches and comments (replies) land in series, how many series, their sizes
in date order, and whether a single series is complete.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyze.mail.message import parse_message
from analyze.mail.series import assemble_series
from analyze.model import Message
from ingest.local import read_sources
from ingest.raw import RawMail

pytestmark = pytest.mark.peer

CATEGORIES = (
    "covers",
    "patches",
    "comments",
    "series_count",
    "patches_per_series",
    "covers_per_series",
    "series_complete",
)

def _messages(path: Path) -> list[Message]:
    """The file read by the project's own reader and parser, as `patchperf analyze` does."""
    items = list(read_sources([path]))
    assert all(isinstance(i, RawMail) for i in items), items
    return [parse_message(i.data, i.origin) for i in items]


def _observed(path: Path) -> dict:
    messages = _messages(path)
    series = assemble_series(messages)
    return {
        "covers": sum(s.cover is not None for s in series),
        "patches": sum(len(s.patches) for s in series),
        "comments": sum(len(s.replies) for s in series),
        "series_count": len(series),
        "patches_per_series": [len(s.patches) for s in series],
        "covers_per_series": [int(s.cover is not None) for s in series],
        "series_complete": series[0].complete if len(series) == 1 else None,
        "layout": [
            f"v{s.version} {s.name!r} cover={int(s.cover is not None)} patches={len(s.patches)}"
            for s in series
        ],
    }


def test_series_agree_with_patchwork(peer_dir: Path) -> None:
    base = peer_dir / "patchwork-mails"
    entries = [
        e
        for e in json.loads((base / "expectations.json").read_text())
        if e["file"].startswith("series/") and e["file"].endswith(".mbox")
    ]
    assert entries, "no series/*.mbox entries in expectations.json"
    hits = {c: 0 for c in CATEGORIES}
    seen = {c: 0 for c in CATEGORIES}
    misses: list[str] = []
    for entry in entries:
        observed = _observed(base / entry["file"])
        for category in CATEGORIES:
            if category not in entry["expect"]:
                continue
            seen[category] += 1
            want, got = entry["expect"][category], observed[category]
            if want == got:
                hits[category] += 1
            else:
                layout = ", ".join(observed["layout"])
                misses.append(
                    f"{entry['file']}: {category} expected {want!r}, got {got!r} "
                    f"(series built: {layout})"
                )
    for category in CATEGORIES:
        if seen[category]:
            print(f"{category}: {hits[category]}/{seen[category]}")
    for miss in misses:
        print("MISS", miss)
    for category in CATEGORIES:
        if seen[category]:
            assert hits[category] / seen[category] >= 0.95, (category, misses)
