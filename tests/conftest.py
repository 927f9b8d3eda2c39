"""Shared fixtures: isolation by default (no user dirs, no network) and the ../shared data."""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

import pytest
from hypothesis import settings

# The store the store-touching tests run on (PATCHPERF_TEST_BACKEND): `sqlite` (a file in
# tmp_path), or `postgresql` (a fresh database on the test server, tests/pg_server.py).
# `make test` runs the suite on SQLite; `make test-pg` the tests marked `store` on PostgreSQL.
from stores import ON_POSTGRESQL

# Hypothesis profiles: `ci` for `make test` (what a test does not set itself: the fuzz
# harness, tests/test_fuzz.py), `fuzz` for `make fuzz`, the long run SECURITY.md quotes.
settings.register_profile("ci", max_examples=150, deadline=None)
settings.register_profile("fuzz", max_examples=12_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# A test asking for one of these touches the store: marked `store` by that alone.
STORE_FIXTURES = frozenset({"db", "make_db", "session_make_db", "fresh_store", "bundled_db",
                            "bundled_copy", "bundled_store"})

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PATCHPERF_SHARED", REPO.parent / "shared"))
DATA = Path(__file__).resolve().parent / "data"
SCHEMA = REPO / "docs" / "patchperf.schema.json"


def _require_shared(sub: str) -> Path:
    path = SHARED / sub
    if path.exists():
        return path
    reason = f"{path} is absent (the seeds and peer fixtures live in ../shared beside the clone)"
    if os.environ.get("PATCHPERF_REQUIRE_SHARED") == "1":
        pytest.fail(reason + "; PATCHPERF_REQUIRE_SHARED=1 makes this a failure")
    pytest.skip(reason)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if STORE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.store)
        only = item.get_closest_marker("sqlite_only")
        if ON_POSTGRESQL and only is not None:
            reason = only.args[0] if only.args else "about the SQLite file itself"
            item.add_marker(pytest.mark.skip(reason=f"SQLite only: {reason}"))


@pytest.fixture
def seeds_dir() -> Path:
    return _require_shared("seeds")


@pytest.fixture
def peer_dir() -> Path:
    return _require_shared("peer")


@pytest.fixture
def real_dir() -> Path:
    """The annotated real posts, in ../shared beside the clone."""
    return _require_shared("corpus") / "real"


@pytest.fixture(autouse=True)
def _isolated(tmp_path_factory, monkeypatch):
    """Keep every test away from the user's store and config, and off the network."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.delenv("PATCHPERF_DB", raising=False)
    monkeypatch.delenv("PATCHPERF_SCHEDULER", raising=False)  # a developer's own cluster

    real_connect = socket.socket.connect

    def guarded_connect(self, address, *args, **kwargs):
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and not (
            host.startswith("127.") or host in ("localhost", "::1") or host.startswith("/")
        ):
            raise OSError(f"tests must not reach the network (tried {address!r})")
        return real_connect(self, address, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    yield


class CliRun:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def json(self):
        import json

        return json.loads(self.out)


@pytest.fixture
def cli(capsys):
    """Run `patchperf ARGS...` in-process; every JSON it prints is checked against the
    project's schema (docs/patchperf.schema.json)."""
    import json

    import jsonschema

    from reports.cli import main

    schema = json.loads(SCHEMA.read_text())

    def run(*args: str) -> CliRun:
        capsys.readouterr()
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        result = CliRun(code, captured.out, captured.err)
        if "json" in args and "--format" in args and captured.out.strip():
            jsonschema.validate(result.json(), schema)
        return result

    return run


@pytest.fixture(scope="session")
def pg_server():
    """The PostgreSQL server of the session (tests/pg_server.py); the test is skipped when
    there is none, or fails with PATCHPERF_REQUIRE_PG=1 (CI)."""
    from pg_server import find_server

    server, reason = find_server()
    if server is None:
        if os.environ.get("PATCHPERF_REQUIRE_PG") == "1":
            pytest.fail(f"no PostgreSQL to test against: {reason}; "
                        "PATCHPERF_REQUIRE_PG=1 makes this a failure")
        pytest.skip(f"no PostgreSQL to test against: {reason}")
    yield server
    server.stop()


class StoreMaker:
    """`make()` → where a new, empty store is (a str for `--db` or `Store.open`): a SQLite
    file in `folder`, or a fresh PostgreSQL database on `server`. `make(copy_of=db)`: a
    copy of that store (the file copied, or a database made from it as its template)."""

    def __init__(self, folder: Path, server) -> None:
        self.folder, self.server, self.made = folder, server, []

    def __call__(self, copy_of: str | Path | None = None) -> str:
        import shutil

        if self.server is None:
            self.made.append(str(self.folder / "stores" / f"{len(self.made)}.db"))
            if copy_of is not None:
                Path(self.made[-1]).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(copy_of, self.made[-1])
        else:
            from urllib.parse import urlsplit

            template = urlsplit(str(copy_of)).path.lstrip("/") if copy_of else "template0"
            self.made.append(self.server.create_database(template=template))
        return self.made[-1]

    def drop_all(self) -> None:
        if self.server is not None:
            for url in self.made:
                self.server.drop_database(url)


@pytest.fixture
def make_db(request, tmp_path):
    """A StoreMaker for this test's stores, dropped after it."""
    maker = StoreMaker(tmp_path, request.getfixturevalue("pg_server") if ON_POSTGRESQL else None)
    yield maker
    maker.drop_all()


@pytest.fixture(scope="session")
def session_make_db(request, tmp_path_factory):
    """A StoreMaker for stores a module or the session shares (module-scoped fixtures)."""
    maker = StoreMaker(tmp_path_factory.mktemp("shared-stores"),
                       request.getfixturevalue("pg_server") if ON_POSTGRESQL else None)
    yield maker
    maker.drop_all()


@pytest.fixture
def db(make_db) -> str:
    """Where this test's store is: a SQLite file, or a PostgreSQL database (`make_db`)."""
    return make_db()


@pytest.fixture(scope="session")
def bundled_db(session_make_db) -> str:
    """A store of the bundled corpus (corpus/threads), built once: never write to it; take
    `bundled_copy` or `bundled_store` for a test that writes."""
    from stores import ingest_into

    from corpus.bundled import bundled_threads

    db = session_make_db()
    with bundled_threads() as folder:
        ingest_into(db, *sorted(folder.glob("*.mbox")))
    return db


@pytest.fixture
def bundled_copy(bundled_db: str, make_db) -> str:
    """A copy of the bundled store, this test's own."""
    return make_db(copy_of=bundled_db)


@pytest.fixture
def bundled_store(bundled_copy: str):
    """The copy of the bundled store, open."""
    from corpus.store import Store

    with Store.open(bundled_copy) as opened:
        yield opened


def required_program(name: str, install: str) -> str:
    """The path of a program a test drives, else a skip with how to install it (a failure
    where CI must have it: .ci/run installs it, PATCHPERF_REQUIRE_SHARED=1)."""
    found = shutil.which(name)
    if found is None:
        if os.environ.get("PATCHPERF_REQUIRE_SHARED") == "1":
            pytest.fail(f"{name} is missing: .ci/run installs it ({install})")
        pytest.skip(f"{name} is not installed ({install})")
    return found
