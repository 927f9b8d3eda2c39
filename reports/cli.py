"""The `patchperf` command: argument parsing over library functions, nothing more.

Results go to stdout (JSON alone with `--format json`); progress, warnings and errors to
stderr. Exit codes (docs/cli.md): 0 all inputs done; 1 done, but some inputs were
rejected; 2 usage error or nothing usable at all. Only the project's own errors are turned
into one-line messages: anything else is a bug and surfaces as one.
"""

from __future__ import annotations

import gc
import io
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar

import click
from click.core import ParameterSource

from analyze.errors import PatchperfError, StoreError
from analyze.model import DIRECTIONS, METRICS, Problem
from analyze.sim.status import Status

from .config import limits_from_env
from .output import emit, write_file
from .safe import inert, json_text
from .since import parse_since

if TYPE_CHECKING:
    from corpus.location import StoreLocation
    from corpus.store import Store

FORMATS = ("table", "json", "markdown", "html")
EXIT_OK, EXIT_PARTIAL, EXIT_UNUSABLE = 0, 1, 2
F = TypeVar("F", bound=Callable[..., Any])


class Settings:
    """Global options, which may be given before or after the subcommand."""

    def __init__(self) -> None:
        self.db: str | None = None
        self.verbose = False
        self.quiet = False


def _settings(ctx: click.Context) -> Settings:
    root = ctx.find_root()
    if not isinstance(root.obj, Settings):
        root.obj = Settings()
    return root.obj


def _set(name: str) -> Callable[[click.Context, click.Parameter, Any], None]:
    def callback(ctx: click.Context, _param: click.Parameter, value: Any) -> None:
        if value not in (None, False):
            setattr(_settings(ctx), name, value)

    return callback


def global_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option("--quiet", is_flag=True, expose_value=False, callback=_set("quiet"),
                     help="Print no progress, only results and errors.")(f)
    f = click.option("-v", "--verbose", is_flag=True, expose_value=False, callback=_set("verbose"),
                     help="Say more on stderr.")(f)
    f = click.option("--db", metavar="URL_OR_PATH", expose_value=False, callback=_set("db"),
                     help="The store (default: $PATCHPERF_DB, else a file in the user data dir).")(f)
    return f


def format_option(*choices: str, default: str = "table") -> Callable[[F], F]:
    return click.option("--format", "fmt", type=click.Choice(choices or FORMATS), default=default,
                        show_default=True)


def output_option(f: F) -> F:
    return click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True),
                        help="Write to FILE instead of stdout.")(f)


def jobs_option(f: F) -> F:
    return click.option("--jobs", "-j", type=click.IntRange(1, 256), default=1, show_default=True,
                        help="Analyse in N worker processes (one per core for a backfill).")(f)


def scheduler_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--scheduler", metavar="ADDRESS", envvar="PATCHPERF_SCHEDULER", default=None,
        help="Analyse on the workers of the Dask cluster whose scheduler is at ADDRESS "
             "(tcp://HOST:8786; default $PATCHPERF_SCHEDULER; needs patchperf[cluster]).")(f)


def _cluster(ctx: click.Context, jobs: int, scheduler: str | None,
             analyse: bool = True) -> str | None:
    """The checked scheduler address to analyse on, or None to analyse here. Given on the
    command line it excludes --jobs N; from $PATCHPERF_SCHEDULER, an explicit --jobs wins,
    and a run that does not analyse (`--no-analyze`) ignores it."""
    if scheduler is None:
        return None
    if ctx.get_parameter_source("scheduler") is ParameterSource.ENVIRONMENT:
        if not analyse:
            return None
        if ctx.get_parameter_source("jobs") is ParameterSource.COMMANDLINE:
            return None
    elif jobs > 1:
        raise click.UsageError("--scheduler analyses on the cluster's workers: not with --jobs N")
    from corpus.jobs.cluster import check_address

    return check_address(scheduler)


