"""Shared fixtures: isolation by default (no user dirs, no network) and the ../shared data."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis profiles: `ci` for `make test` (what a test does not set itself: the fuzz
# harness, tests/test_fuzz.py), `fuzz` for `make fuzz`, the long run SECURITY.md quotes.
settings.register_profile("ci", max_examples=150, deadline=None)
settings.register_profile("fuzz", max_examples=12_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PATCHPERF_SHARED", REPO.parent / "shared"))
DATA = Path(__file__).resolve().parent / "data"


def _require_shared(sub: str) -> Path:
    path = SHARED / sub
    if path.exists():
        return path
    reason = f"{path} is absent (the seeds and peer fixtures live in ../shared beside the clone)"
    if os.environ.get("PATCHPERF_REQUIRE_SHARED") == "1":
        pytest.fail(reason + "; PATCHPERF_REQUIRE_SHARED=1 makes this a failure")
    pytest.skip(reason)


@pytest.fixture
def seeds_dir() -> Path:
    return _require_shared("seeds")


@pytest.fixture
def peer_dir() -> Path:
    return _require_shared("peer")


@pytest.fixture
def schema_path() -> Path:
    return _require_shared("design") / "patchperf.schema.json"


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
    """Run `patchperf ARGS...` in-process; every JSON it prints is checked against the schema
    (../shared/design/patchperf.schema.json; required in CI)."""
    import json

    import jsonschema

    from reports.cli import main

    schema_file = SHARED / "design" / "patchperf.schema.json"
    schema = json.loads(schema_file.read_text()) if schema_file.exists() else None
    if schema is None and os.environ.get("PATCHPERF_REQUIRE_SHARED") == "1":
        pytest.fail(f"{schema_file} is absent")

    def run(*args: str) -> CliRun:
        capsys.readouterr()
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        result = CliRun(code, captured.out, captured.err)
        if schema and "json" in args and "--format" in args and captured.out.strip():
            jsonschema.validate(result.json(), schema)
        return result

    return run


@pytest.fixture(scope="session")
def bundled_db(tmp_path_factory) -> Path:
    """A store of the bundled corpus (corpus/threads), built once: never write to it; take
    `bundled_copy` or `bundled_store` for a test that writes."""
    from stores import ingest_into

    from corpus.bundled import bundled_threads

    db = tmp_path_factory.mktemp("bundled") / "corpus.db"
    with bundled_threads() as folder:
        return ingest_into(db, *sorted(folder.glob("*.mbox")))


@pytest.fixture
def bundled_copy(bundled_db: Path, tmp_path: Path) -> Path:
    """A copy of the bundled store, this test's own."""
    import shutil

    copy = tmp_path / "store.db"
    shutil.copyfile(bundled_db, copy)
    return copy


@pytest.fixture
def bundled_store(bundled_copy: Path):
    """The copy of the bundled store, open."""
    from corpus.store import Store

    with Store.open(bundled_copy) as opened:
        yield opened
