"""Ctrl-C held back while a third-party library builds itself.

Some libraries call back into Python from compiled code while they load: pydantic-core
builds spaCy's schemas on `import spacy`. A KeyboardInterrupt raised inside such a callback
comes back out wrapped in the library's own error (a `SchemaError` whose text ends in
"KeyboardInterrupt"), so the command's Ctrl-C handling never sees it and the user gets a
traceback. Inside `interrupts_deferred()` a Ctrl-C is only noted; it is raised, as the plain
KeyboardInterrupt it is, when the block ends. The blocks are short (a one-time load)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Run the block with SIGINT noted rather than raised; act on it afterwards as the
    handler in force before the block would have.

    Only the main thread can change signal handlers, and only there does Python raise
    KeyboardInterrupt: elsewhere the block simply runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[FrameType | None] = []

    def note(_signum: int, frame: FrameType | None) -> None:
        arrived.append(frame)

    before = signal.signal(signal.SIGINT, note)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
    if arrived and callable(before):
        # default_int_handler raises KeyboardInterrupt here, outside the library's code;
        # another handler (reports/entry.py's quiet exit) runs as it would have
        before(signal.SIGINT, arrived[0])