def _warn(problems: Sequence[Problem], level: str = "warning") -> None:
    for problem in problems:
        click.echo(f"patchperf: {level}: {inert(str(problem))}", err=True)


def _report_problems(problems: Sequence[Problem], usable: int) -> int:
    """Print each rejected input on one line and return the exit code: 2 when nothing usable
    was read, 1 when some input was rejected, else 0. A file skipped in a folder for being
    no mail is only a warning, and is not listed when nothing at all was usable (the folder's
    own line says so)."""
    if usable == 0 and problems:
        _warn([p for p in problems if not p.skipped] or problems, "error")
        return EXIT_UNUSABLE
    _warn(problems)
    return EXIT_PARTIAL if any(not p.skipped for p in problems) else EXIT_OK


def _open_store(ctx: click.Context, readonly: bool = False) -> Store:
    from corpus.store import Store

    return Store.open(_store_location(ctx), readonly=readonly)


def _store_location(ctx: click.Context) -> StoreLocation:
    """`--db`, else `$PATCHPERF_DB`, else the file in the user data dir."""
    from corpus.location import resolve_store

    return resolve_store(_settings(ctx).db or None)


@contextmanager
def _progress(ctx: click.Context, label: str) -> Iterator[Callable[[int], None]]:
    """A rich progress counter on stderr when it is a terminal and --quiet is off."""
    settings = _settings(ctx)
    if settings.quiet or not sys.stderr.isatty():
        yield lambda _n: None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(), TextColumn("{task.description}"), TextColumn("{task.completed:,}"),
        TimeElapsedColumn(), console=Console(stderr=True), transient=True,
    ) as bar:
        task = bar.add_task(label, total=None)
        yield lambda n: bar.advance(task, n)


