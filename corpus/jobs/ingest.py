"""`patchperf ingest`: read sources, store what is new, verbatim, and analyse it.

Storing reads only whether the bytes are a mail and their Message-ID, to store each mail
once; interpreting stored mail is the analysis's job (refresh.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Problem
from corpus.store import Store, StoredRaw
from ingest.identity import identify
from ingest.raw import RawMail
from ingest.sources import read_any, search_lore

from .refresh import RefreshResult, analyze_rows


@dataclass
class IngestResult:
    """What storing did: the new rows, and how many mails were already stored."""

    new_rows: list[int] = field(default_factory=list)
    duplicates: int = 0
    variants: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def stored(self) -> int:
        return len(self.new_rows)

    @property
    def read(self) -> int:
        return self.stored + self.duplicates + self.variants


def store_mails(
    store: Store,
    items: Iterable[RawMail | Problem],
    progress: Callable[[int], None] | None = None,
) -> IngestResult:
    """Store each mail once; Problems are collected, the rest of the batch goes on."""
    result = IngestResult()
    with store.batch():
        for _ in storing(store, items, result, progress):
            pass
    return result


def storing(
    store: Store,
    items: Iterable[RawMail | Problem],
    result: IngestResult,
    progress: Callable[[int], None] | None = None,
) -> Iterator[StoredRaw]:
    """`store_mails` as a stream: each mail stored once, counted in `result`, and each new
    one yielded as it is stored, so a backfill's analysis runs on the first mail while the
    rest is still being read and stored (`analyze_rows(arriving=...)`). Call it inside
    `store.batch()`."""
    for item in items:
        if isinstance(item, Problem):
            result.problems.append(item)
            continue
        identity = identify(item.data)
        if not identity.is_mail:
            result.problems.append(
                Problem(item.origin, "not a mail: no From, Subject, Date or Message-ID header")
            )
            continue
        added = store.add_raw(
            item.data, message_id=identity.message_id, fmt=item.fmt, origin=item.origin
        )
        if added.status == "new":
            result.new_rows.append(added.row)
            yield StoredRaw(added.row, item.data, item.origin, item.fmt)
        elif added.status == "variant":
            result.variants += 1
        else:
            result.duplicates += 1
        if progress:
            progress(1)


def ingest_paths(
    store: Store,
    paths: Iterable[str | Path],
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[int], None] | None = None,
) -> IngestResult:
    """Files, folders, and lore message URLs (each brings its whole thread)."""
    return store_mails(store, read_any(paths, limits), progress)


@dataclass(frozen=True)
class Ingested:
    """What `patchperf ingest` did: the mail stored, and its analysis (None with
    `--no-analyze`)."""

    stored: IngestResult
    analysed: RefreshResult | None

    @property
    def problems(self) -> list[Problem]:
        """Each input rejected: unreadable, no mail, or stored but not analysable."""
        return self.stored.problems + list(self.analysed.problems if self.analysed else ())

    @property
    def usable(self) -> int:
        """Mails read that analysis could use (stored ones it refused are not)."""
        return self.stored.read - len(self.analysed.problems if self.analysed else ())

    def summary(self) -> str:
        text = (f"{self.stored.stored} new, {self.stored.duplicates} already stored, "
                f"{self.stored.variants} variants")
        if self.analysed is not None:
            text += (f"; {self.analysed.analyzed} analyzed, {self.analysed.series} series "
                     "in the store")
        return text


def ingest(store: Store, sources: Sequence[str | Path], limits: Limits = DEFAULT_LIMITS, *,
           query: str | None = None, whole_threads: bool = False, analyse: bool = True,
           claims: bool = True, jobs: int = 1, scheduler: str | None = None,
           progress: Callable[[int], None] | None = None,
           environ: Mapping[str, str] | None = None) -> Ingested:
    """Store the mail of `sources` (files, folders, lore or openwall message URLs; with
    `query`, what one lore list's search finds), then analyse it. Each mail is analysed as
    it is stored (the workers start on the first while the rest is read), after any stored
    earlier and never analysed (an interrupted run, `--no-analyze`, an older analyzer).
    `environ` gives a lore search its base URL (reports.config.sync_settings)."""
    items = (search_lore(str(sources[0]), query, limits, whole_threads, environ)
             if query is not None
             else read_any(sources, limits))
    if not analyse:
        return Ingested(store_mails(store, items, progress=progress), None)
    result = IngestResult()
    refreshed = analyze_rows(store, None, limits, claims=claims, jobs=jobs, scheduler=scheduler,
                             arriving=storing(store, items, result, progress))
    return Ingested(result, refreshed)
