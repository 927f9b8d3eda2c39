"""The compiled claim readers (analyze/compiled.py): used exactly when a build of the current
sources for this Python is at hand, never otherwise."""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path

import pytest

from analyze import compiled


def _package(tmp_path: Path) -> Path:
    source = tmp_path / "src" / "analyze"
    source.mkdir(parents=True)
    (source / "__init__.py").write_text("")
    (source / "numbers.py").write_text("X = 1\n")
    return source


RUNTIME = "0123abcd__mypyc"


def _built(tmp_path: Path, source: Path, **overrides: object) -> Path:
    """A build's files (empty stand-ins: only their presence is checked before import)."""
    target = tmp_path / "build"
    (target / "analyze").mkdir(parents=True)
    for module in compiled.MODULES:
        (target / "analyze" / f"{module}{compiled.abi()}").write_bytes(b"")
    (target / f"{RUNTIME}{compiled.abi()}").write_bytes(b"")
    manifest = {"abi": compiled.abi(), "runtime": RUNTIME,
                "sources": compiled.source_hashes(source), **overrides}
    (target / compiled.MANIFEST).write_text(json.dumps(manifest))
    return target


@pytest.fixture
def clean_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    monkeypatch.delenv("PATCHPERF_PURE", raising=False)


def test_a_fresh_build_goes_first(tmp_path: Path, clean_sys_path: None) -> None:
    source = _package(tmp_path)
    target = _built(tmp_path, source)
    path = [str(source)]
    assert compiled.activate(path, target, source)
    assert path == [str(target / "analyze"), str(source)]
    # mypyc's shared runtime is found in the build by name, before anything on sys.path
    finder = sys.meta_path[0]
    spec = finder.find_spec(RUNTIME, None)
    assert spec is not None and spec.origin == str(target / f"{RUNTIME}{compiled.abi()}")
    assert finder.find_spec("json", None) is None
    # asked again (a second import of the package), the finder is not added twice
    assert compiled.activate([str(source)], target, source)
    assert sum(getattr(f, "name", None) == RUNTIME for f in sys.meta_path) == 1


@pytest.mark.parametrize("missing", ["runtime", "module"])
def test_a_build_missing_a_file_is_no_build(tmp_path: Path, clean_sys_path: None,
                                             missing: str) -> None:
    source = _package(tmp_path)
    target = _built(tmp_path, source)
    gone = (target / f"{RUNTIME}{compiled.abi()}" if missing == "runtime"
            else target / "analyze" / f"numbers{compiled.abi()}")
    gone.unlink()
    assert not compiled.activate([str(source)], target, source)


def test_compiled_modules_beside_the_sources_are_reported(tmp_path: Path,
                                                         clean_sys_path: None) -> None:
    source = _package(tmp_path)
    (source / f"numbers{compiled.abi()}").write_bytes(b"")
    with pytest.warns(UserWarning, match="compiled modules beside the sources"):
        compiled.activate([str(source)], tmp_path / "absent", source)


def test_an_edited_module_makes_the_build_stale(tmp_path: Path, clean_sys_path: None) -> None:
    source = _package(tmp_path)
    target = _built(tmp_path, source)
    (source / "numbers.py").write_text("X = 2\n")
    path = [str(source)]
    assert not compiled.activate(path, target, source)
    assert path == [str(source)]


def test_a_new_module_makes_the_build_stale(tmp_path: Path, clean_sys_path: None) -> None:
    source = _package(tmp_path)
    target = _built(tmp_path, source)
    (source / "extra.py").write_text("")
    assert not compiled.activate([str(source)], target, source)


@pytest.mark.parametrize("manifest", [
    {"abi": ".cpython-99-elsewhere.so"},  # built for another Python
    {"sources": "not a mapping"},
])
def test_a_build_for_something_else_is_ignored(tmp_path: Path, clean_sys_path: None,
                                               manifest: dict[str, object]) -> None:
    source = _package(tmp_path)
    target = _built(tmp_path, source, **manifest)
    assert not compiled.activate([str(source)], target, source)


def test_no_build_or_a_damaged_manifest(tmp_path: Path, clean_sys_path: None) -> None:
    source = _package(tmp_path)
    assert not compiled.activate([str(source)], tmp_path / "absent", source)
    target = _built(tmp_path, source)
    (target / compiled.MANIFEST).write_text("{cut sho")
    assert not compiled.activate([str(source)], target, source)


def test_pure_is_asked_for(tmp_path: Path, clean_sys_path: None,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    source = _package(tmp_path)
    target = _built(tmp_path, source)
    monkeypatch.setenv("PATCHPERF_PURE", "1")
    assert not compiled.activate([str(source)], target, source)


def test_this_process_runs_what_it_should() -> None:
    """`make pytest` runs the suite on the build (when the machine could make one), then the
    readers' tests again with PATCHPERF_PURE=1: each run must really be on what it says.
    CI sets PATCHPERF_REQUIRE_COMPILED=1: there, no build is a failure."""
    pure = os.environ.get("PATCHPERF_PURE") == "1"
    fresh = compiled.is_fresh(compiled.build_dir())
    if os.environ.get("PATCHPERF_REQUIRE_COMPILED") == "1" and not pure:
        assert fresh, f"no fresh build in {compiled.build_dir()} (python -m analyze.build_compiled)"
    wanted = not pure and fresh
    for name in compiled.MODULES:
        loaded = Path(importlib.import_module(f"analyze.{name}").__file__ or "")
        assert (loaded.suffix != ".py") == wanted, loaded
        if wanted:
            assert loaded.parent == compiled.build_dir() / "analyze"
