"""`patchperf tui` in a real terminal: tmux runs the installed command on a store built from
the bundled corpus, keys are sent, and the screen is read back with `capture-pane`.
(`make tui-smoke` runs only this; `.ci/run` installs tmux when it is missing.)"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from conftest import required_program

from corpus.bundled import bundled_threads
from reports.cli import main

PATCHPERF = Path(sys.executable).with_name("patchperf")


def _tmux() -> str:
    return required_program("tmux", "apt-get install tmux; make tui-smoke")


class Terminal:
    """A tmux session of our own (its own server socket), 150x40 unless told."""

    def __init__(self, tmp: Path, command: list[str], env: dict[str, str],
                 size: tuple[int, int] = (150, 40)) -> None:
        width, height = (str(n) for n in size)
        self.tmux = [_tmux(), "-S", str(tmp / "tmux.sock")]
        env_args = [a for k, v in env.items() for a in ("-e", f"{k}={v}")]
        # A detached session may start at tmux's default size whatever -x/-y say: the
        # window is sized by hand, then the command starts in it (a shell waits for the go).
        go = tmp / "go"
        # COLUMNS and LINES, when the test's environment has them, would fix the app's size
        script = f'while [ ! -e "{go}" ]; do sleep 0.05; done; unset COLUMNS LINES; exec "$@"'
        subprocess.run([*self.tmux, "-f", "/dev/null", "new-session", "-d", "-s", "pp",
                        "-x", width, "-y", height, *env_args, "sh", "-c", script, "sh", *command],
                       check=True)
        subprocess.run([*self.tmux, "set-option", "-t", "pp", "window-size", "manual"], check=True)
        subprocess.run([*self.tmux, "resize-window", "-t", "pp", "-x", width, "-y", height],
                       check=True)
        go.touch()

    def screen(self) -> str:
        return subprocess.run([*self.tmux, "capture-pane", "-p", "-t", "pp"], check=True,
                              capture_output=True, text=True).stdout

    def wait_for(self, *texts: str, timeout: float = 30.0) -> str:
        """The screen once every text is on it (the app paints in several passes)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if all(t in shown for t in texts):
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{texts!r} never all appeared; the screen:\n{self.screen()}")

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", "pp", *keys], check=True)

    def alive(self) -> bool:
        return subprocess.run([*self.tmux, "has-session", "-t", "pp"],
                              capture_output=True).returncode == 0

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)


def _environment(db: str, tmp_path: Path) -> dict[str, str]:
    return {"PATCHPERF_DB": str(db), "TERM": "xterm-256color", "HOME": str(tmp_path),
            "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}


def _ingest(db: str, *paths: Path) -> None:
    with bundled_threads() as folder:
        mail = [*sorted(folder.glob("*.mbox")), *paths]
        assert main(["--db", str(db), "--quiet", "ingest", *map(str, mail)]) == 0


def _quit(term: Terminal) -> None:
    term.keys("q")
    deadline = time.monotonic() + 10
    while term.alive() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not term.alive(), "q did not quit the app"


def test_tui_in_tmux(db, tmp_path: Path) -> None:
    _tmux()
    assert PATCHPERF.exists(), f"{PATCHPERF}: the installed command (make installs it)"
    _ingest(db)
    term = Terminal(tmp_path, [str(PATCHPERF), "tui"], _environment(db, tmp_path))
    try:
        first = term.wait_for("6 series · sort: newest", "Quit", "── patch 2026-11-24T09:12")
        assert "net/sched: act_skbedit: count in per-cpu stats" in first
        term.keys("Down", "Down")
        term.wait_for("│ page_pool: refill the alloc cache in one batch")
        term.keys("3")
        term.wait_for("before → after", "5.1 → 7.9 Mpps", "+54.90")
        term.keys("2")
        term.wait_for("+++ b/net/core/page_pool.c")
        term.keys("o")
        term.wait_for("sort: largest claimed change")
        _quit(term)
    finally:
        term.close()


def test_tui_at_120_columns_in_tmux(db, seeds_dir: Path, tmp_path: Path) -> None:
    """The tester's terminal, 120 columns: 30 characters of a series' name in the list, the
    change and verdict columns in the Claims tab, and `m` lists the replies of seeds 000 and
    004, which belong to no stored series, and a hostile one."""
    from test_tui import HOSTILE_REPLY

    _tmux()
    hostile = tmp_path / "hostile-reply.eml"
    hostile.write_bytes(HOSTILE_REPLY.encode())
    _ingest(db, *sorted(seeds_dir.glob("*.txt")), hostile)
    term = Terminal(tmp_path, [str(PATCHPERF), "tui"], _environment(db, tmp_path), (120, 40))
    try:
        first = term.wait_for("7 series · sort: newest", "── patch 2026-11-24T09:12")
        assert "net/sched: act_skbedit: count in per-cpu"[:30] in first
        term.keys("3")
        claims = term.wait_for("+109.62 %")
        assert re.search(r"│ metric +change +verdict +condition", claims), claims
        term.keys("m", "1")
        # the hostile reply first (2024), after the mail it answers; its escapes written
        # out, not obeyed (\x1b[2J would have cleared the screen)
        mail = term.wait_for("3 messages outside any series", "Re: macvlan: optimizing the receive",
                             "Jason Baron <jbaron@akamai.com>", "── earlier 2015-07-03T07:07")
        assert r"Re: [bold red]boom[/] \x1b[2J\u202egnp.exe" in mail
        term.keys("m")
        term.wait_for("7 series · sort: newest")
        _quit(term)
    finally:
        term.close()
