"""`python -m analyze.build_compiled [--force]`: compile the claim readers with mypyc into this
interpreter's virtual environment (see analyze/compiled.py, which decides at import whether
the build matches the sources and is used). A build that matches the sources is kept, unless
`--force`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .compiled import MANIFEST, MODULES, ROOT, abi, build_dir, built_file, is_fresh, source_hashes


def build(target: Path | None = None, root: Path = ROOT) -> Path:
    """Compile MODULES with mypyc into `target`, with its manifest.

    The package is copied to a scratch directory (mypyc type-checks the modules against the
    ones they import, and writes its extensions beside the sources) and the manifest holds
    the hashes of that copy: a source edited during the build leaves the build stale, not
    wrong. The new build is made beside `target` and swapped in whole, so a process that
    looks meanwhile finds the old build, or none, never half of one."""
    target = target if target is not None else build_dir()
    with tempfile.TemporaryDirectory(prefix="patchperf-mypyc-") as tmp:
        work = Path(tmp)
        shutil.copytree(root / "analyze", work / "analyze", ignore=shutil.ignore_patterns(
            "__pycache__", "*.so", "*.pyd"))
        hashes = source_hashes(work)
        # Checked the way `make lint` checks them, without the project's file list
        (work / "mypy.ini").write_text("[mypy]\nignore_missing_imports = True\n")
        subprocess.run(
            [sys.executable, "-m", "mypyc", *(m.replace(".", "/") + ".py" for m in MODULES)],
            cwd=work, check=True, capture_output=True, text=True,
        )
        suffix = abi()
        runtimes = [p.name[:-len(suffix)] for p in work.glob(f"*__mypyc{suffix}")]
        if len(runtimes) != 1:
            raise OSError(f"mypyc left {len(runtimes)} runtime modules, expected one")
        fresh = target.with_name(f"{target.name}.new-{os.getpid()}")
        shutil.rmtree(fresh, ignore_errors=True)
        for module in MODULES:
            built_file(module, fresh).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(built_file(module, work), built_file(module, fresh))
        shutil.copy2(work / f"{runtimes[0]}{suffix}", fresh)
    manifest = {"abi": abi(), "runtime": runtimes[0], "modules": list(MODULES), "sources": hashes}
    (fresh / MANIFEST).write_text(json.dumps(manifest, indent=1))
    old = target.with_name(f"{target.name}.old-{os.getpid()}")
    if target.exists():
        os.replace(target, old)
    os.replace(fresh, target)
    shutil.rmtree(old, ignore_errors=True)
    return target


def main(argv: list[str]) -> int:
    if argv not in ([], ["--force"]):
        print("usage: python -m analyze.build_compiled [--force]", file=sys.stderr)
        return 2
    if not argv and is_fresh(build_dir()):
        print(f"patchperf: the compiled build in {build_dir()} matches the sources")
        return 0
    try:
        where = build()
    except (OSError, subprocess.CalledProcessError) as exc:
        # No compiler, no headers: the pure-Python modules do the same, slower.
        said = getattr(exc, "stderr", None) or ""
        print(f"patchperf: no compiled build ({exc}); the pure-Python modules are used"
              + ("\n" + "\n".join(said.splitlines()[-5:]) if said else ""), file=sys.stderr)
        return 0
    print(f"patchperf: compiled {len(MODULES)} modules into {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
