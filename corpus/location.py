"""Where the store is: a SQLite file or a PostgreSQL database, from `--db URL_OR_PATH`.

One frozen value, made once from what the user wrote, so the rest of the program asks it
("is this PostgreSQL?", "what do I show?") instead of looking at strings again.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from analyze.errors import StoreError

PG_SCHEMES = ("postgresql://", "postgres://")


@dataclass(frozen=True)
class StoreLocation:
    """A SQLite file (`path`) or a PostgreSQL connection URL (`url`, which may hold a
    password: show `display`, never `url`)."""

    kind: Literal["sqlite", "postgresql"]
    path: Path | None = None
    url: str | None = None

    @property
    def is_postgresql(self) -> bool:
        return self.kind == "postgresql"

    @property
    def display(self) -> str:
        """What messages name: the file, or the URL without its password."""
        if self.path is not None:
            return str(self.path)
        return redact_url(self.url or "")

    def __str__(self) -> str:
        return self.display

    def side_file(self, suffix: str) -> Path:
        """A file that belongs with the store (the sync lock, the HTTP cache): beside a
        SQLite file; for a database, in the user cache dir under a name made from the URL
        (its password left out, so changing it keeps the cache)."""
        if self.path is not None:
            return Path(f"{self.path}{suffix}")
        from platformdirs import user_cache_dir

        name = hashlib.sha256(self.display.encode()).hexdigest()[:16]
        return Path(user_cache_dir("patchperf")) / f"postgresql-{name}{suffix}"


def redact_url(url: str) -> str:
    """The URL with its password (user:PASSWORD@host, or ?password=) replaced by `***`."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        if ":" in userinfo:
            netloc = f"{userinfo.split(':', 1)[0]}:***@{host}"
    query = "&".join(
        "password=***" if pair.split("=", 1)[0].lower() == "password" else pair
        for pair in parts.query.split("&")
    ) if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def resolve_store(url_or_path: str | os.PathLike[str] | StoreLocation | None = None
                  ) -> StoreLocation:
    """The store for `--db URL_OR_PATH`: a path, `sqlite:///path`, or `postgresql://...`
    (`postgres://` too); None → `$PATCHPERF_DB`, else a file in the user data dir."""
    if isinstance(url_or_path, StoreLocation):
        return url_or_path
    if url_or_path is None:
        env = os.environ.get("PATCHPERF_DB")
        if env:
            return resolve_store(env)
        from platformdirs import user_data_dir

        return StoreLocation("sqlite", path=Path(user_data_dir("patchperf")) / "patchperf.db")
    text = os.fspath(url_or_path)
    if text.startswith(PG_SCHEMES):
        return StoreLocation("postgresql", url=text)
    if text.startswith("sqlite:///"):
        # SQLAlchemy's spelling: sqlite:///relative/file.db, sqlite:////absolute/file.db
        text = text[len("sqlite:///"):]
    elif "://" in text:
        raise StoreError(f"{redact_url(text)}: unsupported store URL "
                         "(a path, sqlite:///path or postgresql://...)")
    if not text:
        raise StoreError("empty store path")
    return StoreLocation("sqlite", path=Path(text).expanduser())
