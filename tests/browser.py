"""Headless Chromium for the HTML report's checks (tests/test_html_browser.py, and
`make html-check`'s figures in tests/bench/html_check.py): find it, run it on a file, and
read its screenshot."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

# Without the background-networking flags Chromium tries Google's hosts at start, which a
# closed network refuses (and which would be requests the page did not make). Console
# messages go to stderr with --enable-logging=stderr: `CONSOLE(n)` lines, errors among them.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]
PLOT_BLUE = (0x25, 0x63, 0xEB)  # reports/plots.py: the `after` curves


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    return None


def run_browser(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=180)


def console_lines(stderr: str) -> list[str]:
    """What the page wrote to the console, or had written about it (a refused resource,
    a script error): Chromium logs each as a `CONSOLE(` line."""
    return [line for line in stderr.splitlines() if "CONSOLE(" in line or ":CONSOLE" in line]


def network_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "net::ERR" in line]


def blue_pixels(png: Path) -> tuple[int, float]:
    """Pixels of the plots' blue, and the share of the page that is not white."""
    from PIL import Image  # Pillow: installed with matplotlib

    with Image.open(png) as image:
        data = image.convert("RGB").tobytes()
    pixels = list(zip(data[0::3], data[1::3], data[2::3], strict=True))
    blue = sum(1 for p in pixels if all(abs(a - b) <= 24 for a, b in zip(p, PLOT_BLUE, strict=True)))
    inked = sum(1 for p in pixels if min(p) < 235)
    return blue, inked / len(pixels)
