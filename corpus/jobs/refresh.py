"""Keeping the store's derived records in step with its raw mail.

Parse what is new (or everything, for `analyze --all`), save each message's analysis, then
rebuild the series from every stored analysis: series assembly needs the whole picture (a
patch can arrive before its cover), and rebuilding it from the stored documents is cheap
next to parsing mail.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain, islice
from typing import Any, TypeVar

from analyze.claims.extract import claims_or_warning
from analyze.errors import BadInput
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.mail.message import parse_message
from analyze.mail.series import assemble_series
from analyze.model import Message, Problem, Series
from analyze.pipeline import ANALYZER_VERSION
from analyze.robot_series import Linked, RobotMail, by_series, link_robot_mail, named_patches
from analyze.serialize import (
    claim_to_dict,
    message_for_series,
    message_to_dict,
    series_to_dict,
)
from corpus.records import StoredRaw
from corpus.store import AnalysisRecord, SeriesRecord, Store, encode_doc

from .workers import in_order

BATCH = 1000
STAGE_CHUNK = 200
T = TypeVar("T")


@dataclass(frozen=True)
class RefreshResult:
    analyzed: int
    series: int
    problems: tuple[Problem, ...]
    warnings: tuple[Problem, ...] = ()  # odd but not fatal: the mail was analysed


def analyze_rows(
    store: Store,
    rows: Iterable[int] | None = None,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[int], None] | None = None,
    everything: bool = False,
    claims: bool = True,
    jobs: int = 1,
    scheduler: str | None = None,
    arriving: Iterable[StoredRaw] = (),
) -> RefreshResult:
    """Analyze the given stored rows (default: those not analyzed by this version; with
    `everything`, all), then rebuild every series. A mail that cannot be understood stays
    stored and is reported. `claims=False` skips claim extraction (a quick backfill;
    `analyze --all` reads them later). `jobs` > 1 analyses in that many worker processes
    while this one reads and writes; the results are the same, written in the same order.
    `scheduler` (a Dask scheduler's address) analyses on that cluster's workers instead.
    `arriving` is mail this run stores as it goes (`corpus.jobs.ingest.storing`), analysed after
    the rows (as it is stored: the workers need not wait for a backfill's last epoch)."""
    raws: Iterable[StoredRaw]
    if everything:
        raws = store.iter_raw()  # every stored message, streamed
    elif rows is None:
        # streamed too: a backfill's million row numbers would be 80 MB as a list and a set
        raws = store.iter_unanalyzed(ANALYZER_VERSION)
    else:
        raws = store.iter_raw(rows)
    # The rows' pages are all read before the first arriving mail is stored, whose row
    # numbers are higher: nothing is analysed twice.
    raws = chain(raws, arriving)
    problems: list[Problem] = []
    warnings: list[Problem] = []
    analyzed = 0
    pending: list[AnalysisRecord] = []
    pending_claims: list[tuple[int, list[dict[str, Any]]]] = []
    chunks = _kept_before_analysis(store, _chunks(raws, STAGE_CHUNK))
    # the workers first: a cluster may take seconds to answer, the store's lock waits for none
    with in_order(analyse_chunk, jobs, scheduler) as run, store.batch(), fewer_collections():
        for results in run(chunks, limits, claims):
            for one in results:
                warnings += [Problem(one.origin, w) for w in one.warnings]
                if one.record is None:
                    problems.append(Problem(one.origin or f"message row {one.row}", one.refused or ""))
                    store.save_rejection(one.row, ANALYZER_VERSION, one.refused or "")
                    continue
                if one.claims is not None:
                    pending_claims.append((one.row, one.claims))
                pending.append(one.record)
                analyzed += 1
                if progress:
                    progress(1)
            if len(pending) >= BATCH:
                _flush(store, pending, pending_claims)
        _flush(store, pending, pending_claims)
    # What the analysis left alive (the readers' caches, spaCy once loaded) outlives the
    # series rebuild: kept out of the collector's full passes while the series are built.
    gc.freeze()
    try:
        series_count = rebuild_series(store)
    finally:
        gc.unfreeze()
    return RefreshResult(analyzed, series_count, tuple(problems), tuple(warnings))


def _kept_before_analysis(store: Store, chunks: Iterable[list[StoredRaw]]
                          ) -> Iterator[list[StoredRaw]]:
    """The chunks, each committed before it goes to the analysis: the arriving mail in it
    was stored as the chunk was read. A run stopped while it analyses (the first chunk
    waits a second for spaCy to load), or rebuilds the series, keeps all the mail it
    handed over, as when storing came first; the next run redoes the analysis."""
    for chunk in chunks:
        store.commit_pending()
        yield chunk


@dataclass(frozen=True, slots=True)
class Analysed:
    """What analysing one stored mail gave: its record and claims, or why it was refused.
    Plain data: it crosses from a worker process to the one that writes."""

    row: int
    origin: str
    record: AnalysisRecord | None  # None: refused
    claims: list[dict[str, Any]] | None = None  # None: not read (`claims=False`)
    warnings: tuple[str, ...] = ()
    refused: str | None = None


def analyse_chunk(chunk: list[StoredRaw], limits: Limits, claims: bool) -> list[Analysed]:
    """Analyse a few hundred stored mails, a stage at a time (parse them all, then read
    their claims, then build their records) rather than all stages per message: each
    stage's code and tables stay in the CPU's caches, about 8 % faster. Depends on the mail
    alone, so any process may run it; the documents are encoded here, not by the writer."""
    out: list[Analysed] = []
    parsed: list[tuple[StoredRaw, Message]] = []
    for raw in chunk:
        try:
            parsed.append((raw, parse_message(raw.data, raw.origin, limits)))
        except BadInput as exc:
            out.append(Analysed(raw.row, raw.origin, None, refused=str(exc)))
    found: dict[int, tuple[list[dict[str, Any]], str | None]] = {}
    if claims:
        for raw, message in parsed:
            read, warning = claims_or_warning(message, limits)
            found[raw.row] = ([claim_to_dict(c) for c in read], warning)
    for raw, message in parsed:
        docs, warning = found.get(raw.row, (None, None))
        record = AnalysisRecord.from_message(raw.row, message, analyzer_version=ANALYZER_VERSION,
                                             doc=encode_doc(message_to_dict(message)))
        out.append(Analysed(raw.row, raw.origin, record, docs,
                            message.warnings + ((warning,) if warning else ())))
    out.sort(key=lambda a: a.row)  # the order the rows came in, refused or not
    return out


def _chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of `size` items (itertools.batched from Python 3.12 on)."""
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


@contextmanager
def fewer_collections(young: int = 100_000) -> Iterator[None]:
    """Let the cyclic garbage collector run less often while a batch is analysed.

    Analysis allocates many objects per mail that mostly live until the batch is written,
    so the default threshold (700 allocations) starts a collection every few messages, each
    walking what the caches and the spaCy pipeline hold: about a tenth of the batch's time.
    Claim reading keeps more alive between passes (the figures in the lexer's cache): at
    20,000 its young passes still took 0.19 s over the 20,000-message benchmark, at 100,000
    0.09 s. Reference counting still frees everything at once; only cycles wait longer."""
    before = gc.get_threshold()
    gc.set_threshold(max(young, before[0]), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _flush(store: Store, pending: list[AnalysisRecord],
           pending_claims: list[tuple[int, list[dict[str, Any]]]]) -> None:
    # A message's claims go in before its analysis: a message counts as analysed only
    # once both are stored, so a crash between the two is redone on the next run.
    store.save_claims_many(pending_claims)
    store.save_analyses(pending)
    pending_claims.clear()
    pending.clear()


def stored_messages(store: Store, robot: RobotMail | None = None) -> list[Message]:
    """Every analysed message, as much of it as series assembly reads: a million of them
    are held at once (`message_for_series`; the strings they share are shared once).
    `robot` gathers the robot reports and applied commits on the way."""
    shared: dict[Any, Any] = {}
    if robot is None:
        return [message_for_series(doc, shared) for doc in store.iter_message_docs()]
    out = []
    for doc in store.iter_message_docs():
        out.append(message_for_series(doc, shared))
        robot.add(doc)
    return out


def rebuild_series(store: Store) -> int:
    """Rebuild every series from the stored analyses. The store's write lock is held from
    the read to the write: another process (a sync beside `analyze --all`) storing
    analyses meanwhile would otherwise have its rebuild overwritten by this one's older
    picture. The last rebuild to take the lock reads everything committed before it."""
    with store.batch():
        robot = RobotMail()
        messages = stored_messages(store, robot)
        series = assemble_series(messages)
        linked = _link_robot_reports(store, robot, series, messages)
        store.save_robot_reports((one.key, one.link.series, one.link.rule, one.link.reason,
                                  one.entry) for one in linked)
        entries = by_series(linked)
        store.save_series(
            (SeriesRecord.from_series(s, doc=_with_robot(series_to_dict(s), entries))
             for s in series),
            replace_all=True,
        )
    return len(series)


def _link_robot_reports(store: Store, robot: RobotMail, series: Sequence[Series],
                        messages: list[Message]) -> list[Linked]:
    """Each stored robot report linked to the series it tested, with the findings read from
    it: redone with every rebuild, so a report stored before its series links once the
    series comes, and `analyze --all` keeps the links. Costs nothing without reports."""
    if not robot.reports:
        return []
    subject_of = named_patches(robot, ((m.key, m.subject.name) for m in messages
                                       if m.kind == "patch"))
    keys = [report.key for report, _ in robot.reports]
    wanted_keys = set(keys)
    findings: dict[str, list[dict[str, Any]]] = {}
    for claim in store.claim_docs(keys=keys):
        if claim.get("found_in") in wanted_keys:
            findings.setdefault(claim["found_in"], []).append(claim)
    return link_robot_mail(robot, series, subject_of, findings)


def _with_robot(doc: dict[str, Any], entries: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    if doc["id"] in entries:
        doc["robot_reports"] = entries[doc["id"]]
    return doc



def reanalyze_all(store: Store, limits: Limits = DEFAULT_LIMITS, *, verdicts: bool = False,
                  jobs: int = 1, scheduler: str | None = None,
                  progress: Callable[[int], None] | None = None) -> tuple[RefreshResult, int]:
    """`patchperf analyze --all`: every stored mail analysed again (after an upgrade, or
    after `--no-analyze`); with `verdicts`, every claim series judged and the verdicts kept
    (the TUI's `v` filter). Returns the analysis and how many claims were judged."""
    refreshed = analyze_rows(store, limits=limits, everything=True, progress=progress, jobs=jobs,
                             scheduler=scheduler)
    if not verdicts:
        return refreshed, 0
    from .verdicts import judge_stored_claims

    every = store.claim_docs()
    judge_stored_claims(store, every, limits)
    return refreshed, store.save_verdicts(every)
