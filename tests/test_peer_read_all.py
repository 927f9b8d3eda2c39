"""Every Patchwork mail (mail/, series/, fuzz/) and every b4 sample is read without a crash
(issue 2, acceptance 3): either analysed, or rejected with one line naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SHARED

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers

PEER = SHARED / "peer"


def _peer_files() -> list[Path]:
    files = []
    for sub in ("patchwork-mails/mail", "patchwork-mails/series", "patchwork-mails/fuzz"):
        files += sorted((PEER / sub).glob("*.mbox"))  # *.mbox.template: out of scope
    files += sorted((PEER / "b4-samples").glob("*.mbox"))
    files += sorted((PEER / "b4-samples").glob("*.txt"))
    return files


FILES = _peer_files()


def test_peer_fixtures_are_there(peer_dir):
    assert len(FILES) > 100, f"expected the peer fixtures under {peer_dir}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_read_without_crash(cli, path):
    result = cli("analyze", path, "--format", "json")
    assert "Traceback" not in result.err
    assert result.code in (0, 1, 2)
    for line in result.err.splitlines():
        assert line.startswith("patchperf: ") and str(path) in line, line
    if result.code == 0:
        assert result.json()["messages"]
    elif result.code == 2:
        assert len(result.err.splitlines()) >= 1
