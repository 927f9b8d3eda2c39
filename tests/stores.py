"""Stores and mail the tests build: ingesting through the real command, and the benchmark's
netdev-like mail generator (tests/bench/gen_mbox.py) as a module."""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

# tests/conftest.py: which store the store-touching tests run on
ON_POSTGRESQL = os.environ.get("PATCHPERF_TEST_BACKEND", "sqlite") == "postgresql"

GEN_MBOX = Path(__file__).resolve().parent / "bench" / "gen_mbox.py"


def ingest_into(db: str | Path, *paths: Path, codes: tuple[int, ...] = (0,)) -> str | Path:
    """`patchperf --db DB ingest PATHS...` in-process; the store (as given)."""
    from reports.cli import main

    code = main(["--db", str(db), "--quiet", "ingest", *map(str, paths)])
    assert code in codes, f"ingest exited {code}"
    return db


@functools.cache
def gen_mbox() -> ModuleType:
    """tests/bench/gen_mbox.py (a script, not a package module), loaded once."""
    spec = importlib.util.spec_from_file_location("gen_mbox", GEN_MBOX)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
