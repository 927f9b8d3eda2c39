"""Where the store lives: `--db PATH_OR_URL`, else `$PATCHPERF_DB`, else the user data dir."""

from __future__ import annotations

import os
from pathlib import Path

from analyze.errors import StoreError


def resolve_db_path(url_or_path: str | os.PathLike[str] | None = None) -> Path:
    """The store file for `--db URL_OR_PATH`: a path, or `sqlite:///path`; None → default."""
    if url_or_path is None:
        return default_db_path()
    text = os.fspath(url_or_path)
    if text.startswith("sqlite:///"):
        # SQLAlchemy's spelling: sqlite:///relative/file.db, sqlite:////absolute/file.db
        text = text[len("sqlite:///"):]
    elif "://" in text:
        raise StoreError(f"{text}: unsupported store URL (a path or sqlite:///path)")
    if not text:
        raise StoreError("empty store path")
    return Path(text).expanduser()


def default_db_path() -> Path:
    """`$PATCHPERF_DB` if set, else `patchperf.db` in the user data dir."""
    env = os.environ.get("PATCHPERF_DB")
    if env:
        return resolve_db_path(env)
    from platformdirs import user_data_dir

    return Path(user_data_dir("patchperf")) / "patchperf.db"
