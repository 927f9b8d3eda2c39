"""The layout docs/architecture.md describes, held: the packages depend one way, no module
imports itself in a circle (imports inside functions and under TYPE_CHECKING count), analyze/
does no I/O, package __init__ files hold no code, and the documentation names only files the
repository holds."""

from __future__ import annotations

import ast
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("analyze", "corpus", "ingest", "reports")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for pkg in PACKAGES for p in sorted((REPO / pkg).rglob("*.py"))}


def _imported(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """Each project module `module` imports, anywhere in the file, with the line."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = ".".join(filter(None, [base, node.module]))
            else:
                base = node.module or ""
            # `from pkg import mod` imports pkg.mod; `from mod import name` imports mod
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                     for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module:
                yield name, node.lineno


GRAPH = {m: sorted({t for t, _ in _imported(m, p)}) for m, p in MODULES.items()}


def _cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_the_graph_is_read() -> None:
    # guards the test against reading nothing: known edges of each kind
    assert "analyze.claims.lexer.numbers" in GRAPH["analyze.claims.tables.read"]  # absolute
    assert "analyze.claims.tables.roles" in GRAPH["analyze.claims.tables.read"]  # relative
    assert "corpus.jobs.refresh" in GRAPH["reports.cli"]  # inside a function
    assert "corpus.store" in GRAPH["reports.cli"]  # under TYPE_CHECKING


def test_no_import_cycle() -> None:
    assert _cycles(GRAPH) == []


def test_a_cycle_is_found() -> None:
    assert _cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]


# (importer prefix, what it may not import)
FORBIDDEN = [
    ("analyze", ("corpus", "ingest", "reports")),
    ("ingest", ("corpus", "reports")),
    ("corpus", ("reports",)),
]


@pytest.mark.parametrize(("importer", "forbidden"), FORBIDDEN)
def test_dependencies_point_one_way(importer: str, forbidden: tuple[str, ...]) -> None:
    wrong = [f"{m} imports {t}" for m, targets in GRAPH.items()
             if m.split(".")[0] == importer for t in targets if t.split(".")[0] in forbidden]
    assert wrong == []


# What a package may take from another one beyond the rule above: its whole list.
ONLY = [
    ("ingest", "analyze", {"analyze", "analyze.errors", "analyze.limits", "analyze.model",
                           "analyze.mail.headers", "analyze.mail.charsets"}),
    # its vocabulary, Message-IDs and the charsets of text
    ("reports", "ingest", {"ingest", "ingest.feeds"}),  # feed names, checked before a sync
]


@pytest.mark.parametrize(("importer", "package", "allowed"), ONLY)
def test_what_a_package_takes_from_another(importer: str, package: str,
                                           allowed: set[str]) -> None:
    taken = {t for m, targets in GRAPH.items() if m.split(".")[0] == importer
             for t in targets if t.split(".")[0] == package}
    assert taken <= allowed, sorted(taken - allowed)


def test_the_store_and_its_data_never_reach_for_the_jobs() -> None:
    """corpus/jobs/ runs the store; the store does not run jobs or read sources."""
    wrong = [f"{m} imports {t}" for m, targets in GRAPH.items()
             if m.startswith("corpus.") and not m.startswith("corpus.jobs")
             for t in targets if t.startswith(("corpus.jobs", "ingest"))]
    assert wrong == []


# What a pure module has no business importing or calling.
IO_MODULES = {"sqlite3", "socket", "subprocess", "httpx", "psycopg", "urllib.request",
              "shutil", "tempfile"}
IO_CALLS = {"open", "read_text", "read_bytes", "write_text", "write_bytes", "mkdir", "unlink"}
BUILD = {"analyze.compiled", "analyze.build_compiled"}  # the optional mypyc build's checks


def test_analyze_does_no_io() -> None:
    found = []
    for module, path in MODULES.items():
        if not module.startswith("analyze") or module in BUILD:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""])
                found += [f"{module}:{node.lineno} imports {n}" for n in names
                          if n in IO_MODULES]
            elif isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else (
                    func.attr if isinstance(func, ast.Attribute) else "")
                if name in IO_CALLS:
                    found.append(f"{module}:{node.lineno} calls {name}()")
    assert found == []


def test_package_inits_hold_only_a_docstring() -> None:
    """Importing a package never drags in its modules (analyze/ puts the compiled build in
    place first, and is the one exception)."""
    loaded = []
    for module, path in MODULES.items():
        if path.name != "__init__.py" or module == "analyze":
            continue
        body = ast.parse(path.read_text(encoding="utf-8")).body
        code = [n for n in body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        if code:
            loaded.append(module)
    assert loaded == []


def _tracked() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, text=True, check=True).stdout
    return [REPO / name for name in listed.splitlines() if (REPO / name).is_file()]


# The product brief's documents stay outside the repository; nothing here may send a reader
# to them. (Spelt in pieces, so this file does not name them itself.)
BRIEF = re.compile("|".join(["ARCHITECTURE" + r"\.md", "SOURCES" + r"\.md", "SIMULATOR" + r"\.md",
                             "CLAIMS" + r"\.md", "STYLE" + r"\.md", "shared/" + "design"]))
# the one test that compares the project's schema with the brief's may name it
COMPAT = {REPO / "tests" / "test_schema_compat.py"}


def test_nothing_names_a_document_the_repository_does_not_hold() -> None:
    named = []
    for path in _tracked():
        if path in COMPAT or path.suffix not in (".py", ".md", ".toml", ".json", ".j2", "") :
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        named += [f"{path.relative_to(REPO)}:{text.count(chr(10), 0, m.start()) + 1}: "
                  f"{m.group()}" for m in BRIEF.finditer(text)]
    assert named == []


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
# a path in the repository: analyze/claims/extract.py, `corpus/jobs/`, tests/test_tui*.py (not after
# a hyphen: the robot's `lkp-tests/wiki` is no path of ours)
PATH = re.compile(r"(?<![\w/.-])((?:analyze|corpus|ingest|reports|tests|docs)/[\w./*-]*\w)")


def _ignored(path: str) -> bool:
    """A path git ignores: what a command makes (`tests/bench/out`), not a file to find."""
    return subprocess.run(["git", "check-ignore", "-q", path.rstrip("/") + "/"],
                          cwd=REPO).returncode == 0


def test_the_documentation_links_to_files_that_exist() -> None:
    pages = [REPO / "README.md", REPO / "SECURITY.md", *sorted((REPO / "docs").glob("*.md"))]
    assert len(pages) >= 10
    broken = []
    for page in pages:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(REPO)} -> {target}")
    assert broken == []


def test_every_path_a_file_names_exists() -> None:
    """Docs, docstrings and comments name files of the repository as they are now: a module
    that moved leaves no mention behind."""
    stale = []
    for source in _tracked():
        if source.suffix not in (".py", ".md", ".toml", ".j2") and source.name not in (
                "Makefile", "run"):
            continue
        for path in PATH.findall(source.read_text(encoding="utf-8", errors="replace")):
            if not any(REPO.glob(path)) and not _ignored(path):
                stale.append(f"{source.relative_to(REPO)}: {path}")
    assert stale == []
