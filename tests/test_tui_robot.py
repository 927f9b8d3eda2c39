"""The TUI beside the kernel test robot (issue 23), over a store of tests/data/robot/veth-gro.mbox:
a series in three versions, a robot report by patch link to v2 that measured a regression
in the throughput v2 claims to improve, two reports linked to v3 (by subject, by applied
commit), and one linked to no series.

The Claims tab shows the robot's rows under the series' own claims, a row opposite to a
claim marked in words; the list marks the series with `≠`, which the status line explains."""

from __future__ import annotations

from pathlib import Path

import pytest
from stores import ingest_into
from test_tui import _column, _plain

from corpus.store import Store
from reports.tui.app import make_app

MBOX = Path(__file__).resolve().parent / "data" / "robot" / "veth-gro.mbox"
SIZE = (160, 45)
pytestmark = pytest.mark.anyio
FLAG = "regression: disagrees with a claim"
LEGEND = "≠ the kernel test robot measured the opposite of a claim"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def robot_store(db):
    with Store.open(ingest_into(db, MBOX)) as store:
        yield store


def _versions(app) -> list[str]:
    """The series list's names, `v3 net: …`; the first version has no `v1`."""
    table = app.series_list
    return [table.get_row_at(i)[-1].plain for i in range(table.row_count)]


async def _open_claims(pilot, version: int) -> None:
    """The cursor on that version (the list is newest first: v3, v2, v1), its Claims tab."""
    for _ in range(3 - version):
        await pilot.press("down")
    await pilot.pause(0.3)  # the detail follows the cursor after a delay
    await pilot.press("3")
    await pilot.pause(0.3)


async def test_the_list_marks_the_series_a_robot_finding_disagrees_with(robot_store) -> None:
    app = make_app(robot_store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert [n.partition("net:")[0].strip() for n in _versions(app)] == ["v3", "v2", ""]
        assert _column(app.series_list, "claims") == ["1", "1 ≠", "1"]
        assert _plain(app.query_one("#status")).endswith(LEGEND)
        await pilot.press("m")  # the other mail: the mark is the series'
        assert LEGEND not in _plain(app.query_one("#status"))


async def test_the_claims_tab_shows_the_robot_rows_under_the_claims(robot_store) -> None:
    app = make_app(robot_store)
    async with app.run_test(size=SIZE) as pilot:
        await _open_claims(pilot, 2)
        assert app.detail is not None and app.detail.series["version"] == 2
        # the series' own claim alone: the robot's findings are its rows, not claims
        claims = app.query_one("#claims-table")
        assert claims.row_count == len(app.detail.claims) == 1
        assert _column(claims, "metric") == ["throughput"]
        assert app.query_one("#robot-table").display
        robot = app.query_one("#robot-table")
        assert _column(robot, "measure") == ["netperf.Throughput_Mbps",
                                             "netperf.Throughput_total_Mbps"]
        assert _column(robot, "change") == ["-12.53 %", "-12.51 %"]
        assert _column(robot, "finding") == [FLAG, FLAG]
        assert _column(robot, "≠") == ["≠", "≠"]  # the mark a narrow pane still shows
        assert _column(robot, "rule") == ["patch link"] * 2
        assert _column(robot, "test") == ["netperf"] * 2
        assert _column(robot, "report") == ["202611201122.5a6b7c8d-lkp@intel.com"] * 2
        heading = _plain(app.query_one("#robot-heading"))
        assert heading == "Kernel test robot: 1 report  ≠ disagrees with a claim"
        # what the finding disagrees with: one line for the one claim
        notes = _plain(app.query_one("#robot-notes")).splitlines()
        assert len(notes) == 1 and notes[0].startswith("≠ ") and "regression" in notes[0]
        assert "1 claim · 1 robot report ≠ a claim" in _plain(app.query_one("#summary"))


async def test_agreeing_rows_are_not_marked_and_a_series_without_reports_shows_none(
        robot_store) -> None:
    app = make_app(robot_store)
    async with app.run_test(size=SIZE) as pilot:
        await _open_claims(pilot, 3)
        robot = app.query_one("#robot-table")
        assert _column(robot, "rule") == ["subject", "applied"]
        assert _column(robot, "finding") == ["improvement", "regression"]
        assert _column(robot, "≠") == ["", ""]
        assert _column(robot, "test") == ["netperf", "will-it-scale"]
        assert _plain(app.query_one("#robot-notes")) == ""
        assert "≠" not in _plain(app.query_one("#summary"))

        await pilot.press("down", "down")  # v1: before the robot wrote
        await pilot.pause(0.3)
        assert app.detail is not None and app.detail.series["version"] == 1
        assert app.query_one("#robot-table").row_count == 0
        assert not app.query_one("#robot-table").display
        assert not app.query_one("#robot-heading").display
        assert "robot" not in _plain(app.query_one("#summary"))


async def test_the_claims_tab_follows_the_claim_across_versions(robot_store) -> None:
    """v3's claim back through v2 and v1, v2's unexplained move flagged; v1 has no earlier
    version to follow."""
    app = make_app(robot_store)
    async with app.run_test(size=SIZE) as pilot:
        await _open_claims(pilot, 3)
        tracks = app.query_one("#tracks-text")
        assert tracks.display
        lines = _plain(tracks).splitlines()
        assert lines[0] == "across versions"
        assert lines[1].startswith("throughput: v1 21.4 → 24.9 Gbit/s · v2 21.4 → 26 Gbit/s "
                                   "(moved 4.4 %, flagged)")
        assert "no changelog line of v2 names the benchmark or the metric" in lines[2]
        assert lines[3].startswith("  v3: changelog: netperf TCP_STREAM throughput")
        await pilot.press("down", "down")
        await pilot.pause(0.3)
        assert app.detail is not None and app.detail.series["version"] == 1
        assert not app.query_one("#tracks-text").display


HOSTILE = "[bold red]boom[/] \x1b]0;pwned\x07 \u202egnp"


async def test_the_robot_mail_text_is_shown_inert(db, tmp_path) -> None:
    """Markup and control characters in a report's testcase and machine reach the table as
    text: rich markup stays literal, escapes and bidi overrides show as visible escapes."""
    text = MBOX.read_text(encoding="utf-8")
    text = text.replace("testcase: netperf\n", f"testcase: netperf{HOSTILE}\n", 1)
    text = text.replace("test machine: 128 threads", f"test machine: {HOSTILE} 128", 1)
    mbox = tmp_path / "hostile.mbox"
    mbox.write_text(text, encoding="utf-8")
    with Store.open(ingest_into(db, mbox)) as store:
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await _open_claims(pilot, 2)
            robot = app.query_one("#robot-table")
            assert robot.row_count == 2
            for cell in (*_column(robot, "test"), *_column(robot, "machine")):
                assert "[bold red]" in cell  # the test column is cut after it
                assert "\x1b" not in cell and "\x07" not in cell and "\u202e" not in cell
            assert "[bold red]boom[/] \\x1b]0;pwned\\x07" in _column(robot, "machine")[0]


NARROW = (120, 40)


def test_claims_tab_beside_the_robot_at_120_columns(db, snap_compare) -> None:
    """v2's claim over the robot's two rows against it, at the tester's terminal width."""
    async def run(pilot) -> None:
        await pilot.pause(0.2)
        await _open_claims(pilot, 2)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.2)  # the tables' widths, and so their scrollbars, settled

    with Store.open(ingest_into(db, MBOX)) as store:
        assert snap_compare(make_app(store), terminal_size=NARROW, run_before=run)
