"""The diffstat block as written (analyze/mail/diffstat.py)."""

from __future__ import annotations

import pytest

from analyze.mail.diffstat import find_diffstat
from analyze.model import DiffstatFile

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers


def stat(body: str, depth: int = 0):
    lines = body.split("\n")
    return find_diffstat(lines, [depth] * len(lines))


def test_seed_001(seeds_dir):
    lines = (seeds_dir / "001_22952647ed20d5cc.txt").read_text().split("\n")
    result = find_diffstat(lines, [0] * len(lines))
    assert result.files == (DiffstatFile("net/sched/act_police.c", 186),)
    assert (result.added, result.removed) == (106, 80)


def test_binary_shortened_and_summary_without_deletions():
    result = stat(
        "---\n"
        " .../ethernet/intel/ice/ice_txrx.c     | 12 ++++++\n"
        " pixel.bmp                             | Bin 0 -> 142 bytes\n"
        " 2 files changed, 12 insertions(+)\n"
        " create mode 100644 pixel.bmp\n"
    )
    assert result.files == (
        DiffstatFile(".../ethernet/intel/ice/ice_txrx.c", 12),
        DiffstatFile("pixel.bmp", None),
    )
    assert (result.added, result.removed) == (12, 0)


def test_only_deletions_and_old_git_plural():
    assert (stat(" a.c | 3 ---\n 1 files changed, 3 deletions(-)").removed) == 3
    assert stat(" a.c | 3 ---\n 1 files changed, 3 deletions(-)").added == 0


def test_no_summary_means_unknown_totals():
    result = stat(" a.c | 3 +--\n b.c | 1 +\n\nthanks")
    assert len(result.files) == 2 and result.added is None and result.removed is None


def test_tables_and_quotes_are_not_diffstats():
    assert stat("   1 |      3518448 |      3591240 |  irrelevant") is None
    assert stat(" threads | 4\n queues | 8\n") is None
    assert stat(" a.c | 3 +--\n 1 file changed, 1 insertion(+), 2 deletions(-)", depth=1) is None
    assert stat(" " * 5000 + "x" + " " * 5000 + "| 3 +") is None
