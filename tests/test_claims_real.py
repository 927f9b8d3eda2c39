"""Claim extraction on real mail (../shared/corpus/real, scored by tests/eval_real.py with the
shared scorer's matching): a ratchet. The figures below are the last measured ones; the suite
fails when precision or recall falls more than 0.02 below them, overall or in a group. Raise
them when the readers improve (`make eval-real` prints them)."""

from __future__ import annotations

import pytest
from conftest import _require_shared
from eval_real import by_group, evaluate, tally

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers

MARGIN = 0.02
# (precision, recall), measured with `make eval-real`
LAST = {
    "overall": (0.985, 0.877),
    "io": (0.989, 0.945),
    "nf": (1.000, 0.934),
    # iwl-027's gold keeps sockperf's <MIN> and <MAX> observations, which the definition's rule 4
    # calls spread and never a claim: the readers follow the definition (two fewer than 0.950)
    "iwl": (0.987, 0.925),
    "nd": (0.981, 0.816),
    "arc": (0.944, 0.838),
    "blk": (0.991, 0.868),
}


@pytest.fixture(scope="module")
def posts():
    folder = _require_shared("corpus") / "real"
    return evaluate(folder)


def test_every_post_is_read(posts) -> None:
    assert [p.name for p in posts if p.failed] == []
    assert len(posts) >= 100


@pytest.mark.parametrize("group", sorted(LAST))
def test_no_worse_than_last_measured(posts, group: str) -> None:
    score = tally(posts) if group == "overall" else by_group(posts)[group]
    precision, recall = LAST[group]
    assert score.precision >= precision - MARGIN, score.line(group)
    assert score.recall >= recall - MARGIN, score.line(group)
