"""`make bench-scale` (issue 8, not in CI): analysis on many processes, side by side.

On the 100,000-message store of tests/bench/ui.py (built once a day), `patchperf analyze
--all` with `--jobs 1` and `--jobs 2`, each on its own copy, in this run, one after the other:
wall time, peak RSS (the parent's or a worker's, whichever is larger) and the speed-up, and
whether the two stores hold the same analyses, claims and series (compared row by row).
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run_bench import timed_with_rss  # noqa: E402
from ui import build_store  # noqa: E402

PATCHPERF = Path(sys.executable).with_name("patchperf")
TARGET_SPEEDUP = 1.6

# the derived tables, each in a fixed order, compared by content
DERIVED = {
    "analyses": "SELECT message_row, analyzer_version, kind, subject, from_display, date, date_utc,"
                " tree, doc FROM analyses ORDER BY message_row",
    "claims": "SELECT id, found_row, origin, found_in, quoted, metric, direction, date_utc, doc"
              " FROM claims ORDER BY id, found_row",
    "series": "SELECT * FROM series ORDER BY id",
    "series_members": "SELECT * FROM series_members ORDER BY series_id, message_key, role",
    "rejections": "SELECT * FROM rejections ORDER BY message_row",
}


def derived(db: Path) -> dict[str, tuple[int, str]]:
    """Each derived table's row count and sha256, read in a fixed order."""
    out = {}
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        for table, query in DERIVED.items():
            digest, count = hashlib.sha256(), 0
            for row in conn.execute(query):
                digest.update(repr(row).encode())
                count += 1
            out[table] = (count, digest.hexdigest())
    return out


def analyse(base: Path, work: Path, jobs: int) -> tuple[float, int, Path]:
    """Wall seconds and peak RSS (MB: the largest of the command and its workers) of
    `analyze --all --jobs N` on a copy of the store."""
    db = work / f"jobs{jobs}.db"
    shutil.copyfile(base, db)
    seconds, peak_kib, _ = timed_with_rss([str(PATCHPERF), "--db", str(db), "--quiet", "analyze",
                                           "--all", "--jobs", str(jobs)])
    return seconds, peak_kib // 1024, db


def main() -> int:
    base = build_store()
    rows = []
    with tempfile.TemporaryDirectory(dir=base.parent) as tmp:
        one, rss_one, db_one = analyse(base, Path(tmp), 1)
        two, rss_two, db_two = analyse(base, Path(tmp), 2)
        same = derived(db_one) == derived(db_two)
    speedup = one / two
    n = int(base.name.split("-")[1])
    rows.append((f"analyze --all, {n:,} messages, --jobs 1", f"{one:.1f} s = {n / one:,.0f} msg/s, {rss_one} MB", ""))
    rows.append((f"analyze --all, {n:,} messages, --jobs 2", f"{two:.1f} s = {n / two:,.0f} msg/s, {rss_two} MB", ""))
    rows.append(("speed-up of --jobs 2 over --jobs 1", f"{speedup:.2f}x", f">= {TARGET_SPEEDUP}x"))
    rows.append(("same analyses, claims and series", "yes" if same else "NO", "yes"))
    width = max(len(r[0]) for r in rows)
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:<34} {target}")
    return 0 if speedup >= TARGET_SPEEDUP and same else 1


if __name__ == "__main__":
    sys.exit(main())
