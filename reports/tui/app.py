"""The Textual app: the series list (search, filters, sort), or the mail outside any series,
beside the chosen series or mail in tabs — Thread, Diff, Claims, Scenario — with a simulate
action and a sync in the background.

No SQL and no analysis here: the store's and the library's functions do that."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import (
    DataTable,
    Footer,
    Input,
    ProgressBar,
    Static,
    TabbedContent,
    TabPane,
)
from textual.worker import get_current_worker

from analyze.errors import PatchperfError
from analyze.sim.status import Status
from corpus.browse import MailDetail, MailRow, SeriesDetail, mail_detail, other_mail, series_detail
from corpus.store import Store

from ..config import limits_from_env
from ..robot import robot_rows
from ..safe import inert, one_line
from ..terminal import track_lines
from ..view import claim_order
from .detail import (
    CLAIM_COLUMNS,
    ROBOT_COLUMNS,
    Shown,
    claim_cells,
    diff_renderable,
    robot_cells,
    robot_heading,
    robot_notes,
    summary_text,
    thread_text,
    verdict_line,
)
from .mail_list import MailList
from .series_list import DISAGREES_LEGEND, PagedList, SeriesList

VERDICTS = (None, *Status)  # what `v` cycles through
DETAIL_DELAY = 0.12  # s: moving quickly through the list reads only the row it stops on


class PlotLine(NamedTuple):
    marker: str  # plotext's
    sample: str  # what the legend shows for it
    colour: str  # plotext's name
    style: str  # the same colour as rich names it


# Before and after differ by marker as well as by colour, so that the plot reads without
# colour; claimed figures are points, simulated curves lines.
PLOT_STYLE = {
    "claimed before": PlotLine("○", "○", "orange", "dark_orange"),
    "claimed after": PlotLine("●", "●", "green", "green"),
    "simulated before": PlotLine("·", "···", "orange", "dark_orange"),
    "simulated after": PlotLine("braille", "⠒⠒⠒", "green", "green"),
}


class PatchperfApp(App[None]):
    TITLE = "patchperf"
    CSS_PATH = "app.tcss"
    BINDINGS = [
        Binding("slash", "search", "Search"),
        Binding("t", "cycle_tree", "Tree"),
        Binding("c", "toggle_claims", "Has claims"),
        Binding("v", "cycle_verdict", "Verdict"),
        Binding("o", "toggle_sort", "Sort"),
        Binding("s", "simulate", "Simulate"),
        Binding("z", "toggle_quotes", "Quotes"),
        Binding("r", "sync", "Sync"),
        Binding("m", "toggle_mail", "Other mail"),
        Binding("1", "tab('thread')", "Thread", show=False),
        Binding("2", "tab('diff')", "Diff", show=False),
        Binding("3", "tab('claims')", "Claims", show=False),
        Binding("4", "tab('scenario')", "Scenario", show=False),
        Binding("escape", "close_search", show=False),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, store: Store, feeds: Sequence[str] = (), environ: dict[str, str] | None = None
                 ) -> None:
        super().__init__()
        self.store = store
        self.feeds = tuple(feeds)
        self.environ = environ
        self.detail: Shown | None = None
        self.mail = False  # the list shows the mail outside any series, not the series
        self.unfold = False
        # analyze.sim.build.Built of the claims shown; None until the Scenario tab asks (a
        # first build loads spaCy, 0.7 s: not something to pay on every move in the list)
        self.scenarios: list[Any] | None = None
        self._trees: list[str] | None = None
        self._pending: Any = None
        self._stale: set[str] = set()  # tabs that do not show the current series or mail yet
        # of the series or mail shown, once simulated: verdict by scenario id, (scenario, Verdict)
        self._verdicts: dict[str, dict[str, Any]] = {}
        self._runs: dict[str, Any] = {}

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Input(placeholder="search series names (Enter to apply, Esc to close)", id="search")
        yield Static(id="status")
        with Horizontal(id="main"):
            yield SeriesList(self.store, id="series")
            yield MailList(id="mail")
            with Vertical(id="detail"):
                yield Static(id="summary")
                with TabbedContent(initial="thread", id="tabs"):
                    with TabPane("Thread", id="thread"), VerticalScroll():
                        yield Static(id="thread-text", classes="scroll-text")
                    with TabPane("Diff", id="diff"), VerticalScroll():
                        yield Static(id="diff-text", classes="scroll-text")
                    with TabPane("Claims", id="claims"), Vertical(id="claims-pane"):
                        yield DataTable(id="claims-table", cursor_type="row", zebra_stripes=True)
                        # what the kernel test robot measured on the series, under its claims
                        yield Static(id="robot-heading", classes="robot")
                        yield DataTable(id="robot-table", classes="robot", cursor_type="row",
                                        zebra_stripes=True)
                        yield Static(id="robot-notes", classes="robot")
                        # and the claims followed across the series' versions
                        yield Static(id="tracks-text", classes="tracks")
                    with TabPane("Scenario", id="scenario"), VerticalScroll():
                        yield Static(id="scenario-verdict", classes="scroll-text")
                        yield Static(id="plot-legend", classes="scroll-text")
                        yield _plot_widget()
                        yield Static(id="scenario-text", classes="scroll-text")
        yield ProgressBar(id="sync-bar", show_eta=False)
        yield Footer()

    def on_mount(self) -> None:
        claims = self.query_one("#claims-table", DataTable)
        for name in CLAIM_COLUMNS:
            claims.add_column(name, key=name)
        self._status()
        self.query_one(SeriesList).focus()

    @property
    def series_list(self) -> SeriesList:
        return self.query_one(SeriesList)

    @property
    def mail_list(self) -> MailList:
        return self.query_one(MailList)

    @property
    def shown_list(self) -> PagedList:
        """The list on screen: the series, or the other mail."""
        return self.mail_list if self.mail else self.series_list

    def _status(self, extra: str = "") -> None:
        lst = self.shown_list
        if self.mail and lst.total == 0 and self.mail_list.rows_read is None:
            text = "reading the mail outside any series…"
        else:
            what = "messages outside any series" if self.mail else "series"
            text = f"{lst.total:,} {what} · {lst.filter.describe()}"
            if not self.mail and self.series_list.disagreeing:
                text += f" · {DISAGREES_LEGEND}"  # what the list's mark means
        self.query_one("#status", Static).update(
            Text(one_line(text + (f" · {extra}" if extra else ""))))

    # -- the list -----------------------------------------------------------------------------

    def _refilter(self, **changes: object) -> None:
        if self.mail:
            self.mail_list.show(None, self.mail_list.filter.with_(**changes))
        else:
            self.series_list.reload(self.series_list.filter.with_(**changes))
        self._status()
        self._show_current()

    def action_search(self) -> None:
        box = self.query_one("#search", Input)
        box.add_class("shown")
        box.placeholder = (f"search {'subjects and senders' if self.mail else 'series names'}"
                           " (Enter to apply, Esc to close)")
        box.value = self.shown_list.filter.search
        box.focus()

    @on(Input.Submitted, "#search")
    def _search(self, event: Input.Submitted) -> None:
        self._refilter(search=event.value.strip())
        if not event.value.strip():
            event.input.remove_class("shown")
        self.shown_list.focus()

    def action_close_search(self) -> None:
        box = self.query_one("#search", Input)
        if box.has_class("shown"):
            box.remove_class("shown")
            self.shown_list.focus()

    def action_toggle_mail(self) -> None:
        """Switch the list between the series and the mail outside any series (read in a
        worker the first time: every stored message is looked at)."""
        self.mail = not self.mail
        self.series_list.display = not self.mail
        self.mail_list.display = self.mail
        self.shown_list.focus()
        if self.mail and self.mail_list.rows_read is None:
            self._read_other_mail()
        self._status()
        self._show_current()

    @work(thread=True, exclusive=True, group="mail")
    def _read_other_mail(self) -> None:
        try:
            with Store.open(self.store.location, readonly=True) as store:
                rows = other_mail(store)
        except PatchperfError as exc:
            self.call_from_thread(self._failed, f"cannot read the mail outside series: {exc}")
            return
        if not get_current_worker().is_cancelled:
            self.call_from_thread(self._other_mail_read, rows)

    def _other_mail_read(self, rows: list[MailRow]) -> None:
        self.mail_list.show(rows)
        if self.mail:
            self._status()
            self._show_current()

    def _series_only(self) -> bool:
        """Whether a series filter or sort may apply now; a notice when not."""
        if self.mail:
            self.notify("t, v and o filter and sort the series: m goes back to them.",
                        severity="warning", markup=False)
        return not self.mail

    def action_cycle_tree(self) -> None:
        if not self._series_only():
            return
        if self._trees is None:
            self._trees = self.store.trees()
        options: list[str | None] = [None, *self._trees]
        current = self.series_list.filter.tree
        at = options.index(current) if current in options else 0
        self._refilter(tree=options[(at + 1) % len(options)])

    def action_toggle_claims(self) -> None:
        self._refilter(has_claims=not self.shown_list.filter.has_claims)

    def action_cycle_verdict(self) -> None:
        if not self._series_only():
            return
        current = self.series_list.filter.verdict
        self._refilter(verdict=VERDICTS[(VERDICTS.index(current) + 1) % len(VERDICTS)])

    def action_toggle_sort(self) -> None:
        if not self._series_only():
            return
        self._refilter(sort="effect" if self.series_list.filter.sort == "date" else "date")

    @on(DataTable.RowHighlighted, "#series, #mail")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self._pending is not None:
            self._pending.stop()
        self._pending = self.set_timer(DETAIL_DELAY, self._show_current)

    # -- the detail pane ----------------------------------------------------------------------

    def _show_current(self) -> None:
        self._pending = None
        try:
            if self.mail:
                row = self.mail_list.current_row()
                self.show_detail(mail_detail(self.store, row) if row else None)
            else:
                series_id = self.series_list.current_id()
                self.show_detail(series_detail(self.store, series_id) if series_id else None)
        except NoMatches:  # the timer fired while the app was closing: nothing to show
            return

    def _read_again(self, detail: Shown) -> Shown | None:
        """The same series or mail read from the store again (its claims' new verdicts)."""
        if isinstance(detail, MailDetail):
            return mail_detail(self.store, detail.mail)
        return series_detail(self.store, detail.ident)

    def show_detail(self, detail: Shown | None) -> None:
        self.detail = detail
        self.scenarios = None
        self._verdicts, self._runs = {}, {}
        summary = self.query_one("#summary", Static)
        claims = self.query_one("#claims-table", DataTable)
        claims.clear()
        self._show_robot(None)
        if detail is None:
            summary.update(Text(self._nothing_shown()))
            for name in ("#thread-text", "#diff-text", "#scenario-text", "#scenario-verdict"):
                self.query_one(name, Static).update("")
            _clear_plot(self)
            return
        summary.update(summary_text(detail))
        # Only the open tab is filled now; the others when they are opened. Laying out a
        # long thread or highlighting a diff takes tens of milliseconds: paid on every
        # series the cursor rests on, it made moving through the list stutter.
        self._stale = {"thread", "diff", "claims", "scenario"}
        self._fill(self.query_one("#tabs", TabbedContent).active)

    def _nothing_shown(self) -> str:
        if self.shown_list.total:
            return ""
        if not self.mail:
            return "No series matches."
        if self.mail_list.rows_read is None:
            return ""  # still being read
        return ("No mail outside a series matches." if self.mail_list.rows_read
                else "Every stored mail belongs to a series.")

    def _fill(self, tab: str) -> None:
        """Fill one tab with the series or mail shown, if it does not show it yet."""
        detail = self.detail
        if detail is None or tab not in self._stale:
            return
        self._stale.discard(tab)
        if tab == "thread":
            self.query_one("#thread-text", Static).update(thread_text(detail, self.unfold))
        elif tab == "diff":
            self.query_one("#diff-text", Static).update(diff_renderable(detail))
        elif tab == "claims":
            table = self.query_one("#claims-table", DataTable)
            table.clear()
            for c in sorted(detail.claims, key=claim_order):
                table.add_row(*claim_cells(c), key=c["id"])
            self._show_robot(detail if isinstance(detail, SeriesDetail) else None)
        else:
            self._show_scenarios()
            self._load_scenarios()

    def _show_robot(self, detail: SeriesDetail | None) -> None:
        """The robot's rows on the series under its claims; the section is hidden for a
        series (or mail) the robot did not report on."""
        table = self.query_one("#robot-table", DataTable)
        # the columns too: sized to this series' rows, not to the widest of every one shown
        table.clear(columns=True)
        for name in ROBOT_COLUMNS:
            table.add_column(name, key=name)
        pane = self.query_one("#claims-pane", Vertical)
        if detail is not None and detail.tracks:
            pane.add_class("with-tracks")
            self.query_one("#tracks-text", Static).update(track_lines(detail.tracks))
        else:
            pane.remove_class("with-tracks")
        if detail is None or not detail.robot:
            pane.remove_class("with-robot")
            return
        pane.add_class("with-robot")
        self.query_one("#robot-heading", Static).update(robot_heading(detail))
        for row in robot_rows(detail.robot, detail.disagreements):
            table.add_row(*robot_cells(row))
        self.query_one("#robot-notes", Static).update(robot_notes(detail))

    def action_toggle_quotes(self) -> None:
        self.unfold = not self.unfold
        if self.detail is not None and "thread" not in self._stale:
            self.query_one("#thread-text", Static).update(thread_text(self.detail, self.unfold))

    def action_tab(self, tab: str) -> None:
        self.query_one("#tabs", TabbedContent).active = tab

    @on(TabbedContent.TabActivated, "#tabs")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id is not None:
            self._fill(event.pane.id)

    def _load_scenarios(self) -> None:
        if self.detail is not None and self.detail.claims and self.scenarios is None:
            self._build_scenarios(self.detail.ident, [dict(c) for c in self.detail.claims])

    @work(thread=True, exclusive=True, group="scenarios")
    def _build_scenarios(self, ident: str, claims: list[dict[str, Any]]) -> None:
        """Build the scenarios of the claims shown from their stored mail, in a thread with a
        connection of its own."""
        from corpus.jobs import verdicts

        try:
            with Store.open(self.store.location, readonly=True) as store:
                built = verdicts.stored_scenarios(store, claims, limits_from_env())
        except PatchperfError as exc:
            self.call_from_thread(self._failed, f"cannot build the scenario: {exc}")
            return
        if not get_current_worker().is_cancelled:
            self.call_from_thread(self._scenarios_built, ident, list(built.built))

    def _scenarios_built(self, ident: str, built: list[Any]) -> None:
        # a simulation of the same series may have finished first: its scenarios and curves
        # stay
        if self.detail is not None and self.detail.ident == ident and self.scenarios is None:
            self.scenarios = built
            self._show_scenarios()

    def _show_scenarios(self) -> None:
        """The scenario of the claims shown, as TOML; with its verdict and plot once run."""
        verdicts, runs = self._verdicts, self._runs
        from analyze.sim.scenario import scenario_toml

        text = self.query_one("#scenario-text", Static)
        head = self.query_one("#scenario-verdict", Static)
        detail = self.detail
        if detail is None or not detail.claims:
            head.update(Text("No claims: nothing to simulate.", style="dim"))
            text.update("")
            _clear_plot(self)
            return
        if self.scenarios is None:
            head.update(Text("building the scenario from the thread…", style="dim italic"))
            text.update("")
            _clear_plot(self)
            return
        if not self.scenarios:
            head.update(Text("No scenario can be built for these claims (they sweep no "
                             "condition the simulator models, or name no workload).", style="dim"))
            text.update("")
            _clear_plot(self)
            return
        built = self.scenarios[0]
        kept = next((c.get("verdict") for c in detail.claims
                     if c["id"] in built.claim_ids and c.get("verdict")), None)
        head.update(verdict_line(verdicts.get(built.scenario.id, kept)))
        body = Text(inert(scenario_toml(built.scenario)))
        if len(self.scenarios) > 1:
            body.append(f"\n({len(self.scenarios) - 1} more scenario(s) for these claims)",
                        style="dim")
        text.update(body)
        _draw_plot(self, built.scenario, runs.get(built.scenario.id))

    def action_simulate(self) -> None:
        if self.detail is None or not self.detail.claims:
            self.notify("No claims to simulate here.", severity="warning")
            return
        # the simulation builds the scenarios itself: the tab need not build them too
        self._stale.discard("scenario")
        self.query_one("#tabs", TabbedContent).active = "scenario"
        self.query_one("#scenario-verdict", Static).update(
            Text("simulating…", style="dim italic"))
        self.notify("Simulating…", timeout=2)
        self._simulate(self.detail.ident, [dict(c) for c in self.detail.claims])

    @work(thread=True, exclusive=True, group="simulate")
    def _simulate(self, ident: str, claims: list[dict[str, Any]]) -> None:
        """Build and judge the scenarios of the claims shown, in a thread with a connection of
        its own; keep the verdicts in the store, then show them."""
        from corpus.jobs.verdicts import judge_scenarios, stored_scenarios

        try:
            with Store.open(self.store.location, readonly=True) as store:
                built = stored_scenarios(store, claims, limits_from_env())
        except PatchperfError as exc:
            self.call_from_thread(self._failed, f"cannot simulate: {exc}")
            return
        judged = judge_scenarios(built.built, built.skipped)
        judged.fill(claims)
        try:
            with Store.open(self.store.location) as store:
                store.save_verdicts(claims)
        except PatchperfError as exc:  # read-only, locked: shown, just not kept
            self.call_from_thread(self._failed, f"the verdicts are not kept: {exc}")
        if not get_current_worker().is_cancelled:
            self.call_from_thread(self._simulated, ident, list(built.built), judged.verdicts,
                                  judged.runs)

    def _failed(self, message: str) -> None:
        self.notify(one_line(message, 300), severity="error", markup=False, timeout=8)

    def _simulated(self, ident: str, built: list[Any], judged: dict[str, Any],
                   runs: dict[str, Any]) -> None:
        if self.detail is None or self.detail.ident != ident:
            return  # the user moved on; the verdicts are kept for when they come back
        statuses = sorted({v["status"] for _, v in judged.values()})
        self.notify(one_line(f"Simulated: {', '.join(statuses) or 'no scenario'}"), markup=False)
        detail = self._read_again(self.detail)
        if detail is not None:
            self.detail = detail  # its claims now carry their verdicts
            self._stale.add("claims")
            if self.query_one("#tabs", TabbedContent).active == "claims":
                self._fill("claims")
        self.scenarios = built
        self._verdicts = {sid: v for sid, v in judged.values()}
        self._runs = runs
        self._show_scenarios()

    # -- sync ---------------------------------------------------------------------------------

    def action_sync(self) -> None:
        if not self.feeds:
            self.notify("No feeds to sync: name them (`patchperf tui lore:netdev`) or list "
                        "them in the config file.", severity="warning", markup=False)
            return
        bar = self.query_one("#sync-bar", ProgressBar)
        bar.add_class("running")
        bar.update(total=None, progress=0)
        self._status("syncing…")
        self._sync(self.feeds)

    @work(thread=True, exclusive=True, group="sync")
    def _sync(self, feeds: Sequence[str]) -> None:
        """Each feed's new mail into the store, analysed, the list refreshed after each."""
        from contextlib import nullcontext

        from corpus.jobs.sync import SyncLocked, sync_feeds, syncing
        from ingest.feeds import parse_feed

        def tick(n: int) -> None:
            self.call_from_thread(self._synced, n)

        lines = []
        try:
            parsed = [parse_feed(spec, self.environ) for spec in feeds]
            limits = limits_from_env()
            with syncing(self.store.location, limits=limits) as (store, client):
                for synced in sync_feeds(store, client, parsed, limits,
                                         progress=lambda _label: nullcontext(tick)):
                    result, analysed = synced.result, synced.analysed
                    odd = len(result.problems) + (len(analysed.problems) + len(analysed.warnings)
                                                  if analysed is not None else 0)
                    lines.append(f"{result.feed}: {len(result.new_rows)} new"
                                 + (f", {odd} not read whole (`patchperf sync` names them)" if odd else "")
                                 + (f" (stopped: {result.error})" if result.error else ""))
                    self.call_from_thread(self._refresh_after_sync)
        except SyncLocked as exc:
            lines.append(str(exc))
        except PatchperfError as exc:  # a bad feed name, the store read-only or locked
            lines.append(f"sync stopped: {exc}")
        self.call_from_thread(self._sync_done, "; ".join(lines))

    def _synced(self, n: int) -> None:
        self.query_one("#sync-bar", ProgressBar).advance(n)

    def _refresh_after_sync(self) -> None:
        self._trees = None
        self.series_list.reload()
        # new mail may answer a lone mail's series, or be lone itself: read again when shown
        self.mail_list.rows_read = None
        if self.mail:
            self._read_other_mail()
        self._status("syncing…")

    def _sync_done(self, summary: str) -> None:
        self.query_one("#sync-bar", ProgressBar).remove_class("running")
        self._status()
        self.notify(one_line(summary or "sync done", 300), markup=False)


def _plot_widget() -> Any:
    from textual_plotext import PlotextPlot

    return PlotextPlot(id="plot")


def _clear_plot(app: PatchperfApp) -> None:
    from textual_plotext import PlotextPlot

    widget = app.query_one("#plot", PlotextPlot)
    widget.plt.clear_data()
    widget.plt.clear_figure()
    widget.refresh()
    app.query_one("#plot-legend", Static).update("")


def _draw_plot(app: PatchperfApp, scenario: Any, run: Any) -> None:
    """Claimed before and after over the sweep as points; the simulated curves as lines once
    run. The title and legend are lines of their own above the plot: plotext draws a legend
    over the top left of the plot, where the first points are, and leaves out a title wider
    than the plot (most of them, at 120 columns)."""
    from textual_plotext import PlotextPlot

    widget = app.query_one("#plot", PlotextPlot)
    plt = widget.plt
    plt.clear_data()
    plt.clear_figure()
    xs = list(scenario.workload.values)
    drawn = set()
    if run is not None and run[1].predicted_before:
        for name, ys in (("simulated before", run[1].predicted_before),
                         ("simulated after", run[1].predicted_after)):
            line = PLOT_STYLE[name]
            plt.plot(xs, list(ys), color=line.colour, marker=line.marker)
            drawn.add(name)
    if scenario.claimed is not None:
        for name, ys in (("claimed before", scenario.claimed.before),
                         ("claimed after", scenario.claimed.after)):
            line = PLOT_STYLE[name]
            plt.scatter(xs, list(ys), color=line.colour, marker=line.marker)
            drawn.add(name)
    plt.xticks(xs)
    plt.xlabel(one_line(scenario.workload.sweep))
    plt.ylabel(one_line(f"{scenario.metric.name} ({scenario.metric.unit})", 40))
    title = scenario.title or f"{scenario.metric.name} over {scenario.workload.sweep}"
    app.query_one("#plot-legend", Static).update(
        _legend(title, [name for name in PLOT_STYLE if name in drawn]))
    widget.refresh()


def _legend(title: str, names: list[str]) -> Text:
    """The scenario's title over a line of the claimed figures' samples and names
    (`○ claimed before  ● claimed after`) and one of the simulated curves', each sample in
    its line's colour: two lines short enough not to wrap inside an entry at 120 columns."""
    legend = Text(one_line(title, 200), style="bold")
    for kind in ("claimed", "simulated"):
        entries = [name for name in names if name.startswith(kind)]
        if entries:
            legend.append("\n")
        for name in entries:
            legend.append(PLOT_STYLE[name].sample, style=PLOT_STYLE[name].style)
            legend.append(f" {name}" + ("  " if name != entries[-1] else ""))
    return legend


def make_app(store: Store, feeds: Sequence[str] = (), environ: dict[str, str] | None = None
             ) -> PatchperfApp:
    """The app over an open store; `feeds` are what `r` syncs (lore:netdev, ...)."""
    return PatchperfApp(store, feeds, environ)
