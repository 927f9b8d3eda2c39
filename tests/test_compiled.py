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

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers

MODULES = ("analyze.claims.lexer.numbers", "analyze.claims.extract")


def _package(tmp_path: Path) -> Path:
    """A source tree of two compiled modules in nested packages; returns its root."""
    root = tmp_path / "src"
    for module in MODULES:
        source = compiled.source_of(module, root)
        source.parent.mkdir(parents=True, exist_ok=True)
        for package in (source.parent, *source.parent.parents):
            if package == root:
                break
            (package / "__init__.py").touch()
        source.write_text("X = 1\n")
    return root


RUNTIME = "0123abcd__mypyc"


def _built(tmp_path: Path, root: Path, **overrides: object) -> Path:
    """A build's files (empty stand-ins: only their presence is checked before import)."""
    target = tmp_path / "build"
    for module in MODULES:
        compiled.built_file(module, target).parent.mkdir(parents=True, exist_ok=True)
        compiled.built_file(module, target).write_bytes(b"")
    (target / f"{RUNTIME}{compiled.abi()}").write_bytes(b"")
    manifest = {"abi": compiled.abi(), "runtime": RUNTIME,
                "sources": compiled.source_hashes(root, MODULES), **overrides}
    (target / compiled.MANIFEST).write_text(json.dumps(manifest))
    return target


@pytest.fixture
def clean_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    monkeypatch.delenv("PATCHPERF_PURE", raising=False)


def test_a_fresh_build_goes_first(tmp_path: Path, clean_sys_path: None) -> None:
    root = _package(tmp_path)
    target = _built(tmp_path, root)
    assert compiled.activate(target, root, MODULES)
    # each compiled module, and mypyc's shared runtime, is found in the build by its name,
    # before anything on sys.path
    finder = sys.meta_path[0]
    for name, where in [(RUNTIME, target / f"{RUNTIME}{compiled.abi()}"),
                        (MODULES[0], target / "analyze" / "claims" / "lexer"
                         / f"numbers{compiled.abi()}")]:
        spec = finder.find_spec(name, None)
        assert spec is not None and spec.origin == str(where)
    assert finder.find_spec("json", None) is None
    assert finder.find_spec("analyze.claims", None) is None  # packages stay the sources'
    # asked again (a second import of the package), the finder is not added twice
    assert compiled.activate(target, root, MODULES)
    assert sum(isinstance(f, compiled._Build) and f.files == finder.files
               for f in sys.meta_path) == 1


@pytest.mark.parametrize("missing", ["runtime", "module"])
def test_a_build_missing_a_file_is_no_build(tmp_path: Path, clean_sys_path: None,
                                             missing: str) -> None:
    root = _package(tmp_path)
    target = _built(tmp_path, root)
    gone = (target / f"{RUNTIME}{compiled.abi()}" if missing == "runtime"
            else compiled.built_file(MODULES[0], target))
    gone.unlink()
    assert not compiled.activate(target, root, MODULES)


def test_compiled_modules_beside_the_sources_are_reported(tmp_path: Path,
                                                         clean_sys_path: None) -> None:
    root = _package(tmp_path)
    compiled.built_file(MODULES[0], root).write_bytes(b"")
    with pytest.warns(UserWarning, match="compiled modules beside the sources"):
        compiled.activate(tmp_path / "absent", root, MODULES)


def test_an_edited_module_makes_the_build_stale(tmp_path: Path, clean_sys_path: None) -> None:
    root = _package(tmp_path)
    target = _built(tmp_path, root)
    compiled.source_of(MODULES[1], root).write_text("X = 2\n")
    before = list(sys.meta_path)
    assert not compiled.activate(target, root, MODULES)
    assert sys.meta_path == before


def test_only_the_compiled_modules_make_the_build_stale(tmp_path: Path,
                                                        clean_sys_path: None) -> None:
    """The fingerprint covers what is compiled: a module beside them (the shared vocabulary,
    a test helper) may change without a rebuild."""
    root = _package(tmp_path)
    target = _built(tmp_path, root)
    (root / "analyze" / "model.py").write_text("Y = 1\n")
    (root / "analyze" / "claims" / "lexer" / "extra.py").write_text("")
    assert compiled.activate(target, root, MODULES)


@pytest.mark.parametrize("manifest", [
    {"abi": ".cpython-99-elsewhere.so"},  # built for another Python
    {"sources": "not a mapping"},
])
def test_a_build_for_something_else_is_ignored(tmp_path: Path, clean_sys_path: None,
                                               manifest: dict[str, object]) -> None:
    root = _package(tmp_path)
    target = _built(tmp_path, root, **manifest)
    assert not compiled.activate(target, root, MODULES)


def test_no_build_or_a_damaged_manifest(tmp_path: Path, clean_sys_path: None) -> None:
    root = _package(tmp_path)
    assert not compiled.activate(tmp_path / "absent", root, MODULES)
    target = _built(tmp_path, root)
    (target / compiled.MANIFEST).write_text("{cut sho")
    assert not compiled.activate(target, root, MODULES)


def test_pure_is_asked_for(tmp_path: Path, clean_sys_path: None,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    root = _package(tmp_path)
    target = _built(tmp_path, root)
    monkeypatch.setenv("PATCHPERF_PURE", "1")
    assert not compiled.activate(target, root, MODULES)


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
        loaded = Path(importlib.import_module(name).__file__ or "")
        assert (loaded.suffix != ".py") == wanted, loaded
        if wanted:
            assert loaded == compiled.built_file(name, compiled.build_dir())
