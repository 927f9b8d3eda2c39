"""The Textual app driven by Textual's pilot over real stores: the bundled corpus, the
netdev seeds, a generated store for paging, and a sync from a lore-shaped server."""

from __future__ import annotations

import io
import re

import pytest
from fake_lore import Archive
from pytest_httpserver import HTTPServer
from rich.console import Console
from rich.text import Text
from stores import gen_mbox, ingest_into

from corpus.store import Store
from reports.cli import main
from reports.tui.app import make_app
from reports.tui.series_list import PAGE

SIZE = (160, 45)
pytestmark = pytest.mark.anyio  # anyio's pytest plugin (installed with httpx) runs the coroutines


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # Textual runs on asyncio


@pytest.fixture
def store(bundled_store):
    return bundled_store  # a copy each: simulating writes verdicts


def _plain(widget) -> str:
    """What a Static holds, rendered as plain text (as wide as needed: no wrapping)."""
    content = widget.content
    if isinstance(content, Text):
        return content.plain
    console = Console(width=400, record=True, file=io.StringIO(), color_system=None)
    console.print(content)
    return console.export_text()


def _column(table, key: str) -> list[str]:
    """The plain text of one column of a DataTable, top to bottom."""
    return [cell.plain for cell in table.get_column(key)]


def _names(app) -> list[str]:
    table = app.series_list
    return [table.get_row_at(i)[-1].plain for i in range(table.row_count)]


async def test_first_screen_lists_series_newest_first(store) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        names = _names(app)
        assert names[0].startswith("net/sched: act_skbedit")  # 2026-11-24
        assert names[1].startswith("bpf: cpumap: prefetch")  # 2026-11-20
        assert names[-1].startswith("net: veth: batch GRO") and len(names) == 6
        assert _plain(app.query_one("#status")).startswith("6 series · sort: newest")
        await pilot.pause(0.3)
        assert "act_skbedit" in _plain(app.query_one("#summary"))


async def test_navigate_and_open_each_tab(store) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "down")  # page_pool, 2025-06-03: a patch, reviews, claims
        await pilot.pause(0.3)
        assert app.detail is not None and app.detail.series["name"].startswith("page_pool")
        thread = _plain(app.query_one("#thread-text"))
        assert "── patch" in thread and "── reply" in thread
        assert re.search(r"┆ \d+ quoted lines \(z unfolds\)", thread)
        await pilot.press("z")
        unfolded = _plain(app.query_one("#thread-text"))
        assert "(z unfolds)" not in unfolded and len(unfolded) > len(thread)

        await pilot.press("2")
        assert app.query_one("#tabs").active == "diff"
        assert "+++ b/net/core/page_pool.c" in _plain(app.query_one("#diff-text"))

        await pilot.press("3")
        assert app.query_one("#tabs").active == "claims"
        claims = app.query_one("#claims-table")
        # one row a claim (how many the readers find in the thread is theirs to say)
        assert claims.row_count == len(app.detail.claims) >= 10

        await pilot.press("4")
        assert app.query_one("#tabs").active == "scenario"
        await app.workers.wait_for_complete()  # the scenario is built when the tab opens
        await pilot.pause()
        # the scenario of one of its claims (which sweep is the claim readers' to say)
        assert re.search(r'^sweep = "\w+"$', _plain(app.query_one("#scenario-text")), re.M)
        assert "not simulated yet" in _plain(app.query_one("#scenario-verdict"))

        await pilot.press("1")
        assert app.query_one("#tabs").active == "thread"


async def test_search_and_filters(store) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"veth", "enter")
        await pilot.pause()
        # the version before the name once there is more than one (the list has no v column)
        assert _names(app) == ["v2 net: veth: batch GRO flushes per NAPI poll",
                               "net: veth: batch GRO flushes per NAPI poll"]
        assert "search: veth" in _plain(app.query_one("#status"))
        await pilot.press("slash", "ctrl+u", "enter")  # an empty search clears it
        assert len(_names(app)) == 6

        await pilot.press("t")  # the most used tree first: net-next (4 series)
        assert app.series_list.filter.tree == "net-next" and len(_names(app)) == 4
        await pilot.press("t")
        assert app.series_list.filter.tree == "bpf-next" and len(_names(app)) == 1
        await pilot.press("t")
        assert app.series_list.filter.tree is None

        await pilot.press("o")  # largest claimed change first
        assert [n[:20] for n in _names(app)[:2]] == ["net/sched: act_skbed", "page_pool: refill th"]
        changes = [float(c.removesuffix(" %")) for c in _column(app.series_list, "change")]
        assert changes[0] == 109.6 and changes == sorted(changes, reverse=True)
        await pilot.press("c")
        assert app.series_list.total == 6  # every bundled series has a claim


