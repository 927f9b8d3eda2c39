"""The bundled corpus: sample netdev threads shipped with the package (corpus/threads/)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import as_file, files
from pathlib import Path


@contextmanager
def bundled_threads() -> Iterator[Path]:
    """A real folder holding the bundled thread files (extracted if the package is zipped)."""
    with as_file(files("corpus") / "threads") as folder:
        yield Path(folder)
