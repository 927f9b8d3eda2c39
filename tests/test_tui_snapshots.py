"""SVG snapshots of each screen of the TUI (pytest-textual-snapshot), over a copy of a store
built from the bundled corpus (and the seeds, for a simulated scenario). After a deliberate
change of a screen: `pytest tests/test_tui_snapshots.py --snapshot-update`, then look at the
SVGs in tests/__snapshots__/ before committing them."""

from __future__ import annotations

import pytest
from stores import ingest_into
from textual.geometry import Region

from corpus.store import Store
from reports.tui.app import make_app

SIZE = (150, 40)


@pytest.fixture
def store(bundled_store):
    return bundled_store


def _after(*keys: str):
    """Press the keys, then wait: the detail pane follows the cursor after a short delay,
    workers (a simulation) finish, and the toasts they raised are cleared."""
    async def run(pilot) -> None:
        await pilot.pause(0.2)
        for key in keys:
            await pilot.press(key)
        await pilot.pause(0.3)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.1)
        pilot.app.clear_notifications()
        await pilot.pause(0.1)
    return run


def test_first_screen(snap_compare, store) -> None:
    assert snap_compare(make_app(store), terminal_size=SIZE, run_before=_after())


def test_thread_with_quotes_unfolded(snap_compare, store) -> None:
    assert snap_compare(make_app(store), terminal_size=SIZE, run_before=_after("down", "down", "z"))


def test_diff_tab(snap_compare, store) -> None:
    assert snap_compare(make_app(store), terminal_size=SIZE, run_before=_after("down", "down", "2"))


def test_claims_tab_sorted_by_effect(snap_compare, store) -> None:
    assert snap_compare(make_app(store), terminal_size=SIZE, run_before=_after("o", "3"))


def test_search_by_tree_and_name(snap_compare, store) -> None:
    assert snap_compare(make_app(store), terminal_size=SIZE,
                        run_before=_after("t", "slash", *"gro", "enter"))


def test_scenario_tab_after_simulating(db, snap_compare, seeds_dir, tmp_path) -> None:
    db = ingest_into(db, *sorted(seeds_dir.glob("*.txt")))
    with Store.open(db) as store:
        assert snap_compare(make_app(store), terminal_size=SIZE,
                            run_before=_after("slash", *"act_police", "enter", "s"))


NARROW = (120, 40)  # the tester's terminal: the list, the Claims tab and the thread at their tightest


def test_claims_tab_at_120_columns_after_simulating(db, snap_compare, seeds_dir) -> None:
    db = ingest_into(db, *sorted(seeds_dir.glob("*.txt")))
    with Store.open(db) as store:
        assert snap_compare(make_app(store), terminal_size=NARROW, run_before=_after("s", "3"))


def test_quoted_diff_wrapped_at_120_columns(snap_compare, store) -> None:
    """page_pool's review, unfolded and scrolled to its quote of the hunk: each wrapped line
    of a quoted diff line starts with `> ` again."""
    async def run(pilot) -> None:
        await _after("down", "down", "z")(pilot)
        thread = pilot.app.query_one("#thread-text")
        lines = [strip.text for strip in thread.render_lines(Region(0, 0, *thread.size))]
        hunk = next(i for i, line in enumerate(lines) if line.startswith(" > @@ -503,22"))
        thread.parent.scroll_to(y=hunk - 1, animate=False)
        await pilot.pause(0.1)
    assert snap_compare(make_app(store), terminal_size=NARROW, run_before=run)


def test_other_mail(db, snap_compare, seeds_dir, tmp_path) -> None:
    from test_tui import HOSTILE_REPLY

    path = tmp_path / "hostile-reply.eml"
    path.write_bytes(HOSTILE_REPLY.encode())
    db = ingest_into(db, *sorted(seeds_dir.glob("*.txt")), path)
    with Store.open(db) as store:
        assert snap_compare(make_app(store), terminal_size=SIZE, run_before=_after("m", "down"))
