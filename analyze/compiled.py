"""The claim readers compiled with mypyc, used only when built from exactly these sources.

Claim extraction is pure-Python work spread thin over many small functions (no one above a
tenth of the time); compiled with mypyc (mypy's compiler to C extensions, as black and mypy
ship themselves) the same code reads the 20,000-message benchmark about 1.5x faster.

The build lives outside the source tree, in the virtual environment it was made for
(`<venv>/patchperf-compiled`, written by `python -m analyze.build_compiled`, which `make`
runs), with a manifest of the hashes of every `analyze/*.py` it was built from. At import,
`activate` puts the build in front of the package's own modules only when the manifest
matches the sources as they are now: an edited module, a checkout of another commit or a
build for another Python is ignored, and the pure-Python modules run. `PATCHPERF_PURE=1`
asks for them. A machine without a C compiler or Python's headers gets no build and the
same results, slower.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import sysconfig
import warnings
from collections.abc import MutableSequence
from pathlib import Path
from typing import Any

# The modules claim extraction spends its time in.
MODULES = (
    "quantity", "units", "number_spans", "numbers", "table_roles", "tables", "table_lkp",
    "table_perf", "side_rows", "lists", "stated_lines", "sentences", "claims", "prose",
    "prose_gate", "prose_read", "conditions", "loops", "shell",
)
SOURCE = Path(__file__).resolve().parent
MANIFEST = "manifest.json"


def build_dir() -> Path:
    """Where this interpreter's build is kept: in its virtual environment."""
    return Path(sys.prefix) / "patchperf-compiled"


def abi() -> str:
    return str(sysconfig.get_config_var("EXT_SUFFIX") or sys.implementation.cache_tag)


def source_hashes(source: Path = SOURCE) -> dict[str, str]:
    """sha256 of every module of the package: a compiled module calls others natively, so
    a change to any of them makes the build stale."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(source.glob("*.py"))}


def fresh_manifest(target: Path, source: Path = SOURCE) -> dict[str, Any] | None:
    """The manifest of `target` when it holds a whole build of exactly the sources in
    `source`, for this Python; None otherwise."""
    try:
        manifest = json.loads((target / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    if not (isinstance(manifest, dict) and manifest.get("abi") == abi()
            and manifest.get("sources") == source_hashes(source)
            and isinstance(manifest.get("runtime"), str)):
        return None
    files = [target / f"{manifest['runtime']}{abi()}"]
    files += [target / "analyze" / f"{m}{abi()}" for m in MODULES]
    return manifest if all(f.is_file() for f in files) else None


def is_fresh(target: Path, source: Path = SOURCE) -> bool:
    return fresh_manifest(target, source) is not None


class _Runtime(importlib.abc.MetaPathFinder):
    """Finds mypyc's shared runtime module, and only it, in the build. mypyc names it after
    the compiled modules' names, not their contents: found through sys.path, a file of that
    name from another build could be taken instead."""

    def __init__(self, name: str, path: Path) -> None:
        self.name, self.path = name, path

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.path)


def activate(package_path: MutableSequence[str], target: Path | None = None,
             source: Path = SOURCE) -> bool:
    """Put a fresh build in front of `package_path` (the package's `__path__`); True if so."""
    stray = sorted(p.name for p in source.iterdir() if p.suffix in (".so", ".pyd"))
    if stray:
        # Python prefers an extension to a source file in the same folder, build or not
        warnings.warn(f"{source}: compiled modules beside the sources ({', '.join(stray)}) "
                      "are used whatever they were built from; remove them", stacklevel=2)
    if os.environ.get("PATCHPERF_PURE") == "1":
        return False
    target = target if target is not None else build_dir()
    manifest = fresh_manifest(target, source)
    if manifest is None:
        return False
    name = manifest["runtime"]
    if not any(isinstance(f, _Runtime) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _Runtime(name, target / f"{name}{abi()}"))
    package_path.insert(0, str(target / "analyze"))
    return True