async def test_simulate_keeps_the_verdict_and_the_verdict_filter_finds_it(db, seeds_dir, tmp_path) -> None:
    db = ingest_into(db, *sorted(seeds_dir.glob("*.txt")))
    with Store.open(db) as store:
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("slash", *"act_police", "enter")
            await pilot.pause(0.3)
            assert len(_names(app)) == 1
            await pilot.press("s")
            await app.workers.wait_for_complete()
            await pilot.pause(0.2)
            assert app.query_one("#tabs").active == "scenario"
            assert "verdict: reproduced" in _plain(app.query_one("#scenario-verdict"))
            drawn = app.query_one("#plot").plt.build()  # what plotext draws in the pane
            assert "○" in drawn and "●" in drawn  # claimed before and after
            assert "simulated after" in _plain(app.query_one("#plot-legend"))
            await pilot.press("3")  # the claims, now with their verdicts
            claims = app.query_one("#claims-table")
            assert "reproduced" in _column(claims, "verdict")
            assert any(p.startswith("predicted ") for p in _column(claims, "simulated"))

            await pilot.press("slash", "ctrl+u", "enter")
            await pilot.press("v")  # no verdict filter → reproduced
            assert app.series_list.filter.verdict == "reproduced"
            assert len(_names(app)) == 1 and "act_police" in _names(app)[0]
    assert list(_kept_verdicts(db).values()).count("reproduced") >= 3


def _kept_verdicts(db: str) -> dict[str, str]:
    """The status of each kept verdict, by claim id."""
    with Store.open(db, readonly=True) as store:
        kept = store.stored_verdicts([c["id"] for c in store.claim_docs()])
    return {cid: verdict["status"] for cid, (_, verdict) in kept.items()}


async def test_the_list_loads_a_page_at_a_time(db, tmp_path) -> None:
    generate = gen_mbox().generate
    mbox = tmp_path / "gen.mbox"
    generate(mbox, n=1200)
    assert main(["--db", str(db), "--quiet", "ingest", "--no-claims", str(mbox)]) == 0
    with Store.open(db) as store:
        total = store.series_count()
        assert total > 2 * PAGE
        oldest = store.series_page(limit=total)[-1]
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert app.series_list.row_count == PAGE
            for _ in range(PAGE - 20):
                await pilot.press("down")
            assert app.series_list.row_count == 2 * PAGE  # read ahead of the cursor
            await pilot.press("end")  # every page read, the cursor on the oldest series
            await pilot.pause()
            assert app.series_list.row_count == total
            assert app.series_list.current_id() == oldest.id
            await pilot.press("home")
            assert app.series_list.cursor_row == 0


async def test_mail_arriving_while_the_list_is_read(db, tmp_path) -> None:
    """Series stored by another process (a cron sync) while the TUI pages through the list:
    pages follow the rows already read, so nothing is read twice (it crashed on a duplicate
    row key when pages were counted by position) and nothing is skipped."""
    gen = gen_mbox()
    first, later = tmp_path / "first.mbox", tmp_path / "later.mbox"
    gen.generate(first, n=1200, seed=1)
    gen.generate(later, n=200, seed=2)  # other series, dated over the same month
    assert main(["--db", str(db), "--quiet", "ingest", "--no-claims", str(first)]) == 0
    with Store.open(db) as store:
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            seen_before = set(app.series_list.rows)
            assert main(["--db", str(db), "--quiet", "ingest", "--no-claims", str(later)]) == 0
            await pilot.press("end")
            await pilot.pause()
            shown = [str(k.value) for k in app.series_list.rows]
            assert len(shown) == len(set(shown))  # no row twice
            # every series there was when the list was first read is on it, in date order
            assert seen_before <= set(app.series_list.rows)
            dates = [app.series_list.get_row_at(i)[0].plain for i in range(len(shown))]
            assert dates[PAGE:] == sorted(dates[PAGE:], reverse=True)


