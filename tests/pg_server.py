"""A PostgreSQL server for the tests: `$PATCHPERF_TEST_PG` (a base URL), else a throwaway
cluster started once per test session, each test in a fresh database of its own.

The throwaway cluster lives in a temp folder: `initdb`, then `pg_ctl start` listening on
127.0.0.1 on a free port (its socket in the folder too, nothing in /run). PostgreSQL refuses
to run as root, so as root the folder is given to the `postgres` user and the server runs as
it (`runuser`). Durability is off (fsync): a test server's crash loses nothing of value.
Its default collation is ICU's en-US where the server has ICU, as a Debian server's
en_US.UTF-8 would be: the store must not depend on it (its text columns sort bytewise).
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROLE = "patchperf"
_names = itertools.count(1)


@dataclass(frozen=True)
class PgServer:
    """A server the tests may create and drop databases on (`base_url` names any database
    of it: the maintenance one)."""

    base_url: str
    data_dir: Path | None = None  # a throwaway cluster's, stopped at the end
    as_postgres: bool = False

    def url(self, database: str) -> str:
        parts = urlsplit(self.base_url)
        return urlunsplit((parts.scheme, parts.netloc, f"/{database}", parts.query, ""))

    def admin(self):
        import psycopg

        return psycopg.connect(self.base_url, autocommit=True)

    def create_database(self, template: str = "template0") -> str:
        """A new empty database (or a copy of `template`); its URL."""
        name = f"pp_{os.getpid()}_{next(_names)}"
        with self.admin() as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = urlsplit(url).path.lstrip("/")
        with self.admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        if self.data_dir is None:
            return
        _run([_tool("pg_ctl"), "-D", str(self.data_dir), "-m", "immediate", "stop"],
             self.as_postgres)
        shutil.rmtree(self.data_dir.parent, ignore_errors=True)


def find_server() -> tuple[PgServer | None, str]:
    """The server to test against, or None and why there is none."""
    base = os.environ.get("PATCHPERF_TEST_PG")
    if base:
        return PgServer(base), ""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return None, "psycopg is not installed (pip install patchperf[postgresql])"
    if _tool("initdb") is None or _tool("pg_ctl") is None:
        return None, "no PostgreSQL server binaries (initdb, pg_ctl): apt-get install postgresql"
    try:
        return _start_throwaway(), ""
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", None) or ""
        return None, f"cannot start a throwaway PostgreSQL: {exc} {detail}".strip()


def _start_throwaway() -> PgServer:
    as_postgres = os.geteuid() == 0
    root = Path(tempfile.mkdtemp(prefix="patchperf-pg-"))
    data = root / "data"
    if as_postgres:
        shutil.chown(root, "postgres", "postgres")
    initdb = [_tool("initdb"), "-D", str(data), "-U", ROLE, "--auth=trust", "-E", "UTF8",
              "--no-instructions"]
    try:
        _run([*initdb, "--locale=C.UTF-8", "--locale-provider=icu", "--icu-locale=en-US"],
             as_postgres)
    except subprocess.CalledProcessError:
        shutil.rmtree(data, ignore_errors=True)
        _run([*initdb, "--locale=C.UTF-8"], as_postgres)  # a server built without ICU
    with socket.socket() as probe:  # a free port (a race with another program is unlikely)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    options = (f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
               "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
    _run([_tool("pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-o", options, "-w",
          "-t", "60", "start"], as_postgres)
    return PgServer(f"postgresql://{ROLE}@127.0.0.1:{port}/postgres", data, as_postgres)


def _tool(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
                      key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    return versions[-1] if versions else None


def _run(command: list[str | None], as_postgres: bool) -> None:
    args = [str(c) for c in command]
    if as_postgres:
        args = ["runuser", "-u", "postgres", "--", *args]
    subprocess.run(args, check=True, capture_output=True, text=True, cwd="/")
