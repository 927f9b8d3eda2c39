"""Issue 6, acceptance 4: the TUI and the digest on a store of 100,000 generated messages.

The store is built once a day (its mail is dated over the 400 days before today, so `--since
7d` finds a week of it: about 1,750 messages, netdev's real rate) and kept in
tests/bench/out/. Measured, each in fresh processes as a user meets them:
  - the TUI's first screen in a real terminal: tmux starts `patchperf tui`, and the clock
    stops when capture-pane shows the list and the first series' thread (target < 1 s);
  - moving through the list: 600 presses of Down (resting after every 50, so the detail
    pane fills in) and 20 of PageDown, driven by Textual's pilot, each press timed until the
    app has handled it; compared with Textual's DataTable alone under the same keys in the
    same run (the pilot's own wait is most of a press), and the page reads and detail loads
    timed inside the app;
  - `patchperf report --since 7d` (table to a file, and JSON), best of 3 (target < 1 s);
  - the baseline in the same run: `patchperf --version`, the cost of any command's start.
"""

from __future__ import annotations

import os
import shutil
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
    # the generator starts series up to 8 days before `end` (their replies come after)
    generate(mbox, n=n, seed=7, end=today + timedelta(days=8), window=timedelta(days=400))
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
from rich.text import Text
from textual.app import App
from textual.widgets import DataTable, Footer

from corpus.store import Store
from reports.tui import app as tui_app
from reports.tui.app import make_app
from reports.tui.series_list import SeriesList

KEYS = (["down"] * 50 + ["rest"]) * 12 + ["pagedown"] * 20
timed = {"page": [], "detail": []}


def timing(kind, fn):
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            timed[kind].append(time.perf_counter() - started)
    return wrapper


SeriesList.load_page = timing("page", SeriesList.load_page)
tui_app.PatchperfApp._show_current = timing("detail", tui_app.PatchperfApp._show_current)


class Bare(App):
    # the baseline: Textual's DataTable alone, as many rows, the same keys
    def compose(self):
        yield DataTable(cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self):
        table = self.query_one(DataTable)
        for name in ("date", "tree", "v", "claims", "change", "series"):
            table.add_column(name)
        for i in range(1400):
            table.add_row(*(Text(f"cell {i} {j}") for j in range(6)))
        table.focus()


async def drive(app, seen=None):
    moves = []
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.pause()
        for key in KEYS:
            if key == "rest":  # the reader stops: the detail pane fills in
                await pilot.pause(0.3)
                continue
            started = time.perf_counter()
            await pilot.press(key)
            moves.append(time.perf_counter() - started)
        if seen is not None:
            seen.update(rows=app.series_list.row_count, total=app.series_list.total)
    return moves


async def main(db):
    bare = await drive(Bare())
    with Store.open(db) as store:
        seen = {}
        moves = await drive(make_app(store), seen)
    print(json.dumps({"moves": moves, "bare": bare, **seen, **timed}))

asyncio.run(main(sys.argv[1]))
"""


def moving(db: Path) -> dict[str, object]:
    import json

    proc = subprocess.run([sys.executable, "-c", MOVE, str(db)], check=True,
                          capture_output=True, text=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


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
    moves, bare = moved["moves"], moved["bare"]  # type: ignore[index]
    med, bare_med = _ms(moves, 0.5), _ms(bare, 0.5)
    p99, bare_p99 = _ms(moves, 0.99), _ms(bare, 0.99)
    pages, details = moved["page"], moved["detail"]  # type: ignore[index]
    first = min(screens) if screens else None
    size = os.path.getsize(db) / 1e6
    return [
        (f"UI store: {N:,} messages ({size:,.0f} MB)", f"{moved['total']:,} series", "", None),
        ("baseline: patchperf --version", f"{baseline:.2f} s", "", None),
        ("TUI first screen in tmux (best of 3)",
         "no tmux" if first is None else f"{first:.2f} s = {first / baseline:.1f}x baseline",
         "< 1 s", None if first is None else first < 1.0),
        ("TUI: a move through the list, median (620 keys)",
         f"{med:.1f} ms = {med / bare_med:.2f}x bare DataTable ({bare_med:.1f} ms)",
         "<= 1.20x bare", med <= 1.2 * bare_med),
        ("TUI: a move, p99", f"{p99:.1f} ms = {p99 / bare_p99:.2f}x bare ({bare_p99:.1f} ms)",
         "<= 1.50x bare", p99 <= 1.5 * bare_p99),
        (f"TUI: a page of 100 rows read ({len(pages)} pages)",
         f"p95 {_ms(pages, 0.95):.1f} ms, max {_ms(pages, 1.0):.1f} ms", "< 50 ms",
         _ms(pages, 1.0) < 50),
        (f"TUI: detail pane filled ({len(details)} series)",
         f"p95 {_ms(details, 0.95):.1f} ms, max {_ms(details, 1.0):.1f} ms", "< 100 ms",
         _ms(details, 1.0) < 100),
        (f"report --since 7d, table ({len(doc['series']):,} series, {len(doc['messages']):,} msgs)",
         f"{table:.2f} s = {table / baseline:.1f}x baseline", "< 1 s", table < 1.0),
        ("report --since 7d --format json", f"{as_json:.2f} s = {as_json / baseline:.1f}x baseline",
         "< 1 s", as_json < 1.0),
    ]


if __name__ == "__main__":
    for row in run():
        print(*row, sep="  |  ")