async def test_a_locked_store_is_a_notice_not_a_crash(db, seeds_dir, tmp_path, monkeypatch) -> None:
    """Simulating while another process holds the store's write lock: the verdict is shown,
    a notice says it was not kept, and the app goes on."""
    from corpus import connection

    db = ingest_into(db, *sorted(seeds_dir.glob("*.txt")))
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 50)
    monkeypatch.setattr(connection, "PG_WRITE_WAIT_MS", 50)
    with Store.open(db) as store:
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("slash", *"act_police", "enter")
            await pilot.pause(0.3)
            with Store.open(db) as writer, writer.batch():  # another writer holds the lock
                await pilot.press("s")
                await app.workers.wait_for_complete()
                await pilot.pause(0.2)
            assert app.is_running
            assert "verdict: reproduced" in _plain(app.query_one("#scenario-verdict"))
            notices = [n.message for n in app._notifications]
            assert any("the verdicts are not kept" in n and "locked" in n for n in notices)
    assert _kept_verdicts(db) == {}


async def test_search_folds_case_beyond_ascii(db, tmp_path) -> None:
    mail = ("From: =?UTF-8?q?=C5=81ukasz_Nowak?= <l@example.org>\n"
            "Subject: [PATCH net-next] net: ŁÓDŹ offload for Straße\n"
            "Date: Mon, 02 Sep 2024 10:00:00 +0000\nMessage-ID: <lodz@example.org>\n"
            "Content-Type: text/plain; charset=utf-8\n\nSpeeds things.\n---\n"
            "diff --git a/net/core/dev.c b/net/core/dev.c\n--- a/net/core/dev.c\n"
            "+++ b/net/core/dev.c\n@@ -1,2 +1,3 @@\n a\n+b\n c\n")
    path = tmp_path / "lodz.eml"
    path.write_bytes(mail.encode())
    db = ingest_into(db, path)
    with Store.open(db) as store:
        assert store.series_count(search="łódź") == 1 and store.series_count(search="STRASSE") == 1
        assert len(store.find_series(author="łukasz")) == 1
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("slash", *"łódź", "enter")
            assert app.series_list.total == 1
            await pilot.press("slash", "ctrl+u", *"no such thing", "enter")
            await pilot.pause(0.3)
            assert app.series_list.total == 0
            assert "No series matches." in _plain(app.query_one("#summary"))


async def test_r_syncs_in_the_background_and_the_list_grows(db, tmp_path, httpserver: HTTPServer) -> None:
    archive = Archive()
    httpserver.expect_request(re.compile(".*")).respond_with_handler(archive.handle)
    diff = ("Speeds things up.\n\nSigned-off-by: Ana Lopes <ana@example.org>\n---\n"
            " net/core/dev.c | 1 +\n 1 file changed, 1 insertion(+)\n\n"
            "diff --git a/net/core/dev.c b/net/core/dev.c\n--- a/net/core/dev.c\n"
            "+++ b/net/core/dev.c\n@@ -1,2 +1,3 @@\n a\n+b\n c\n")
    for k in range(3):
        archive.add(f"p{k}@x", k, body=diff)
    with Store.open(db) as store:
        app = make_app(store, ["lore:netdev"],
                       {"PATCHPERF_LORE_URL": httpserver.url_for("/").rstrip("/")})
        async with app.run_test(size=SIZE) as pilot:
            assert app.series_list.total == 0
            await pilot.press("r")
            await app.workers.wait_for_complete()
            await pilot.pause(0.2)
            assert app.series_list.total == 3
            assert sorted(_names(app)) == [f"thing p{k}@x" for k in range(3)]


async def test_r_without_feeds_says_so(store) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await pilot.pause()
        assert any("No feeds to sync" in n.message for n in app._notifications)


