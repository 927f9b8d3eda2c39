"""`python -m analyze.build_compiled`: compile the claim readers with mypyc into this
interpreter's virtual environment (see analyze/compiled.py, which decides at import whether
the build matches the sources and is used)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .compiled import MANIFEST, MODULES, SOURCE, abi, build_dir, source_hashes


def build(target: Path | None = None, source: Path = SOURCE) -> Path:
    """Compile MODULES with mypyc into `target` and write its manifest. The whole package
    is copied to a scratch directory first (mypyc type-checks the modules against the ones
    they import, and writes its extensions beside the sources)."""
    target = target if target is not None else build_dir()
    hashes = source_hashes(source)
    with tempfile.TemporaryDirectory(prefix="patchperf-mypyc-") as tmp:
        work = Path(tmp)
        shutil.copytree(source, work / "analyze", ignore=shutil.ignore_patterns(
            "__pycache__", "*.so", "*.pyd"))
        # Checked the way `make lint` checks them, without the project's file list
        (work / "mypy.ini").write_text("[mypy]\nignore_missing_imports = True\n")
        subprocess.run(
            [sys.executable, "-m", "mypyc", *(f"analyze/{m}.py" for m in MODULES)],
            cwd=work, check=True, capture_output=True, text=True,
        )
        if target.exists():
            shutil.rmtree(target)
        (target / "analyze").mkdir(parents=True)
        suffix = abi()
        for module in MODULES:
            shutil.copy2(work / "analyze" / f"{module}{suffix}", target / "analyze")
        for runtime in work.glob(f"*__mypyc{suffix}"):
            shutil.copy2(runtime, target)
    # the manifest last: a build cut short is no build
    (target / MANIFEST).write_text(json.dumps({"abi": abi(), "sources": hashes}, indent=1))
    return target


def main(argv: list[str]) -> int:
    if argv:
        print("usage: python -m analyze.build_compiled", file=sys.stderr)
        return 2
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
