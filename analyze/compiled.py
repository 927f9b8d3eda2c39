"""The claim readers compiled with mypyc, used only when built from exactly these sources.

Claim extraction is pure-Python work spread thin over many small functions (no one above a
tenth of the time); compiled with mypyc (mypy's compiler to C extensions, as black and mypy
ship themselves) the same code reads the 20,000-message benchmark about 1.3x faster.

The build lives outside the source tree, in the virtual environment it was made for
(`<venv>/patchperf-compiled`, written by `python -m analyze.build_compiled`, which `make`
runs), with a manifest of the hashes of every `analyze/*.py` it was built from. At import,
`activate` puts the build in front of the package's own modules only when the manifest
matches the sources as they are now: an edited module, a checkout of another commit or a
build for another Python is ignored, and the pure-Python modules run. `PATCHPERF_PURE=1`
asks for them. A machine without a C compiler gets no build and the same results, slower.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import sysconfig
from collections.abc import MutableSequence
from pathlib import Path

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


def is_fresh(target: Path, source: Path = SOURCE) -> bool:
    """Whether `target` holds a build of exactly the sources in `source`, for this Python."""
    try:
        manifest = json.loads((target / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return (isinstance(manifest, dict) and manifest.get("abi") == abi()
            and manifest.get("sources") == source_hashes(source))


def activate(package_path: MutableSequence[str], target: Path | None = None,
             source: Path = SOURCE) -> bool:
    """Put a fresh build in front of `package_path` (the package's `__path__`); True if so."""
    if os.environ.get("PATCHPERF_PURE") == "1":
        return False
    target = target if target is not None else build_dir()
    if not is_fresh(target, source):
        return False
    # mypyc's shared runtime is a top-level module beside the package directory
    if str(target) not in sys.path:
        sys.path.append(str(target))
    package_path.insert(0, str(target / "analyze"))
    return True
