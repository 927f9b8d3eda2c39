"""Where the store file lives: `--db PATH_OR_URL`, else `$PATCHPERF_DB`, else the user data dir.

The SQLite view of `corpus.location` (which also knows PostgreSQL URLs), for callers that
need a file.
"""

from __future__ import annotations

import os
from pathlib import Path

from analyze.errors import StoreError

from .location import resolve_store


def resolve_db_path(url_or_path: str | os.PathLike[str] | None = None) -> Path:
    """The store file for `--db URL_OR_PATH`: a path, or `sqlite:///path`; None → default.
    A PostgreSQL URL has no file: StoreError."""
    location = resolve_store(url_or_path)
    if location.path is None:
        raise StoreError(f"{location}: a PostgreSQL store, not a file")
    return location.path


def default_db_path() -> Path:
    """`$PATCHPERF_DB` if set, else `patchperf.db` in the user data dir."""
    return resolve_db_path(None)
