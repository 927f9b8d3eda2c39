"""Scoring agreement with a peer's fixtures: per category, every miss listed with its reason."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

THRESHOLD = 0.95  # issue 2, acceptance 3: at least 95 % in each category


def score(rows: Iterable[tuple[str, str, str | None]], label: str = "") -> None:
    """`rows` are (category, case, reason) with reason None when we agree. Prints the
    agreement per category and each miss; fails when a category is below the threshold."""
    tally: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    for category, case, reason in rows:
        tally[category].append((case, reason))
    assert tally, "nothing was scored"
    low = []
    for category, results in sorted(tally.items()):
        agreed = sum(reason is None for _, reason in results)
        print(f"{label}{category}: {agreed}/{len(results)} agree ({agreed / len(results):.0%})")
        for case, reason in results:
            if reason is not None:
                print(f"  miss {case}: {reason}")
        if agreed < THRESHOLD * len(results):
            low.append(category)
    assert not low, f"below {THRESHOLD:.0%} agreement: {low}"
