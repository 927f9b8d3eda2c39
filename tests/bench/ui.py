"""Issue 6, acceptance 4: the TUI and the digest on a store of 100,000 generated messages.

The store is built once a day (its mail is dated over the 400 days before today, so `--since
7d` finds a week of it: about 1,750 messages, netdev's real rate) and kept in
tests/bench/out/. Measured, each in fresh processes as a user meets them:
  - the TUI's first screen in a real terminal: tmux starts `patchperf tui`, and the clock
    stops when capture-pane shows the list and the first series' thread (target < 1 s);
  - moving through the list: 600 presses of Down and 20 of PageDown driven by Textual's
    pilot, each press timed until the app has handled it, pages read as the cursor nears
    the end (targets: p99 of a move < 50 ms, slowest < 100 ms);
  - `patchperf report --since 7d` (table to a file, and JSON), best of 3 (target < 1 s);
  - the baseline in the same run: `patchperf --version`, the cost of any command's start.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
N = 100_000
PATCHPERF = str(Path(sys.executable).with_name("patchperf"))


def build_store(n: int = N) -> Path:
    """The day's store of `n` generated messages, ingested with claims."""
    from gen_mbox import generate

    today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    db = OUT / f"ui-{n}-{today:%Y%m%d}.db"
    if db.exists():
        return db
    OUT.mkdir(exist_ok=True)
    for old in OUT.glob(f"ui-{n}-*.db*"):
        old.unlink()
    mbox = OUT / f"ui-{n}.mbox"
    started = time.perf_counter()
    generate(mbox, n=n, seed=7, end=today + timedelta(days=1), window=timedelta(days=400))
    print(f"ui: generated {n:,} messages in {time.perf_counter() - started:.0f} s", flush=True)
    started = time.perf_counter()
    partial = db.with_suffix(".partial")
    subprocess.run([PATCHPERF, "--quiet", "--db", str(partial), "ingest", str(mbox)], check=True)
    partial.rename(db)
    mbox.unlink()
    print(f"ui: ingested into {db.name} in {time.perf_counter() - started:.0f} s", flush=True)
    return db


def best(argv: list[str], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return min(times)


def first_screen_in_tmux(db: Path) -> float | None:
    """Seconds from starting `patchperf tui` in tmux to its first full screen."""
    tmux = shutil.which("tmux")
    if tmux is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        base = [tmux, "-S", f"{tmp}/sock"]
        go = Path(tmp) / "go"
        script = (f'while [ ! -e "{go}" ]; do sleep 0.01; done; unset COLUMNS LINES; '
                  f'exec {PATCHPERF} tui')
        subprocess.run([*base, "-f", "/dev/null", "new-session", "-d", "-s", "b", "-x", "150",
                        "-y", "40", "-e", f"PATCHPERF_DB={db}", "-e", "TERM=xterm-256color",
                        "sh", "-c", script], check=True)
        subprocess.run([*base, "set-option", "-t", "b", "window-size", "manual"], check=True)
        subprocess.run([*base, "resize-window", "-t", "b", "-x", "150", "-y", "40"], check=True)
        try:
            started = time.perf_counter()
            go.touch()
            while time.perf_counter() - started < 30:
                screen = subprocess.run([*base, "capture-pane", "-p", "-t", "b"],
                                        capture_output=True, text=True).stdout
                if " series · sort: newest" in screen and "── " in screen and "Quit" in screen:
                    return time.perf_counter() - started
                time.sleep(0.005)
            return None
        finally:
            subprocess.run([*base, "kill-server"], capture_output=True)


MOVE = r"""
import asyncio, json, sys, time
from corpus.store import Store
from reports.tui import make_app

async def main(db):
    with Store.open(db) as store:
        app = make_app(store)
        async with app.run_test(size=(150, 40)) as pilot:
            await pilot.pause()
            moves = []
            for key in ["down"] * 600 + ["pagedown"] * 20:
                started = time.perf_counter()
                await pilot.press(key)
                moves.append(time.perf_counter() - started)
            print(json.dumps({"moves": moves, "rows": app.series_list.row_count,
                              "total": app.series_list.total}))

asyncio.run(main(sys.argv[1]))
"""


def moving(db: Path) -> dict[str, object]:
    import json

    proc = subprocess.run([sys.executable, "-c", MOVE, str(db)], check=True,
                          capture_output=True, text=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run() -> list[tuple[str, str, str, bool | None]]:
    sys.path.insert(0, str(HERE))
    db = build_store()
    with tempfile.TemporaryDirectory() as tmp:
        baseline = best([PATCHPERF, "--version"])
        table = best([PATCHPERF, "--db", str(db), "report", "--since", "7d", "-o", f"{tmp}/r.txt"])
        as_json = best([PATCHPERF, "--db", str(db), "report", "--since", "7d", "--format", "json",
                        "-o", f"{tmp}/r.json"])
        week = subprocess.run([PATCHPERF, "--db", str(db), "report", "--since", "7d", "--format",
                               "json"], check=True, capture_output=True, text=True).stdout
    import json

    doc = json.loads(week)
    screens = [s for s in (first_screen_in_tmux(db) for _ in range(3)) if s is not None]
    moved = moving(db)
    moves = sorted(float(m) for m in moved["moves"])  # type: ignore[union-attr]
    p99 = moves[int(0.99 * (len(moves) - 1))]
    slowest = moves[-1]
    first = min(screens) if screens else None
    size = os.path.getsize(db) / 1e6
    return [
        (f"UI store: {N:,} messages ({size:,.0f} MB)", f"{moved['total']:,} series", "", None),
        ("baseline: patchperf --version", f"{baseline:.2f} s", "", None),
        ("TUI first screen in tmux (best of 3)",
         "no tmux" if first is None else f"{first:.2f} s = {first / baseline:.1f}x baseline",
         "< 1 s", None if first is None else first < 1.0),
        ("TUI: a move through the list (620 presses)",
         f"median {1000 * statistics.median(moves):.1f} ms, p99 {1000 * p99:.1f} ms",
         "p99 < 50 ms", p99 < 0.050),
        ("TUI: slowest move (a page read)", f"{1000 * slowest:.1f} ms; {moved['rows']:,} rows read",
         "< 100 ms", slowest < 0.100),
        (f"report --since 7d, table ({len(doc['series']):,} series, {len(doc['messages']):,} msgs)",
         f"{table:.2f} s = {table / baseline:.1f}x baseline", "< 1 s", table < 1.0),
        ("report --since 7d --format json", f"{as_json:.2f} s = {as_json / baseline:.1f}x baseline",
         "< 1 s", as_json < 1.0),
    ]


if __name__ == "__main__":
    for row in run():
        print(*row, sep="  |  ")
