"""The HTML report opened in a real browser (headless Chromium, Debian's `chromium`): it
loads with no console message, runs no script — not even one a mail tries to slip in — and
its plots are drawn on the page. `.ci/run` installs Chromium; elsewhere the test skips
without it, saying so."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from browser import blue_pixels, console_lines, find_chromium, network_lines, run_browser
from stores import SMALL_PATCH

HOSTILE = """\
From: Mallory <mallory@example.org>
Subject: [PATCH net-next] net: <script>document.title='RAN'</script><img src=x onerror="document.title='RAN'">
Message-ID: <script.1@example.org>
Date: Tue, 01 Dec 2026 10:00:00 +0000
Content-Type: text/plain; charset=utf-8

Before the patch: 5 Mpps, after the patch: 10 Mpps <script>document.title='RAN'</script>
and <svg onload="document.title='RAN'"><style>body{display:none}</style>

""" + SMALL_PATCH


@pytest.fixture(scope="module")
def browser() -> str:
    found = find_chromium()
    if found is None:
        reason = "chromium is not installed (.ci/run installs Debian's package; apt-get install chromium)"
        if os.environ.get("PATCHPERF_REQUIRE_SHARED") == "1":
            pytest.fail(reason + "; in CI this is a failure")
        pytest.skip(reason)
    return found


@pytest.fixture
def page(cli, bundled_copy: str, tmp_path: Path) -> Path:
    mail = tmp_path / "hostile.eml"
    mail.write_text(HOSTILE, encoding="utf-8")
    assert cli("--db", bundled_copy, "ingest", mail).code == 0
    out = tmp_path / "report.html"
    result = cli("--db", bundled_copy, "report", "--all", "--format", "html", "-o", out)
    assert result.code == 0, result.err
    return out


def test_the_report_loads_quietly_runs_no_script_and_shows_its_plots(browser: str, page: Path,
                                                                    tmp_path: Path) -> None:
    dom_run = run_browser(browser, tmp_path / "profile-dom", "--dump-dom", page.as_uri())
    dom = dom_run.stdout
    assert dom.count("<table") >= 4
    # what the browser built: the mail's markup stayed text, and nothing changed the title
    title = re.search(r"<title>(.*?)</title>", dom, re.S)
    assert title is not None and "RAN" not in title.group(1)
    assert "<script" not in dom and re.search(r"<[a-z][^>]*\son\w+\s*=", dom) is None
    assert "&lt;script&gt;document.title='RAN'&lt;/script&gt;" in dom
    assert re.search(r"<img\b", dom) is None and "<svg onload" not in dom
    # the plots are inline SVG the browser parsed, and drawn on the page
    assert dom.count("<svg") >= 3 and dom.count("<path") >= 30
    png = tmp_path / "report.png"
    shot = run_browser(browser, tmp_path / "profile-shot", "--window-size=1280,2600",
                       f"--screenshot={png}", page.as_uri())
    assert png.exists(), shot.stderr[-2000:]
    blue, inked = blue_pixels(png)
    assert blue >= 500 and inked >= 0.03, (blue, inked)
    # no console message (a script error, a resource the page's policy refused) and no
    # request for anything
    for run in (dom_run, shot):
        assert console_lines(run.stderr) == []
        assert network_lines(run.stderr) == []