HOSTILE = (
    "From: =?UTF-8?q?Mallory_=1B]0;pwned=07?= <m@example.org>\n"
    "Subject: [PATCH net] [bold red]boom[/] \x1b[2J\u202egnp.exe <script>alert(1)</script>\n"
    "Date: Mon, 02 Sep 2024 10:00:00 +0000\n"
    "Message-ID: <hostile@example.org>\n"
    "Content-Type: text/plain; charset=utf-8\n\n"
    "Body with \x1b]8;;http://evil.example/\x07a link\x1b]8;;\x07 and [link=x]y[/link].\n"
    "> quoted [blink]text[/blink] \x1b[5m\n\n"
    "threads   before      after\n"
    "1         1.10 Mpps   1.32 Mpps\n"
    "2         2.05 Mpps   2.61 Mpps\n\n"
    "Signed-off-by: Mallory <m@example.org>\n---\n"
    "diff --git a/net/core/dev.c b/net/core/dev.c\n--- a/net/core/dev.c\n+++ b/net/core/dev.c\n"
    "@@ -1,2 +1,3 @@\n a\n+b [red]x[/red] \x1b[31m\n c\n"
)


async def test_hostile_mail_is_shown_as_text(db, tmp_path) -> None:
    """Rich markup, escape sequences and HTML in a subject, a sender, a body, a quote and a
    diff: shown literally in the list and every tab, and nothing reaches the screen raw."""
    path = tmp_path / "hostile.eml"
    path.write_bytes(HOSTILE.encode())
    db = ingest_into(db, path)
    with Store.open(db) as store:
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(0.3)
            name = _names(app)[0]  # the series name: the subject without its [...] prefixes
            assert name.startswith("boom[/] \\x1b[2J\\u202egnp.exe")
            assert "<script>alert(1)</script>" in name
            await pilot.press("z", "2", "3")  # quotes unfolded; each tab filled as it opens
            shown = {tab: _plain(app.query_one(f"#{tab}-text")) for tab in ("thread", "diff")}
            shown["summary"] = _plain(app.query_one("#summary"))
            claims = app.query_one("#claims-table")
            shown["claims"] = " ".join(c.plain for i in range(claims.row_count)
                                       for c in claims.get_row_at(i))
            assert "[PATCH net] [bold red]boom[/] \\x1b[2J" in shown["thread"]
            assert "[link=x]y[/link]" in shown["thread"] and "\\x1b]8;;http://evil.example/\\x07" in shown["thread"]
            assert "quoted [blink]text[/blink] \\x1b[5m" in shown["thread"]
            assert "+b [red]x[/red] \\x1b[31m" in shown["diff"]
            assert "  Mallory\n" in shown["thread"]  # the decoder keeps no control of the encoded From
            assert "1.1 → 1.32 Mpps" in shown["claims"]
            for text in shown.values():
                assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
            for tab in ("thread", "diff", "claims", "scenario"):
                await pilot.press({"thread": "1", "diff": "2", "claims": "3", "scenario": "4"}[tab])
                await pilot.pause(0.05)
                screen = app.export_screenshot()
                assert "\x1b" not in screen and "\u202e" not in screen
            assert "boom[/]" in app.export_screenshot().replace("&#160;", " ")


async def test_a_slow_scenario_build_does_not_undo_a_simulation(db, seeds_dir, tmp_path, monkeypatch) -> None:
    """The Scenario tab starts building the scenarios; `s` simulates meanwhile. When the
    build finishes last, the simulated verdict and curves stay on screen."""
    import threading
    import time as clock

    from corpus.jobs import verdicts

    db = ingest_into(db, *sorted(seeds_dir.glob("*.txt")))
    real = verdicts.stored_scenarios
    first = threading.Event()

    def slow_once(*args):
        if not first.is_set():
            first.set()
            clock.sleep(1.5)  # the tab's build: slower than the simulation
        return real(*args)

    monkeypatch.setattr(verdicts, "stored_scenarios", slow_once)
    with Store.open(db) as store:
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("slash", *"act_police", "enter")
            await pilot.pause(0.3)
            await pilot.press("4")
            await pilot.pause(0.1)
            assert first.is_set()  # the tab's build is under way
            await pilot.press("s")
            await app.workers.wait_for_complete()
            await pilot.pause(0.2)
            assert "verdict: reproduced" in _plain(app.query_one("#scenario-verdict"))
            assert "simulated after" in _plain(app.query_one("#plot-legend"))


NARROW = (120, 40)  # the width the tester's terminal had



