"""`make html-check`: the HTML report of the bundled corpus, opened in headless Chromium.

Builds a store from the bundled corpus with the installed `patchperf`, writes
`report --all --format html`, then asks Chromium (Debian's `chromium`) for the DOM it built
and for a screenshot. It checks that the browser parsed the tables and the inline SVG plots,
that the screenshot is a rendered page (not blank) with the plots' colours on it, and that
the page asked the network for nothing. Prints the figures; exits 1 when a check fails.

    python tests/bench/html_check.py [--out DIR]   (default .demo/html-check)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from browser import blue_pixels, find_chromium, network_lines, run_browser  # noqa: E402

PATCHPERF = Path(sys.executable).with_name("patchperf")


def chromium() -> str:
    found = find_chromium()
    if found is None:
        sys.exit("html-check: no chromium (make html-check installs Debian's package)")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / ".demo" / "html-check")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    browser = chromium()
    html = args.out / "report.html"
    png = args.out / "report.png"
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "store.db"
        threads = sorted((REPO / "corpus" / "threads").glob("*.mbox"))
        subprocess.run([str(PATCHPERF), "--db", str(db), "--quiet", "ingest", *map(str, threads)],
                       check=True)
        started = time.perf_counter()
        subprocess.run([str(PATCHPERF), "--db", str(db), "report", "--all", "--format", "html",
                        "-o", str(html)], check=True)
        written = time.perf_counter() - started
        started = time.perf_counter()
        dom = run_browser(browser, Path(tmp) / "profile-dom", "--dump-dom", html.as_uri()).stdout
        shot = run_browser(browser, Path(tmp) / "profile-shot", "--window-size=1280,2600",
                           f"--screenshot={png}", html.as_uri())
        browsed = time.perf_counter() - started
    tables, svgs, paths = dom.count("<table"), dom.count("<svg"), dom.count("<path")
    blue, inked = blue_pixels(png) if png.exists() else (0, 0.0)
    requests = network_lines(shot.stderr)
    checks = [
        ("report written", f"{html.stat().st_size / 1024:.0f} KiB in {written:.2f} s", True),
        ("tables in the browser's DOM", str(tables), tables >= 4),
        ("inline SVG plots in the DOM", f"{svgs} ({paths} paths)", svgs >= 3 and paths >= 30),
        ("screenshot", f"{png} ({browsed:.1f} s for both runs)", png.exists()),
        ("page inked (not blank)", f"{100 * inked:.1f} % of pixels", inked >= 0.03),
        ("plot blue on the screenshot", f"{blue:,} pixels", blue >= 500),
        ("network requests from the page", str(len(requests)), not requests),
    ]
    failed = False
    for name, figure, ok in checks:
        failed |= not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {figure}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
