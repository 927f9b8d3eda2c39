"""Issue 22, items 1 and 2: a number no float holds never crashes a report and never makes
JSON that is not JSON. Read from mail, such a figure is not a figure (`1.5e+400 Mpps`); found
in a store written before that rule, it is shown as `?` and written as null."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import pytest
from stores import SMALL_PATCH

HUGE = """\
From: Eve <eve@example.org>
Subject: [PATCH net-next] net: big numbers
Message-ID: <inf.1@example.org>
Date: Tue, 01 Dec 2026 10:00:00 +0000

Before the patch: 1.5e+400 Mpps, after the patch: 3.0e+400 Mpps.
Throughput improved by 1.0e+400%.
Before: 9.9e+308 Gpps, after: 9.9e+308 Gpps.
Before the patch: 5 Mpps, after the patch: 10 Mpps.

""" + SMALL_PATCH


def _strict(text: str) -> object:
    """JSON as RFC 8259 has it: `Infinity` and `NaN` are refused."""
    def refuse(name: str) -> float:
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_figures_no_float_holds_are_not_read(cli, tmp_path: Path) -> None:
    mail = tmp_path / "huge.eml"
    mail.write_text(HUGE, encoding="utf-8")
    result = cli("analyze", mail, "--format", "json")
    assert result.code == 0, result.err
    doc = _strict(result.out)
    assert isinstance(doc, dict)
    figures = [(c["baseline"], c["patched"]) for c in doc["claims"]]
    assert figures == [(5.0, 10.0)]  # the one line a reader can believe, and it alone


def _poison(db: Path) -> None:
    """Make the stored claims infinite, as a store of an older patchperf could hold them."""
    conn = sqlite3.connect(db)
    with conn:
        for cid, text in conn.execute("SELECT id, doc FROM claims").fetchall():
            doc = json.loads(text)
            doc.update(baseline=math.inf, patched=math.inf, baseline_canonical=math.inf,
                       patched_canonical=math.inf, change_pct=math.inf,
                       stated_change_pct=-math.inf)
            conn.execute("UPDATE claims SET doc = ? WHERE id = ?", (json.dumps(doc), cid))
    conn.close()


def test_a_stored_infinite_figure_breaks_no_report(cli, tmp_path: Path) -> None:
    mail = tmp_path / "huge.eml"
    mail.write_text(HUGE, encoding="utf-8")
    db = tmp_path / "old.db"
    assert cli("--db", db, "ingest", mail).code == 0
    _poison(db)
    for fmt in ("table", "markdown", "json", "html"):
        result = cli("--db", db, "report", "--all", "--format", fmt)
        assert result.code == 0, (fmt, result.err)
        assert "Traceback" not in result.err
        if fmt == "json":
            claims = _strict(result.out)["claims"]  # type: ignore[index]
            assert claims and all(c["baseline"] is None and c["change_pct"] is None
                                  for c in claims)
    shown = cli("--db", db, "claims", "--since", "3650d")
    assert shown.code == 0 and "? → ?" in shown.out
    assert _strict(cli("--db", db, "claims", "--since", "3650d", "--format", "json").out)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # Textual runs on asyncio


@pytest.mark.anyio
async def test_the_tui_shows_a_stored_infinite_figure(cli, tmp_path: Path) -> None:
    from corpus.store import Store
    from reports.tui.app import make_app

    mail = tmp_path / "huge.eml"
    mail.write_text(HUGE, encoding="utf-8")
    db = tmp_path / "old.db"
    assert cli("--db", db, "ingest", mail).code == 0
    _poison(db)
    with Store.open(str(db)) as store:
        app = make_app(store)
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.pause(0.3)
            assert app.detail is not None and app.detail.series["name"] == "net: big numbers"
            await pilot.press("3")  # the Claims tab: it died on int(inf)
            await pilot.pause()
            table = app.query_one("#claims-table")
            assert table.row_count == 1
            assert "? → ?" in next(iter(table.get_column("before → after"))).plain


# --- items 8 and 9: units kept, invisible characters read through and shown escaped --------

def _mail(tmp_path: Path, line: str, n: int = 1) -> Path:
    path = tmp_path / f"u{n}.eml"
    path.write_text(
        "From: Eve <eve@example.org>\nSubject: [PATCH net-next] net: units\n"
        f"Message-ID: <u.{n}@example.org>\nDate: Tue, 01 Dec 2026 10:00:00 +0000\n"
        "Content-Type: text/plain; charset=utf-8\n\n" + line + "\n", encoding="utf-8")
    return path


def _figures(cli, path: Path) -> tuple[list[tuple], str]:
    result = cli("analyze", path, "--format", "json")
    assert result.code == 0, result.err
    doc = _strict(result.out)
    claims = doc["claims"]  # type: ignore[index]
    return [(c["baseline"], c["patched"], c["unit"], c["patched_unit"], c["change_pct"])
            for c in claims], result.err


def test_two_units_are_both_kept(cli, tmp_path: Path) -> None:
    path = _mail(tmp_path, "Throughput went from 5 Mpps → 10 Gpps.")
    figures, _ = _figures(cli, path)
    assert figures == [(5.0, 10.0, "Mpps", "Gpps", 199900.0)]
    assert "5 Mpps → 10 Gpps" in cli("analyze", path).out


def test_a_mangled_unit_is_no_figure(cli, tmp_path: Path) -> None:
    # `5 usé` was read as 5 s: +49,999,900 %, a "regression"
    figures, _ = _figures(cli, _mail(tmp_path, "Latency went from 10 us to 5 usé."))
    assert figures == []


def test_a_negative_rate_is_dropped_with_a_warning(cli, tmp_path: Path) -> None:
    path = _mail(tmp_path, "Throughput went from \u22125 Mpps to 10 Mpps.")
    figures, err = _figures(cli, path)
    assert figures == [] and "negative figure in Mpps" in err and str(path) in err


@pytest.mark.parametrize("line, expected", [
    ("Throughput went from 5 Mpps to 9\u00ad Mpps.", (5.0, 9.0, 80.0)),  # soft hyphen
    ("Throughput went from 5 Mpps to 9\u2060 Mpps.", (5.0, 9.0, 80.0)),  # word joiner
    ("Throughput went from 5\u200b000000 pps to 6000000 pps.", (5e6, 6e6, 20.0)),  # ZWSP
    ("Throughput went from 1\u03360000000 pps to 20000000 pps.", (1e7, 2e7, 100.0)),  # U+0336
    ("Throughput went from \ufeff5 Mpps to 6 Mpps.", (5.0, 6.0, 20.0)),  # BOM
])
def test_invisible_characters_are_read_through(cli, tmp_path: Path, line: str,
                                               expected: tuple[float, float, float]) -> None:
    figures, _ = _figures(cli, _mail(tmp_path, line))
    assert [(b, p, c) for b, p, _, _, c in figures] == [expected]


def test_invisible_characters_are_shown_escaped_in_every_renderer(cli, tmp_path: Path) -> None:
    hidden = "\u200b\u2060\u00ad\ufeff\U000e0041\ufff9\u180e\u206e"
    path = _mail(tmp_path, f"Throughput went from 5 Mpps to 6 Mpps{hidden}.")
    text = path.read_text(encoding="utf-8").replace("net: units", f"net: units{hidden}")
    path.write_text(text, encoding="utf-8")  # in the subject, which every renderer shows
    for fmt in ("table", "markdown", "html"):
        out = cli("analyze", path, "--format", fmt).out
        assert not any(ch in out for ch in hidden), fmt
        assert "\\u200b" in out and "\\U000e0041" in out, fmt
    out = cli("analyze", path, "--format", "json").out
    assert not any(ch in out for ch in hidden)
    # the quote is what the readers read: through the invisible characters
    assert _strict(out)["claims"][0]["quote"] == "Throughput went from 5 Mpps to 6 Mpps."  # type: ignore[index]


def test_the_format_characters_are_unicodes_cf() -> None:
    import re
    import sys
    import unicodedata

    from analyze.claims.invisible import FORMAT

    listed = re.compile(f"[{FORMAT}]")
    cf = {chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"}
    assert {ch for ch in cf if listed.fullmatch(ch)} == cf
    # beyond this Python's Unicode version, only Unicode 15's new Egyptian format controls
    extra = [c for c in range(sys.maxunicode + 1) if listed.fullmatch(chr(c)) and chr(c) not in cf]
    assert set(extra) <= set(range(0x13439, 0x13440))
