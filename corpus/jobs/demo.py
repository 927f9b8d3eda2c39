"""`patchperf demo`: the bundled corpus (corpus/threads/) in a fresh demo store of its own,
analysed and judged: what `make demo` shows a new user. Never the user's store."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyze.limits import DEFAULT_LIMITS, Limits
from corpus.bundled import bundled_threads
from corpus.query import select_document
from corpus.store import Store

from .ingest import IngestResult, ingest_paths
from .refresh import RefreshResult, analyze_rows
from .verdicts import Judged, judge_stored_claims


@dataclass(frozen=True)
class Demo:
    store: Path
    stored: IngestResult
    analysed: RefreshResult
    doc: dict[str, Any]  # everything stored, as the JSON contract's document
    judged: Judged


def make_demo(folder: Path, limits: Limits = DEFAULT_LIMITS) -> Demo:
    """Ingest the bundled threads into `folder/patchperf.db` (made afresh), analyse them,
    and judge every claim series; the verdicts are kept, so `patchperf tui` on the demo
    store can filter by them."""
    path = folder / "patchperf.db"
    for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        stale.unlink(missing_ok=True)
    with bundled_threads() as threads, Store.open(path) as store:
        stored = ingest_paths(store, sorted(threads.glob("*.mbox")), limits)
        analysed = analyze_rows(store, stored.new_rows, limits)
        doc = select_document(store)
        judged = judge_stored_claims(store, doc["claims"], limits)
        store.save_verdicts(doc["claims"])
    return Demo(path, stored, analysed, doc, judged)
