"""The bundled corpus (corpus/threads/*.mbox) is well-formed mail, threading and diffs.

These files feed `make demo` and many tests, so a broken hunk header or a dangling
In-Reply-To here would show up as a confusing failure somewhere else.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest
from unidiff import PatchSet

THREADS = Path(__file__).resolve().parent.parent / "corpus" / "threads"
SEP = b"From mboxrd@z Thu Jan  1 00:00:00 1970"
FILES = ["series-v1-v2.mbox", "review-quoted-diff.mbox", "pull-request.mbox",
         "bpf-next-attachment.mbox", "lockless-stats.mbox"]
# Replies whose parent is deliberately not in the file (README: the missing sub-thread).
DANGLING = {"<20250605121904.GA77120@lab.example.de>"}
REQUIRED = ["From", "To", "Cc", "Subject", "Date", "Message-ID", "MIME-Version",
            "Content-Type", "List-Id"]
HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
STAT_LINE = re.compile(r"^ (\S+) +\| +(\d+) ([+-]*)$")
STAT_SUM = re.compile(
    r"^ (\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?$")


def split_mboxrd(data: bytes) -> list[bytes]:
    """Messages of an mboxrd file, one `>` taken off every `>+From ` line."""
    assert data.startswith(SEP + b"\n"), "an mboxrd file starts with its separator"
    chunks = re.split(rb"(?m)^" + re.escape(SEP) + rb"\n", data)[1:]
    out = []
    for chunk in chunks:
        assert chunk.endswith(b"\n\n"), "each message is followed by an empty line"
        lines = chunk[:-1].split(b"\n")
        out.append(b"\n".join(ln[1:] if re.match(rb"^>+From ", ln) else ln for ln in lines))
    return out


def load(name: str) -> list[EmailMessage]:
    raw = (THREADS / name).read_bytes()
    return [BytesParser(policy=policy.default).parsebytes(m) for m in split_mboxrd(raw)]


def text_parts(msg: EmailMessage) -> list[str]:
    """Decoded text of the plain-text parts and patch attachments (HTML is ignored)."""
    return [part.get_content() for part in msg.walk()
            if part.get_content_type() in ("text/plain", "text/x-patch")]


def diff_sections(text: str) -> list[str]:
    """Each unquoted `diff --git` section, up to the next one or the `-- ` signature."""
    sections: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines(keepends=True):
        if line.startswith("diff --git "):
            current = [line]
            sections.append(current)
        elif line == "-- \n":
            current = None
        elif current is not None:
            current.append(line)
    return ["".join(s) for s in sections]


def count_hunks(section: str) -> list[tuple[int, int, int, int]]:
    """(declared old, counted old, declared new, counted new) for every hunk."""
    result = []
    lines = section.encode().split(b"\n")
    i = 0
    while i < len(lines):
        m = HUNK.match(lines[i])
        if not m:
            i += 1
            continue
        old = int(m.group(2)) if m.group(2) is not None else 1
        new = int(m.group(4)) if m.group(4) is not None else 1
        seen_old = seen_new = 0
        i += 1
        while i < len(lines) and (seen_old < old or seen_new < new):
            tag = lines[i][:1]
            if tag in (b" ", b""):
                seen_old, seen_new = seen_old + 1, seen_new + 1
            elif tag == b"-":
                seen_old += 1
            elif tag == b"+":
                seen_new += 1
            else:
                break
            i += 1
        result.append((old, seen_old, new, seen_new))
    return result


def diffstat(text: str) -> tuple[dict[str, int], tuple[int, int, int]] | None:
    files: dict[str, int] = {}
    for line in text.splitlines():
        if m := STAT_LINE.match(line):
            files[m.group(1)] = int(m.group(2))
        elif files and (m := STAT_SUM.match(line)):
            return files, (int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0))
    return None


@pytest.fixture(scope="module", params=FILES)
def mbox(request) -> tuple[str, list[EmailMessage]]:
    return request.param, load(request.param)


def test_readme_names_every_file():
    readme = (THREADS / "README.md").read_text()
    on_disk = sorted(p.name for p in THREADS.glob("*.mbox"))
    assert on_disk == sorted(FILES)
    for name in FILES:
        assert name in readme


def test_file_is_valid_mboxrd(mbox):
    name, _ = mbox
    raw = (THREADS / name).read_bytes()
    for line in raw.split(b"\n"):
        # the only unescaped `From ` lines are the separators themselves
        if line.startswith(b"From "):
            assert line == SEP
    assert raw.count(SEP) == len(mbox[1])


def test_escaped_from_lines_round_trip():
    raw = (THREADS / "review-quoted-diff.mbox").read_bytes()
    assert b"\n>From the perf profile" in raw
    assert b"\n>>From the numbers alone" in raw
    bodies = [m.get_content() for m in load("review-quoted-diff.mbox")]
    assert any("\nFrom the perf profile" in b for b in bodies)
    assert any("\n>From the numbers alone" in b for b in bodies)


def test_required_headers(mbox):
    name, msgs = mbox
    limit = datetime(2026, 11, 29, tzinfo=UTC)
    for msg in msgs:
        for key in REQUIRED:
            assert msg[key], f"{name}: {msg['Message-ID']} lacks {key}"
        assert not msg.defects, (name, msg["Message-ID"], msg.defects)
        assert msg["List-Id"] == "<netdev.vger.kernel.org>"
        date = msg["Date"].datetime
        assert date.tzinfo is not None and 2024 <= date.year <= 2026 and date < limit
        assert re.fullmatch(r"<[^<>@\s]+@[^<>@\s]+>", msg["Message-ID"])
        for part in msg.walk():
            if part.is_multipart():
                continue
            assert part.get_param("charset"), (name, msg["Message-ID"])
            assert part["Content-Transfer-Encoding"], (name, msg["Message-ID"])


def test_message_ids_are_unique():
    seen: set[str] = set()
    for name in FILES:
        for msg in load(name):
            assert msg["Message-ID"] not in seen
            seen.add(msg["Message-ID"])


def test_threading(mbox):
    name, msgs = mbox
    by_id = {m["Message-ID"]: m for m in msgs}
    for msg in msgs:
        parent = msg["In-Reply-To"]
        if parent is None:
            assert msg["References"] is None
            assert not msg["Subject"].startswith("Re:")
            continue
        refs = msg["References"].split()
        assert refs[-1] == parent
        for ref in refs:
            assert ref in by_id or ref in DANGLING, f"{name}: {ref} not in the file"
        if parent in by_id:
            above = by_id[parent]["References"]
            assert refs == (above.split() if above else []) + [parent]


def test_every_diff_parses_and_hunks_add_up(mbox):
    name, msgs = mbox
    for msg in msgs:
        for text in text_parts(msg):
            for section in diff_sections(text):
                patch = PatchSet(section)
                assert len(patch) == 1
                for old, seen_old, new, seen_new in count_hunks(section):
                    assert (old, new) == (seen_old, seen_new), (name, msg["Subject"])
                for hunk in patch[0]:
                    body = [ln for ln in hunk if not ln.is_context]
                    assert body, "a hunk changes something"
                    assert hunk.source_length == sum(1 for ln in hunk if not ln.is_added)
                    assert hunk.target_length == sum(1 for ln in hunk if not ln.is_removed)


def test_corpus_carries_the_expected_diffs():
    # 4 + 4 files in the series patches, the page_pool patch, the attachment, act_skbedit;
    # quoted hunks are not counted
    files_seen = []
    for name in FILES:
        for msg in load(name):
            for text in text_parts(msg):
                files_seen += [f.path for s in diff_sections(text) for f in PatchSet(s)]
    assert len(files_seen) == 11
    assert "tools/testing/selftests/net/veth_gro_batch.sh" in files_seen


def test_patch_diffstats_match_their_diffs(mbox):
    name, msgs = mbox
    for msg in msgs:
        for text in text_parts(msg):
            sections = diff_sections(text)
            if not sections:
                continue
            stat = diffstat(text)
            assert stat is not None, (name, msg["Subject"])
            files, (nfiles, ins, dels) = stat
            patch = PatchSet("".join(sections))
            assert {f.path: f.added + f.removed for f in patch} == files
            assert (nfiles, ins, dels) == (len(patch), patch.added, patch.removed)
            assert text.endswith("-- \n2.43.0\n"), "format-patch signature"


def test_cover_diffstats_sum_their_patches():
    msgs = load("series-v1-v2.mbox")
    for version_tag in ("net-next 0/3", "net-next v2 0/3"):
        cover = next(m for m in msgs if f"[PATCH {version_tag}]" in m["Subject"])
        patches = [m for m in msgs if m["In-Reply-To"] == cover["Message-ID"]
                   and "/3]" in m["Subject"] and not m["Subject"].startswith("Re:")]
        assert len(patches) == 3
        totals: dict[str, int] = {}
        for p in patches:
            for f in PatchSet("".join(diff_sections(p.get_content()))):
                totals[f.path] = totals.get(f.path, 0) + f.added + f.removed
        stat = diffstat(cover.get_content())
        assert stat is not None and stat[0] == totals


def test_series_file_has_what_the_readme_promises():
    msgs = load("series-v1-v2.mbox")
    subjects = [m["Subject"] for m in msgs]
    v1 = next(m for m in msgs if m["Subject"].startswith("[PATCH net-next 0/3]"))
    v2 = next(m for m in msgs if m["Subject"].startswith("[PATCH net-next v2 0/3]"))
    assert v1["Message-ID"] == "<20240312101500.12345-1-alice@example.org>"
    assert v2["In-Reply-To"] is None and v2["From"] == v1["From"]
    assert f"https://lore.kernel.org/netdev/{v1['Message-ID'][1:-1]}/" in v2.get_content()
    assert "threads | before (pps) | after (pps) |  delta" in v1.get_content()
    assert sum(s.startswith("[PATCH net-next v2 ") for s in subjects) == 4
    bodies = {m["Message-ID"]: m.get_content() for m in msgs}
    replies = [m for m in msgs if m["Subject"].startswith("Re:")]
    trailers = {key for m in replies for key in ("Reviewed-by:", "Acked-by:", "Tested-by:")
                if f"\n{key} " in bodies[m["Message-ID"]]}
    assert trailers == {"Reviewed-by:", "Acked-by:", "Tested-by:"}
    assert any("\n> +\t" in bodies[m["Message-ID"]] for m in replies), "a quoted hunk"


def test_review_file_has_encoded_from_and_quoted_printable():
    msgs = load("review-quoted-diff.mbox")
    raw = (THREADS / "review-quoted-diff.mbox").read_text(encoding="utf-8")
    assert "From: =?UTF-8?q?J=C3=B6rg=20Sch=C3=A4fer?=" in raw
    joerg = [m for m in msgs if m["From"].addresses[0].display_name == "Jörg Schäfer"]
    assert len(joerg) == 2
    qp = [m for m in msgs if m["Content-Transfer-Encoding"] == "quoted-printable"]
    assert len(qp) == 1
    body = qp[0].get_content()
    assert "Grüße,\nJörg" in body and "38 µs" in body
    assert "for i in 1 2 4 8 16 32; do super_netperf" in body
    assert any("\n>> -\tdo {" in m.get_content() for m in msgs), "a two-level quoted hunk"
    assert any("went from 5.1 Mpps\nto 7.9 Mpps with 8 RX queues" in m.get_content()
               for m in msgs)


def test_pull_request_shape():
    pr, reply = load("pull-request.mbox")
    body = pr.get_content()
    assert pr["Subject"] == "[GIT PULL] Networking for v6.9-rc2"
    assert re.search(r"The following changes since commit [0-9a-f]{40}:", body)
    assert ("are available in the Git repository at:\n\n  git://git.kernel.org/pub/scm/linux/"
            "kernel/git/netdev/net.git tags/net-6.9-rc2\n") in body
    assert re.search(r"for you to fetch changes up to [0-9a-f]{40}:", body)
    assert diffstat(body) is not None
    assert reply["In-Reply-To"] == pr["Message-ID"]


def test_attachment_patch_and_html_alternative():
    msg, _ = load("bpf-next-attachment.mbox")
    assert msg.get_content_type() == "multipart/mixed"
    types = [p.get_content_type() for p in msg.walk()]
    assert "text/html" in types and "text/x-patch" in types
    attachment = next(p for p in msg.walk() if p.get_content_type() == "text/x-patch")
    assert attachment["Content-Transfer-Encoding"] == "base64"
    assert attachment.get_filename().endswith(".patch")
    assert attachment.get_content().startswith("From ")