def _verbose(ctx: click.Context, message: str) -> None:
    if _settings(ctx).verbose:
        click.echo(f"patchperf: {message}", err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@global_options
@click.version_option(package_name="patchperf")
def cli() -> None:
    """patchperf: read netdev threads, find the performance claims, check them."""


@cli.command()
@click.argument("sources", nargs=-1, required=True)
@click.option("--no-analyze", is_flag=True, help="Only store; analyze later with `analyze --all`.")
@click.option("--no-claims", is_flag=True, help="Analyze without reading claims (`analyze --all` reads them later).")
@click.option("--query", default=None, metavar="Q", help="With a lore:LIST source: store what the list's search finds (e.g. 's:act_police').")
@click.option("--threads", "whole_threads", is_flag=True, help="With --query: the whole threads of what is found.")
@jobs_option
@scheduler_option
@global_options
@click.pass_context
def ingest(ctx: click.Context, sources: tuple[str, ...], no_analyze: bool, no_claims: bool,
           query: str | None, whole_threads: bool, jobs: int, scheduler: str | None) -> None:
    """Store new messages from files, folders, lore or openwall message URLs (or what a lore
    list's search finds), then analyze them."""
    from corpus.jobs.ingest import ingest as ingest_sources

    from .config import sync_settings

    scheduler = _cluster(ctx, jobs, scheduler, analyse=not no_analyze)
    started = time.perf_counter()
    if query is not None and len(sources) != 1:
        raise click.UsageError("--query searches one list: give one lore:LIST source")
    label = "storing" if no_analyze else "storing and analyzing"
    with _open_store(ctx) as store, _progress(ctx, label) as tick:
        done = ingest_sources(store, sources, limits_from_env(), query=query,
                              whole_threads=whole_threads, analyse=not no_analyze,
                              claims=not no_claims, jobs=jobs, scheduler=scheduler, progress=tick,
                              environ=sync_settings()[1] if query is not None else None)
    if done.analysed is not None:
        _warn(done.analysed.warnings)
    code = _report_problems(done.problems, done.usable)
    click.echo(done.summary()
               + (f"; {sum(not p.skipped for p in done.problems)} rejected" if code else ""))
    _verbose(ctx, f"{done.stored.read:,} messages read in {time.perf_counter() - started:.2f} s")
    ctx.exit(code)


@cli.command()
@click.argument("paths", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Re-analyze everything stored.")
@format_option()
@click.option("--verdicts", is_flag=True, help="Build and judge each claim series' scenario (5-300 ms a series); with --all, keep the verdicts in the store.")
@jobs_option
@scheduler_option
@global_options
@click.pass_context
def analyze(ctx: click.Context, paths: tuple[str, ...], all_: bool, fmt: str,
            verdicts: bool, jobs: int, scheduler: str | None) -> None:
    """Analyze files in memory (the store is not touched), or everything stored (--all)."""
    if all_ == bool(paths):
        raise click.UsageError("give PATH... or --all (not both)")
    if paths and ctx.get_parameter_source("scheduler") is ParameterSource.COMMANDLINE:
        raise click.UsageError("--scheduler analyses the stored mail: with --all")
    limits = limits_from_env()
    started = time.perf_counter()
    if all_:
        from corpus.jobs.refresh import reanalyze_all

        scheduler = _cluster(ctx, jobs, scheduler)
        with _open_store(ctx) as store, _progress(ctx, "analyzing") as tick:
            refreshed, kept = reanalyze_all(store, limits, verdicts=verdicts, jobs=jobs,
                                              scheduler=scheduler, progress=tick)
        _warn(refreshed.warnings)
        code = _report_problems(refreshed.problems, refreshed.analyzed)
        click.echo(f"{refreshed.analyzed} analyzed, {refreshed.series} series in the store"
                   + (f", {kept} claims judged" if verdicts else ""))
        _verbose(ctx, f"{refreshed.analyzed:,} messages analyzed in {time.perf_counter() - started:.2f} s")
        ctx.exit(code)

    from corpus.jobs.files import analyze_files
    from corpus.jobs.verdicts import Judged, judge_claims

    from .document import analysis_document

    analysis = analyze_files(paths, limits)
    _warn([Problem(m.origin, w) for m in analysis.messages for w in m.warnings]
          + list(analysis.warnings))
    code = _report_problems(analysis.problems, len(analysis.messages))
    if analysis.messages:
        # the HTML report plots the simulated curves: it judges the claims in any case
        judged = (judge_claims(analysis.claims, analysis.messages) if verdicts or fmt == "html"
                  else Judged())
        doc = analysis_document(analysis, judged.verdicts)
        emit(doc, fmt, runs=judged.runs, title=f"patchperf analysis of {', '.join(paths)}")
    _verbose(ctx, f"{len(analysis.messages):,} messages analyzed in {time.perf_counter() - started:.2f} s")
    ctx.exit(code)


@cli.command()
@click.argument("ident", required=False, metavar="[SERIES_ID|MESSAGE_ID]")
@click.option("--all", "all_", is_flag=True, help="Everything stored.")
@click.option("--since", default=None, metavar="AGE", help="Series and messages of the last AGE (7d, 12h, 2w) or since a date.")
@click.option("--tree", default=None, metavar="TREE", help="Only series for this tree (net-next, bpf, ...).")
@click.option("--author", default=None, help="Only series whose author's From contains this text.")
@click.option("--verdict", "verdict_filter", type=click.Choice([s.value for s in Status]), multiple=True,
              help="Only series with a claim judged so (repeatable; implies --verdicts).")
@click.option("--disagree", is_flag=True,
              help="Only series the kernel test robot contradicts: a claimed improvement it "
                   "measured as a regression in the same benchmark family, or the reverse.")
@format_option()
@output_option
@click.option("--verdicts/--no-verdicts", default=None, help="Build and judge each shown claim's scenario (5-300 ms a claim series); html does unless --no-verdicts.")
@global_options
@click.pass_context
def report(ctx: click.Context, ident: str | None, all_: bool, since: str | None,
           tree: str | None, author: str | None, verdict_filter: tuple[str, ...], disagree: bool,
           fmt: str, output: str | None, verdicts: bool | None) -> None:
    """Series from the store with their claims, largest claimed change first (default: the
    last 7 days)."""
    from corpus.query import select_document

    from .view import build_view, keep_disagreeing, keep_verdict, view_document

    if sum(map(bool, (ident, all_, since))) > 1:
        raise click.UsageError("give one of SERIES_ID|MESSAGE_ID, --all, --since")
    if ident and (tree or author):
        raise click.UsageError("--tree and --author select series: not with SERIES_ID|MESSAGE_ID")
    from corpus.jobs.verdicts import Judged, judge_stored_claims

    judged = Judged()
    with _open_store(ctx, readonly=True) as store:
        if ident:
            doc = select_document(store, ident=ident)
            if not doc["series"] and not doc["messages"]:
                raise click.UsageError(f"{ident}: no such series or message in {store.location}")
            what = ident
        else:
            when = None if all_ else parse_since(since or "7d")
            doc = select_document(store, since=when, tree=tree, author=author)
            what = "everything stored" if all_ else f"since {since or '7d'}"
            stored = store.counts().messages
            if not all_ and not doc["series"] and not doc["messages"] and stored:
                # "Nothing to report." alone read as an empty store
                click.echo(f"patchperf: nothing {what} among the {stored:,} messages stored; "
                           "--all reports every series, --since AGE an older window", err=True)
        if verdict_filter and verdicts is False:
            raise click.UsageError("--verdict needs the verdicts: not with --no-verdicts")
        if verdict_filter or (fmt == "html" if verdicts is None else verdicts):
            judged = judge_stored_claims(store, doc["claims"], limits_from_env())
    view = build_view(doc)
    if verdict_filter:
        view = keep_verdict(view, verdict_filter)
    if disagree:
        view = keep_disagreeing(view)
    # the series ranked as every format shows them
    emit(view_document(view), fmt, output, runs=judged.runs, view=view,
          title=f"patchperf report: {what}")


@cli.command()
@click.option("--series", default=None, metavar="ID", help="Claims of one series (its id or a member's Message-ID).")
@click.option("--author", default=None, help="Claims first written by this author (part of the From).")
@click.option("--metric", type=click.Choice(METRICS), default=None)
@click.option("--direction", type=click.Choice(DIRECTIONS), default=None)
@click.option("--since", default=None, metavar="AGE", help="Claims found in mail of the last AGE (7d, 12h) or since a date.")
@format_option()
@output_option
@click.option("--verdicts", is_flag=True, help="Build and judge each shown claim's scenario (5-300 ms a claim series).")
@global_options
@click.pass_context
def claims(ctx: click.Context, series: str | None, author: str | None, metric: str | None,
           direction: str | None, since: str | None, fmt: str, output: str | None,
           verdicts: bool) -> None:
    """Performance claims from the store, filtered."""
    from corpus.jobs.verdicts import Judged, judge_stored_claims
    from corpus.query import select_claims

    from .view import reading_order

    when = parse_since(since) if since else None
    judged = Judged()
    with _open_store(ctx, readonly=True) as store:
        found = reading_order(select_claims(store, series=series, author=author, metric=metric,
                                            direction=direction, since=when))
        if verdicts or fmt == "html":
            judged = judge_stored_claims(store, found, limits_from_env())
    emit({"messages": [], "series": [], "claims": found}, fmt, output, runs=judged.runs,
          title="patchperf claims")


@cli.command()
@click.argument("feeds", nargs=-1, metavar="[FEED...]")
@click.option("--since", default=None, metavar="AGE|DATE", help="A first run starts here (7d, 2024-03-01) instead of at the newest page.")
@click.option("--wait", is_flag=True, help="Wait for another running sync instead of exiting.")
@click.option("--no-analyze", is_flag=True, help="Store only; `analyze` reads the mail later.")
@click.option("--git", "git_path", type=click.Path(file_okay=False, exists=True), default=None,
              help="Read the list's public-inbox git epochs cloned here (a backfill) instead of HTTP.")
@jobs_option
@scheduler_option
@global_options
@click.pass_context
def sync(ctx: click.Context, feeds: tuple[str, ...], since: str | None, wait: bool,
         no_analyze: bool, git_path: str | None, jobs: int, scheduler: str | None) -> None:
    """The cron job: each feed's new mail into the store, from its cursor (FEED: lore:LIST,
    openwall:LIST or patchwork:PROJECT; default: the config file's feeds)."""
    from corpus.jobs.sync import SyncLocked, sync_feeds, syncing
    from ingest.feeds import parse_feed

    from .config import config_path, sync_settings

    scheduler = _cluster(ctx, jobs, scheduler, analyse=not no_analyze)
    configured, environ = sync_settings()
    feeds = feeds or tuple(configured)
    if not feeds:
        raise click.UsageError(f"name the feeds to sync (e.g. `patchperf sync lore:netdev`) "
                               f"or list them in {config_path()}")
    parsed = [parse_feed(f, environ) for f in feeds]
    if git_path and len(parsed) != 1:
        raise click.UsageError("--git reads one list's epochs: name one feed")
    start = parse_since(since) if since else None
    quiet = _settings(ctx).quiet
    failed = False
    limits = limits_from_env()
    try:
        with syncing(_store_location(ctx), wait=wait, limits=limits) as (store, client):
            for synced in sync_feeds(store, client, parsed, limits, since=start,
                                     git_path=Path(git_path) if git_path else None,
                                     analyse=not no_analyze, jobs=jobs, scheduler=scheduler,
                                     progress=lambda label: _progress(ctx, label), warn=_warn):
                if synced.result.error:
                    failed = True
                    click.echo(f"patchperf: error: {inert(synced.summary)}", err=True)
                    continue
                failed |= synced.rejected  # done, but some mail was rejected: exit 1
                if not quiet:
                    click.echo(inert(synced.summary))
    except SyncLocked as exc:
        click.echo(f"patchperf: {inert(str(exc))}", err=True)
        ctx.exit(EXIT_OK)
    ctx.exit(EXIT_PARTIAL if failed else EXIT_OK)


@cli.command()
@click.argument("ref", metavar="SCENARIO.toml|SCENARIO_ID|CLAIM_ID")
@format_option("table", "json")
@click.option("--controls", is_flag=True,
              help="Also judge the negative controls (no change, 10x, flipped, shuffled, "
                   "noise, a mechanism with no effect) by the same rules.")
@global_options
@click.pass_context
def simulate(ctx: click.Context, ref: str, fmt: str, controls: bool) -> None:
    """Run a scenario (a file, a library id, or the one built for a stored claim): the
    predicted curve beside the claimed one, and the verdict."""
    from corpus.jobs.verdicts import simulate as simulate_ref

    from .simulation import controls_rows, render_simulation, simulation_document

    done = simulate_ref(ref, _store_location(ctx), limits_from_env())
    doc = simulation_document(done.scenario, done.verdict)
    if controls and done.scenario.claimed is not None:
        from analyze.sim.controls import run_controls
        from corpus.library import constants_for

        doc["simulation"]["controls"] = controls_rows(
            run_controls(done.scenario, constants_for(done.scenario)))
    if done.claim is not None:
        doc["claims"] = [done.claim]
    if fmt == "json":
        click.echo(json_text(doc))
        return
    from rich.console import Console

    render_simulation(doc, Console(highlight=False, width=shutil.get_terminal_size((160, 40)).columns))


@cli.group()
@global_options
def scenario() -> None:
    """Scenario definitions: the library in corpus/scenarios, or a TOML file."""


def _scenario_of(ctx: click.Context, ref: str) -> Any:
    """A scenario file, a library id, or the scenario built for a stored claim."""
    from corpus.jobs.verdicts import scenario_of

    return scenario_of(ref, _store_location(ctx), limits_from_env())


@scenario.command("show")
@click.argument("ref", metavar="SCENARIO.toml|SCENARIO_ID|CLAIM_ID")
@global_options
@click.pass_context
def scenario_show(ctx: click.Context, ref: str) -> None:
    """Print a scenario as TOML."""
    from analyze.sim.scenario import scenario_toml

    click.echo(inert(scenario_toml(_scenario_of(ctx, ref))), nl=False)


@scenario.command("export")
@click.argument("ref", metavar="SCENARIO.toml|SCENARIO_ID|CLAIM_ID")
@format_option("toml", "sh", default="toml")
@output_option
@global_options
@click.pass_context
def scenario_export(ctx: click.Context, ref: str, fmt: str, output: str | None) -> None:
    """Export a scenario: TOML (loads back to the same scenario) or `run.sh`, the experiment
    rebuilt from the commands patchperf parsed: known tools with checked arguments and the
    loop values run, anything else in the mail is a comment (patchperf never runs it)."""
    from analyze.sim.experiment import experiment_sh
    from analyze.sim.scenario import scenario_toml

    found = _scenario_of(ctx, ref)
    text = scenario_toml(found) if fmt == "toml" else experiment_sh(found)
    if output is None:
        click.echo(inert(text), nl=False)
        return
    write_file(output, text, "cannot write")


@cli.command()
@click.option("--full", is_flag=True, help="Also match every index to its table (slower).")
@global_options
@click.pass_context
def check(ctx: click.Context, full: bool) -> None:
    """Read every page of the store for damage (a command finds it only where it reads);
    exit 2 with one line when the file is corrupted. Never writes."""
    started = time.perf_counter()
    with _open_store(ctx, readonly=True) as store:
        store.check(full=full)
        counts = store.counts()
        size = store.size_bytes()
    click.echo(f"{store.location}: ok, {counts.messages:,} messages, {size / 2**20:,.1f} MiB "
               f"read in {time.perf_counter() - started:.1f} s")


@cli.command()
@click.argument("feeds", nargs=-1, metavar="[FEED...]")
@global_options
@click.pass_context
def tui(ctx: click.Context, feeds: tuple[str, ...]) -> None:
    """The terminal app: series, their threads, diffs, claims and scenarios (FEED...: what
    `r` syncs; default the config file's feeds)."""
    from ingest.feeds import parse_feed

    from .config import sync_settings
    from .tui.app import make_app

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        # without one, Textual's driver spun at 70 % CPU for as long as it was left running
        raise click.UsageError("the terminal app needs a terminal (stdin and stdout are not "
                               "one); `patchperf report` prints to a pipe or a file")
    configured, environ = sync_settings()
    chosen = feeds or tuple(configured)
    for spec in chosen:
        parse_feed(spec, environ)  # a bad name is a usage error now, not when `r` is pressed
    location = _store_location(ctx)
    if location.path is not None and not location.path.exists():
        # a reading command, as report, claims and simulate: a mistyped --db is no new store
        raise StoreError(f"{location.path}: no such store")
    try:
        store = _open_store(ctx)
    except StoreError:
        # a store this user may only read (a shared one, a read-only mount): browsing needs
        # no more; `s` and `r` then say they cannot keep what they find
        store = _open_store(ctx, readonly=True)
    with store:
        app = make_app(store, chosen, environ)
        app.run()
    # Textual sets it to 1 when the app stopped on an error (a bug: shown as a traceback)
    ctx.exit(app.return_code or EXIT_OK)


def this_command(argv0: str | None = None) -> str:
    """How to run this patchperf again, for a hint: `patchperf` when that name finds this
    very program on PATH, else its path (after `make demo`, `.venv/bin/patchperf`, which is
    not on PATH: the hint to run `patchperf` failed there)."""
    program = Path(argv0 if argv0 is not None else sys.argv[0])
    if program.name != "patchperf":
        return "patchperf"  # (python -m, or a test's runner: no path of its own to give)
    found = shutil.which("patchperf")
    if found and Path(found).resolve() == program.resolve():
        return "patchperf"
    try:
        return str(program.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(program.resolve())


@cli.command()
@format_option()
@click.option("--dir", "demo_dir", default=".demo", show_default=True, type=click.Path(file_okay=False),
              help="Where the demo store is made (never the user's store).")
@global_options
@click.pass_context
def demo(ctx: click.Context, fmt: str, demo_dir: str) -> None:
    """Ingest the bundled corpus into a fresh demo store of its own and report on it."""
    from corpus.jobs.demo import make_demo

    if _settings(ctx).db:
        raise click.UsageError("the demo makes a store of its own: give --dir, not --db")

    from .view import build_view

    demo = make_demo(Path(demo_dir), limits_from_env())
    code = _report_problems(demo.stored.problems + list(demo.analysed.problems),
                            demo.analysed.analyzed)
    html = Path(demo_dir) / "report.html"
    emit(demo.doc, "html", str(html), runs=demo.judged.runs,
          title="patchperf demo: the bundled corpus")
    click.echo(f"demo store {demo.store}: {demo.stored.stored} messages, {demo.analysed.series} "
               f"series, {len(demo.judged.verdicts)} claims judged; HTML report {html}; browse "
               f"it with `{this_command()} --db {demo.store} tui`", err=True)
    emit(demo.doc, fmt, runs=demo.judged.runs, view=build_view(demo.doc))
    ctx.exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run the CLI, turning the project's own errors into one line each."""
    for stream in (sys.stdout, sys.stderr):
        # A terminal or pipe that cannot show a character gets `?`, not a traceback.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="replace")
    try:
        # Without standalone mode click returns ctx.exit()'s code instead of raising SystemExit.
        code = cli.main(args=list(argv) if argv is not None else None, prog_name="patchperf",
                        standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        # One line, like every other error; the message may quote a file name or an argument.
        hint = " (see --help)" if isinstance(exc, click.UsageError) else ""
        click.echo(f"patchperf: error: {inert(exc.format_message())}{hint}", err=True)
        return EXIT_UNUSABLE if exc.exit_code == 2 else exc.exit_code
    except click.exceptions.Abort:
        click.echo("patchperf: interrupted", err=True)
        return 130
    except PatchperfError as exc:
        click.echo(f"patchperf: error: {inert(str(exc))}", err=True)
        return EXIT_UNUSABLE
    return code if isinstance(code, int) else EXIT_OK


def _interrupt(_signum: int, frame: FrameType | None) -> None:
    """Ctrl-C as a KeyboardInterrupt, except inside Python's import machinery: raised in a
    module lock's callback it would be "ignored" with a traceback printed and the command
    would go on. There it is sent again a moment later, once the import is done."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            timer = threading.Timer(0.02, os.kill, (os.getpid(), signal.SIGINT))
            timer.daemon = True
            timer.start()
            return
        frame = frame.f_back
    raise KeyboardInterrupt


def run() -> None:
    """The `patchperf` command as installed: main(), then the process exits.

    What is still alive (spaCy's pipeline and modules, the claim readers' caches) is
    frozen out of the collector's passes at shutdown, which cost 0.34 s after ingesting
    20,000 messages with claims (0.03 s frozen). Frozen objects caught in reference cycles
    are then never collected, so their finalizers never run: every command closes what it
    opens (stores, files) before main() returns. Tests call main() and keep their collector."""
    # from here a Ctrl-C is a KeyboardInterrupt again: the command rolls back what it has
    # open and says "interrupted" (reports/entry.py quieted it while the command loaded)
    signal.signal(signal.SIGINT, _interrupt)
    code = main()
    # The work is done and committed: a Ctrl-C now would only interrupt the interpreter's
    # shutdown and print a traceback from its atexit handlers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
