"""`patchperf ingest`: read sources, store what is new, verbatim.

Interpreting mail is analysis's job (corpus.refresh); here only the Message-ID is read, to
store each mail once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from analyze.errors import BadInput
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Problem
from corpus.store import Store

from .identity import scan_message_id
from .local import read_sources
from .raw import RawMail


@dataclass
class IngestResult:
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
        for item in items:
            if isinstance(item, Problem):
                result.problems.append(item)
                continue
            try:
                added = store.add_raw(
                    item.data, message_id=scan_message_id(item.data), fmt=item.fmt, origin=item.origin
                )
            except BadInput as exc:
                result.problems.append(Problem(item.origin, str(exc)))
                continue
            if added.status == "new":
                result.new_rows.append(added.row)
            elif added.status == "variant":
                result.variants += 1
            else:
                result.duplicates += 1
            if progress:
                progress(1)
    return result


def ingest_paths(
    store: Store,
    paths: Iterable[str | Path],
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[int], None] | None = None,
) -> IngestResult:
    return store_mails(store, read_sources(paths, limits), progress)
