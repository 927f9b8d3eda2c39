"""`make bench-scale` (issue 8, not in CI): analysis on many processes, side by side.

On the 100,000-message store of tests/bench/ui.py (built once a day; `--n` for another
size), `patchperf analyze --all` with `--jobs 1`, `--jobs 2` and `--scheduler` on a Dask
LocalCluster of two single-threaded worker processes on this machine, each on its own copy,
in this run, one after the other: wall time, peak RSS (the command's or a worker's,
whichever is larger) and the speed-ups, and whether the stores hold the same analyses,
claims and series (compared row by row).
"""

from __future__ import annotations

import argparse
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


def analyse(base: Path, work: Path, name: str, *how: str) -> tuple[float, int, Path]:
    """Wall seconds and peak RSS (MB: the largest of the command and its child processes)
    of `analyze --all` with the options `how` on a copy of the store, `work/name.db`."""
    db = work / f"{name}.db"
    shutil.copyfile(base, db)
    seconds, peak_kib, _ = timed_with_rss([str(PATCHPERF), "--db", str(db), "--quiet", "analyze",
                                           "--all", *how])
    return seconds, peak_kib // 1024, db


def analyse_on_cluster(base: Path, work: Path) -> tuple[float, int, Path]:
    """`analyze --all --scheduler` on a fresh LocalCluster of two single-threaded worker
    processes (its start is not timed: a user's cluster is already running). The workers
    are not the command's children: their peak RSS is asked of them after the run."""
    import resource

    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as cluster:
        seconds, rss, db = analyse(base, work, "dask", "--scheduler", cluster.scheduler_address)
        with Client(cluster.scheduler_address, set_as_default=False) as client:
            peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return seconds, max(rss, max(peaks.values()) // 1024), db


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000, help="messages in the store")
    args = parser.parse_args()
    base = build_store(args.n)
    with tempfile.TemporaryDirectory(dir=base.parent) as tmp:
        one, rss_one, db_one = analyse(base, Path(tmp), "jobs1", "--jobs", "1")
        two, rss_two, db_two = analyse(base, Path(tmp), "jobs2", "--jobs", "2")
        dask, rss_dask, db_dask = analyse_on_cluster(base, Path(tmp))
        same = derived(db_one) == derived(db_two) == derived(db_dask)
    n = args.n
    rows = [
        (f"analyze --all, {n:,} messages, --jobs 1", f"{one:.1f} s = {n / one:,.0f} msg/s, {rss_one} MB", ""),
        (f"analyze --all, {n:,} messages, --jobs 2", f"{two:.1f} s = {n / two:,.0f} msg/s, {rss_two} MB", ""),
        (f"analyze --all, {n:,} messages, --scheduler (2 workers)",
         f"{dask:.1f} s = {n / dask:,.0f} msg/s, {rss_dask} MB", ""),
        ("speed-up of --jobs 2 over --jobs 1", f"{one / two:.2f}x", f">= {TARGET_SPEEDUP}x"),
        # no target: the issue asks for the figure; on one 2-core machine the scheduler, the
        # command and two workers share the cores, and every chunk travels through the
        # scheduler (a real cluster adds cores, not just processes)
        ("speed-up of the LocalCluster over --jobs 1", f"{one / dask:.2f}x", "(measured)"),
        ("same analyses, claims and series", "yes" if same else "NO", "yes"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:<34} {target}")
    return 0 if one / two >= TARGET_SPEEDUP and same else 1


if __name__ == "__main__":
    sys.exit(main())
