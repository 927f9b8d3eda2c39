"""The claim readers and mail parsing compiled with mypyc, used only when built from exactly
these sources.

Claim extraction is pure-Python work spread thin over many small functions (no one above a
tenth of the time); compiled with mypyc (mypy's compiler to C extensions, as black and mypy
ship themselves) the same code reads the 20,000-message benchmark about 1.5x faster. Mail
parsing is the same kind of work around the stdlib's parser.

The build lives outside the source tree, in the virtual environment it was made for
(`<venv>/patchperf-compiled`, written by `python -m analyze.build_compiled`), with a
manifest of the hashes of the modules it compiled. At import, `activate` puts the build in
front of those modules only when the manifest matches their sources as they are now: an
edited module, a checkout of another commit or a build for another Python is ignored, and
the pure-Python modules run. `PATCHPERF_PURE=1` asks for them (`make test` does: the
compiled lane is `make test-compiled`). A machine without a C compiler or Python's headers
gets no build and the same results, slower.
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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# The modules analysis spends its time in: the claim readers, less the word lists and
# pattern tables they are built from (run once, at import), and the mail parsing around the
# stdlib parser (headers, body, diff, trailers: about a sixth less time to parse a mail).
MODULES = (
    "analyze.claims.block_text",
    "analyze.claims.counters",
    "analyze.claims.extract",
    "analyze.claims.lexer.number_spans",
    "analyze.claims.lexer.numbers",
    "analyze.claims.lexer.quantity",
    "analyze.claims.lexer.units",
    "analyze.claims.listings",
    "analyze.claims.lists.fio_output",
    "analyze.claims.lists.paired",
    "analyze.claims.lists.read",
    "analyze.claims.lists.stated",
    "analyze.claims.log_lines",
    "analyze.claims.prose.carried",
    "analyze.claims.prose.gate",
    "analyze.claims.prose.listed",
    "analyze.claims.prose.no_change",
    "analyze.claims.prose.percent",
    "analyze.claims.prose.read",
    "analyze.claims.prose.sentences",
    "analyze.claims.prose.shape",
    "analyze.claims.prose.vs_pairs",
    "analyze.claims.shell.commands",
    "analyze.claims.shell.conditions",
    "analyze.claims.shell.loops",
    "analyze.claims.shared_unit",
    "analyze.claims.siblings",
    "analyze.claims.spread_rows",
    "analyze.claims.tables.baseline_row",
    "analyze.claims.tables.box_rows",
    "analyze.claims.tables.flag_rows",
    "analyze.claims.tables.grouped_sides",
    "analyze.claims.tables.lkp",
    "analyze.claims.tables.named_rows",
    "analyze.claims.tables.perf_stat",
    "analyze.claims.tables.pipe_runs",
    "analyze.claims.tables.prefixed_rows",
    "analyze.claims.tables.read",
    "analyze.claims.tables.roles",
    "analyze.claims.tables.side_rows",
    "analyze.claims.tables.variant_rows",
    "analyze.claims.tables.verified",
    "analyze.claims.tables.vs_cells",
    "analyze.claims.verdicts",
    "analyze.mail.body",
    "analyze.mail.charsets",
    "analyze.mail.decode",
    "analyze.mail.diff",
    "analyze.mail.diffstat",
    "analyze.mail.headers",
    "analyze.mail.links",
    "analyze.mail.message",
    "analyze.mail.mime_fields",
    "analyze.mail.pull",
    "analyze.mail.subject",
    "analyze.mail.trailers",
)
# The folder that holds the `analyze` package.
ROOT = Path(__file__).resolve().parent.parent
MANIFEST = "manifest.json"


def build_dir() -> Path:
    """Where this interpreter's build is kept: in its virtual environment."""
    return Path(sys.prefix) / "patchperf-compiled"


def abi() -> str:
    return str(sysconfig.get_config_var("EXT_SUFFIX") or sys.implementation.cache_tag)


def source_of(module: str, root: Path = ROOT) -> Path:
    return root.joinpath(*module.split(".")).with_suffix(".py")


def built_file(module: str, target: Path) -> Path:
    """Where a build keeps a module's extension (as mypyc lays it out: by package)."""
    *packages, name = module.split(".")
    return target.joinpath(*packages, f"{name}{abi()}")


def source_hashes(root: Path = ROOT, modules: Sequence[str] = MODULES) -> dict[str, str]:
    """sha256 of each compiled module's source: the build's fingerprint. Modules the build
    only imports are left out; an edit there that changes a type a compiled module relies
    on fails loudly (mypyc checks types where they cross into compiled code), and the
    compiled lane builds afresh."""
    return {m: hashlib.sha256(source_of(m, root).read_bytes()).hexdigest() for m in modules}


def fresh_manifest(target: Path, root: Path = ROOT,
                   modules: Sequence[str] = MODULES) -> dict[str, Any] | None:
    """The manifest of `target` when it holds a whole build of exactly the sources of
    `modules` under `root`, for this Python; None otherwise."""
    try:
        manifest = json.loads((target / MANIFEST).read_text())
        hashes = source_hashes(root, modules)
    except (OSError, ValueError):
        return None
    if not (isinstance(manifest, dict) and manifest.get("abi") == abi()
            and manifest.get("sources") == hashes
            and isinstance(manifest.get("runtime"), str)):
        return None
    files = [target / f"{manifest['runtime']}{abi()}"]
    files += [built_file(m, target) for m in modules]
    return manifest if all(f.is_file() for f in files) else None


def is_fresh(target: Path, root: Path = ROOT, modules: Sequence[str] = MODULES) -> bool:
    return fresh_manifest(target, root, modules) is not None


class _Build(importlib.abc.MetaPathFinder):
    """Finds the build's extensions, and only them, by module name: the compiled modules
    and mypyc's shared runtime (named after the modules, not their contents, so a file of
    that name found through sys.path could come from another build)."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        found = self.files.get(fullname)
        return None if found is None else importlib.util.spec_from_file_location(fullname, found)


def activate(target: Path | None = None, root: Path = ROOT,
             modules: Sequence[str] = MODULES) -> bool:
    """Put a fresh build in front of the sources of `modules`; True if so."""
    stray = sorted({p.name for m in modules for p in source_of(m, root).parent.iterdir()
                    if p.suffix in (".so", ".pyd")} if root.is_dir() else set())
    if stray:
        # Python prefers an extension to a source file in the same folder, build or not
        warnings.warn(f"{root}: compiled modules beside the sources ({', '.join(stray)}) "
                      "are used whatever they were built from; remove them", stacklevel=2)
    if os.environ.get("PATCHPERF_PURE") == "1":
        return False
    target = target if target is not None else build_dir()
    manifest = fresh_manifest(target, root, modules)
    if manifest is None:
        return False
    runtime = manifest["runtime"]
    files = {runtime: target / f"{runtime}{abi()}", **{m: built_file(m, target) for m in modules}}
    if not any(isinstance(f, _Build) and f.files == files for f in sys.meta_path):
        sys.meta_path.insert(0, _Build(files))
    return True
