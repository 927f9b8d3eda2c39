"""Analysis on a Dask distributed cluster (`--scheduler tcp://HOST:8786` of `analyze --all`,
`ingest` and `sync`).

The contract of corpus/jobs/workers.py's process pool, over the network: chunks of stored mail
go to the cluster's workers, which only analyse them (mail goes out, encoded documents come
back); the command's own process reads the chunks and writes the results in the order it
read them. So a store analysed on a cluster holds exactly what a local run writes, and the
store keeps its single writer whatever it is (a SQLite file is not shared over a network).

The cluster is the user's: the command connects to its scheduler as a client, submits a
bounded window of chunks, and on any error or Ctrl-C cancels what it submitted and
disconnects, never stopping the scheduler or a worker. Dask is imported only here, and
only when `--scheduler` is given.
"""

from __future__ import annotations

import gc
import hashlib
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from analyze.errors import PatchperfError, UsageError

R = TypeVar("R")

# distributed retries a refused connection until its timeout: this is how long an
# unreachable scheduler (or one without workers) holds the command up.
CONNECT_TIMEOUT = 10
IN_FLIGHT_PER_THREAD = 2  # as corpus/jobs/workers.py: one chunk being analysed, one waiting
ADDRESS = re.compile(r"(tcp|tls)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)"
                     r":([0-9]{1,5})")
INSTALL = "install patchperf[cluster]"


class ClusterUnavailable(PatchperfError):
    """The Dask cluster cannot be reached, has no worker, or cannot run this analysis."""


def check_address(address: str) -> str:
    """The scheduler address as given, when it has the form Dask's clients connect to."""
    match = ADDRESS.fullmatch(address)
    if match is None or not 0 < int(match[3]) < 65536:
        raise UsageError(f"{address}: not a Dask scheduler address "
                         f"(tcp://HOST:PORT, or tls://HOST:PORT with certificates)")
    return address


@dataclass(frozen=True)
class Build:
    """What decides what a worker's analysis writes: the package, the analyzer's version and
    the sources that run there (0.1.0 names every development checkout, so the version
    alone would let a worker on another commit write other documents unnoticed)."""

    version: str
    analyzer: str
    sources: str

    def __str__(self) -> str:
        return f"patchperf {self.version} (analyzer {self.analyzer}, sources {self.sources})"


def this_build() -> Build:
    return Build(*_build_fields())


def _build_fields() -> tuple[str, str, str]:
    # Plain strings cross the wire: a worker with another patchperf may lack `Build`.
    from importlib import metadata  # (these two cost a third of a second: not at start-up)

    import analyze
    import corpus
    from analyze.pipeline import ANALYZER_VERSION

    digest = hashlib.sha256()
    # what analyse_chunk runs (the mypyc build is checked against these)
    for package in (analyze, corpus):
        root = Path(package.__file__ or "").resolve().parent
        for path in sorted(root.rglob("*.py")):
            digest.update(path.relative_to(root.parent).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return metadata.version("patchperf"), ANALYZER_VERSION, digest.hexdigest()[:12]


@contextmanager
def on_cluster(work: Callable[..., R], address: str) -> Iterator[Callable[..., Iterator[R]]]:
    """A runner `run(items, *args)` yielding `work(item, *args)` for each item, in the
    items' order, each computed on a worker of the Dask cluster whose scheduler is at
    `address`; at most two items per worker thread are in flight."""
    client = _connect(check_address(address))
    try:
        import dask  # (there once _connect found distributed)

        _check_builds(client, address)
        window = IN_FLIGHT_PER_THREAD * max(1, sum(client.nthreads().values()))

        def run(items: Iterable[Any], *args: Any) -> Iterator[R]:
            pending: deque[Any] = deque()
            try:
                for n, item in enumerate(items):
                    # the earliest chunk first: the writer waits for it, not for later ones
                    pending.append(client.submit(_on_worker, work, item, *args,
                                                 pure=False, priority=-n))
                    if len(pending) >= window:
                        yield _next(pending, address)
                while pending:
                    yield _next(pending, address)
            finally:
                if pending:  # an error or Ctrl-C: the workers drop what is not done
                    client.cancel(list(pending))

        # A chunk travels inside its task: above 10 MB (a few large patches) distributed
        # would warn, in six lines on stderr, to load the data on the workers instead; here
        # the data is the point (the workers have no store to load it from).
        with dask.config.set({"distributed.admin.large-graph-warning-threshold": "64 GiB"}):
            yield run
    finally:
        client.close()


def _connect(address: str) -> Any:
    try:
        import distributed
        from distributed.security import Security
    except ImportError:
        raise UsageError(f"--scheduler needs Dask's distributed package: {INSTALL}") from None
    if address.startswith("tls://") and Security().get_connection_args("client")["ssl_context"] is None:
        # Client() would fail with a TypeError, and its finalizer print a traceback at exit
        raise UsageError(f"{address}: tls:// needs the client's certificates in Dask's "
                         f"configuration (distributed.comm.tls.ca-file, .client.cert, .client.key)")
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except OSError:
        raise ClusterUnavailable(f"{address}: no Dask scheduler answered "
                                 f"within {CONNECT_TIMEOUT} s") from None
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
    except TimeoutError:
        client.close()
        raise ClusterUnavailable(f"{address}: the scheduler has no worker "
                                 f"(none joined within {CONNECT_TIMEOUT} s)") from None
    return client


def _check_builds(client: Any, address: str) -> None:
    """Refuse a cluster where a worker runs other code: it would write other documents."""
    mine = this_build()
    theirs: dict[str, list[str]] = {}
    for worker, answer in client.run(_build_fields, on_error="return").items():
        if isinstance(answer, BaseException):  # cannot import patchperf at all
            seen = f"cannot run patchperf ({type(answer).__name__}: {answer})"
        elif Build(*answer) != mine:
            seen = f"runs {Build(*answer)}"
        else:
            continue
        theirs.setdefault(seen, []).append(worker)
    if theirs:
        said = "; ".join(f"{'worker' if len(w) == 1 else 'workers'} {', '.join(sorted(w))} {seen}"
                         for seen, w in sorted(theirs.items()))
        raise ClusterUnavailable(f"{address}: {said}; this command runs {mine}: install the same "
                                 f"patchperf on every worker")


def _next(pending: deque[Any], address: str) -> Any:
    """The result of the oldest future, which stays in `pending` (to be cancelled with the
    rest on Ctrl-C) until its result is in."""
    result = _result(pending[0], address)
    pending.popleft()
    return result


def _result(future: Any, address: str) -> Any:
    from distributed import KilledWorker
    from distributed.client import FutureCancelledError

    try:
        return future.result()
    except KilledWorker:
        raise ClusterUnavailable(f"{address}: the workers analysing a chunk of mail died "
                                 f"(out of memory? see the workers' logs)") from None
    except FutureCancelledError:
        # the client lost the scheduler (it cancels every future), or someone cancelled ours
        raise ClusterUnavailable(f"{address}: the cluster dropped the analysis "
                                 f"(the scheduler went away?)") from None


def _on_worker(work: Callable[..., R], item: Any, *args: Any) -> R:
    # As the process pool's workers do (corpus/jobs/workers.py): analysis keeps many objects alive
    # per chunk, and the default threshold would start a collection every few mails. Set for
    # the call only: the worker process is the user's.
    before = gc.get_threshold()
    gc.set_threshold(max(100_000, before[0]), *before[1:])
    try:
        return work(item, *args)
    finally:
        gc.set_threshold(*before)