def _lines(widget) -> list[str]:
    """What a widget draws, line by line, at the size it has on screen."""
    from textual.geometry import Region

    width, height = widget.size
    return [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, width, height))]


HOSTILE_REPLY = (
    "From: =?UTF-8?q?Mallory_=1B]0;pwned=07?= <m@example.org>\n"
    "Subject: Re: [bold red]boom[/] \x1b[2J\u202egnp.exe <script>alert(1)</script>\n"
    "Date: Tue, 03 Sep 2024 10:00:00 +0000\n"
    "Message-ID: <hostile-reply@example.org>\n"
    "In-Reply-To: <55966CEF.3000406@mojatatu.com>\n"
    "References: <55966CEF.3000406@mojatatu.com>\n"
    "Content-Type: text/plain; charset=utf-8\n\n"
    "> quoted [blink]text[/blink] \x1b[5m\n\n"
    "Retested [link=x]y[/link] \x1b]8;;http://evil.example/\x07here\x1b]8;;\x07:\n\n"
    "threads   before      after\n"
    "1         1.10 Mpps   1.32 Mpps\n"
    "2         2.05 Mpps   2.61 Mpps\n"
)


async def test_m_lists_the_mail_outside_any_series(db, seeds_dir, tmp_path) -> None:
    """Replies whose series is not stored (seeds 000 and 004) and a hostile lone reply: `m`
    lists them newest first with their claim counts, `/` searches them, and the detail pane
    shows each one's thread and claims, the hostile text literally."""
    path = tmp_path / "hostile-reply.eml"
    path.write_bytes(HOSTILE_REPLY.encode())
    db = ingest_into(db, *sorted(seeds_dir.glob("*.txt")), path)
    with Store.open(db) as store:
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("m")
            await app.workers.wait_for_complete()
            await pilot.pause(0.3)
            mail = app.query_one("#mail")
            assert mail.has_focus and not app.series_list.display
            rows = [cell.split("\n") for cell in _column(mail, "mail")]  # subject, sender
            subjects = [subject for subject, _ in rows]
            assert subjects[0].startswith("Re: [bold red]boom[/] \\x1b[2J\\u202egnp.exe <script>")
            assert subjects[1:] == ["Re: [PATCH net-next 6/6] net_sched: act: remove spinlock in fast path",
                                    "Re: macvlan: optimizing the receive path?"]
            assert [sender for _, sender in rows] == [
                "Mallory", "Jamal Hadi Salim <jhs@mojatatu.com>",  # no control of the encoded From
                "Jason Baron <jbaron@akamai.com>"]
            assert _column(mail, "claims") == ["2", "1", "9"]
            assert _column(mail, "date") == ["2024-09-03\n10:00", "2015-07-03\n07:07", "2014-10-07\n13:35"]
            assert _plain(app.query_one("#status")).startswith("3 messages outside any series")

            # the hostile reply: after the stored mail it answers, every text literal
            await pilot.press("z")
            thread = _plain(app.query_one("#thread-text"))
            assert thread.index("Jamal Hadi Salim") < thread.index("Mallory")
            assert "Re: [bold red]boom[/] \\x1b[2J\\u202egnp.exe" in thread
            assert "quoted [blink]text[/blink] \\x1b[5m" in thread
            assert "[link=x]y[/link] \\x1b]8;;http://evil.example/\\x07here" in thread
            assert "boom[/]" in _plain(app.query_one("#summary"))
            for tab in ("1", "2", "3", "4"):
                await pilot.press(tab)
                await pilot.pause(0.05)
                screen = app.export_screenshot()
                assert "\x1b" not in screen and "\u202e" not in screen and "\x07" not in screen
            await app.workers.wait_for_complete()

            await pilot.press("1", "down", "down")  # seed 000: nine claims, no series
            await pilot.pause(0.3)
            assert "Jason Baron" in _plain(app.query_one("#thread-text"))
            await pilot.press("3")
            claims = app.query_one("#claims-table")
            assert claims.row_count == 9
            assert set(_column(claims, "metric")) == {"transactions"}

            await pilot.press("slash", *"SPINLOCK", "enter")  # subjects and senders, folded
            await pilot.pause(0.3)
            assert [c.split("\n")[0] for c in _column(mail, "mail")] == [subjects[1]]
            assert "search: SPINLOCK" in _plain(app.query_one("#status"))
            assert "remove spinlock" in _plain(app.query_one("#summary"))
            await pilot.press("slash", "ctrl+u", "enter")
            assert mail.row_count == 3

            await pilot.press("m")  # back to the series
            await pilot.pause(0.3)
            assert app.series_list.has_focus and not mail.display
            assert _names(app) == ["net/sched: act_police: lockless data path"]
            assert "act_police" in _plain(app.query_one("#summary"))


