"""Work spread over worker processes, results taken in order (`--jobs N` of `analyze --all`,
`ingest` and `sync`).

The analysis of a mail depends on that mail alone, so chunks of mail can go to any process;
the one process that owns the store reads the chunks and writes the results, in the order
the chunks were read, so a run with workers writes exactly what a run without writes. At
most two chunks per worker are in flight: memory stays bounded however large the archive.
"""

from __future__ import annotations

import gc
import multiprocessing
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from .cluster import on_cluster

T = TypeVar("T")
R = TypeVar("R")

IN_FLIGHT_PER_WORKER = 2  # one being worked on, one waiting: a worker never idles on the writer

Runner = Callable[..., Iterator[R]]


@contextmanager
def in_order(work: Callable[..., R], jobs: int, scheduler: str | None = None) -> Iterator[Runner[R]]:
    """A runner `run(items, *args)` yielding `work(item, *args)` for each item, in the
    items' order: in this process when `jobs` is 1, else in `jobs` worker processes, or on
    the workers of the Dask cluster whose scheduler is at `scheduler` (corpus/jobs/cluster.py).

    Workers are spawned (not forked: nothing of this process, its store connection least
    of all, is shared with them) and ignore Ctrl-C, which this process handles: on any
    error or interrupt the work not yet started is cancelled and the workers stopped."""
    if scheduler is not None:
        with on_cluster(work, scheduler) as run_there:
            yield run_there
        return
    if jobs <= 1:
        yield lambda items, *args: (work(item, *args) for item in items)
        return
    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start_worker)

    def run(items: Iterable[T], *args: Any) -> Iterator[R]:
        pending: deque[Future[R]] = deque()
        for item in items:
            pending.append(pool.submit(work, item, *args))
            if len(pending) >= IN_FLIGHT_PER_WORKER * jobs:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()

    try:
        yield run
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _start_worker() -> None:
    # Ctrl-C reaches the whole process group; the parent stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The analysis keeps many objects alive per chunk; the default threshold would start a
    # collection every few mails (corpus/jobs/refresh.py, fewer_collections).
    gc.set_threshold(100_000, *gc.get_threshold()[1:])
