"""The joined text of a block (analyze/claims/block_text.py): kept for a tuple, never for a
list that may change between calls."""

from __future__ import annotations

from analyze.claims.block_text import joined


def test_a_tuple_is_kept_and_a_list_is_joined_afresh() -> None:
    block = ("a: 1", "b: 2")
    assert joined(block) == "a: 1\nb: 2"
    assert joined(block) is joined(block)  # the same block: the same text
    lines = ["x: 1"]
    assert joined(lines) == "x: 1"
    lines.append("y: 2")
    assert joined(lines) == "x: 1\ny: 2"  # the list changed: joined again
    assert joined(("other",)) == "other"