async def test_at_120_columns_the_list_shows_30_characters_of_a_name(store) -> None:
    async with make_app(store).run_test(size=NARROW) as pilot:
        await pilot.pause(0.3)
        first = _lines(pilot.app.series_list)[1]  # under the header
        assert "net/sched: act_skbedit: count in per-cpu"[:30] in first, first


async def test_at_120_columns_the_claims_tab_shows_change_and_verdict(store) -> None:
    async with make_app(store).run_test(size=NARROW) as pilot:
        await pilot.press("down", "down", "3")  # page_pool: ten claims and more
        # (the table is laid out again as its rows arrive: on a loaded machine the first
        # look may come before the last; a look every tenth of a second, up to 3 s)
        for _ in range(30):
            await pilot.pause(0.1)
            header, row = _lines(pilot.app.query_one("#claims-table"))[:2]
            if re.search(r"^ \w+ +[+-]\d+\.\d+ %", row):
                break
        assert re.match(r" metric +change +verdict", header), header
        assert re.search(r"^ \w+ +[+-]\d+\.\d+ %", row), row


async def test_wrapped_quoted_lines_keep_their_quote_marker(store) -> None:
    """At 120 columns the thread is about 60 wide: a quoted diff line wrapped there keeps
    its `> ` (or `>> `) on each of its lines."""
    async with make_app(store).run_test(size=NARROW) as pilot:
        await pilot.press("down", "down", "z")  # page_pool: reviews quoting the patch
        await pilot.pause(0.3)
        thread = pilot.app.query_one("#thread-text")
        lines = [line[1:] for line in _lines(thread)]  # less the pane's padding
        width = thread.size.width - 2
        assert width < 80  # the quoted hunk header (95 characters) is wrapped
        for start in (i for i, line in enumerate(lines) if line.startswith("> @@ -503,22")):
            end = next(j for j in range(start, len(lines)) if lines[j].endswith("netmem)"))
            assert end > start and all(line.startswith("> ") for line in lines[start:end + 1]), \
                lines[start:end + 1]
        # the line ending a quoted (and twice quoted) `+` line of the hunk: the patch's own,
        # then the review's quote of it, then the quote of that quote
        tails = [line for line in lines if line.endswith("pool->alloc.count);")]
        assert len(tails) == 3 and tails[1].startswith("> ") and tails[2].startswith(">> "), tails


async def test_the_plot_legend_names_the_lines_in_words_and_markers(db, seeds_dir) -> None:
    """The Scenario tab's plot: a legend in words (what was claimed or simulated, before or
    after the patch, of which metric), each line with a marker of its own, no scenario id."""
    db = ingest_into(db, *sorted(seeds_dir.glob("*.txt")))
    with Store.open(db) as store:
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(0.3)  # the detail pane shows act_police, the one series
            await pilot.press("s")
            await app.workers.wait_for_complete()
            await pilot.pause(0.2)
            legend = _plain(app.query_one("#plot-legend"))
            for words in ("claimed before", "claimed after", "simulated before", "simulated after"):
                assert words in legend, legend
            assert "pps_per_thread" in legend and "auto-" not in legend
            drawn = app.query_one("#plot").plt.build()
            assert "auto-" not in drawn
            from reports.tui.app import PLOT_STYLE  # here: the test fails, not the module

            assert len({line.marker for line in PLOT_STYLE.values()}) == 4
            for name, line in PLOT_STYLE.items():
                assert f"{line.sample} {name}" in legend, (name, legend)
            # before and after at 1, 2 and 4 threads; at 1 they share a cell, after on top
            points = [drawn.count(PLOT_STYLE[name].marker) for name in ("claimed before", "claimed after")]
            assert min(points) >= 2 and sum(points) >= 5, points
            assert PLOT_STYLE["simulated before"].marker in drawn
