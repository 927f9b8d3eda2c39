"""The benchmark mbox generator makes the traffic it promises (tests/bench/gen_mbox.py)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest
from stores import gen_mbox as load_gen_mbox
from unidiff import PatchSet

SEP = b"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
END = datetime(2026, 11, 29, tzinfo=UTC)


gen_mbox = load_gen_mbox()


def split_mboxrd(data: bytes) -> list[bytes]:
    chunks = re.split(rb"(?m)^" + re.escape(SEP), data)
    assert chunks[0] == b""
    out = []
    for chunk in chunks[1:]:
        lines = chunk[:-1].split(b"\n")
        out.append(b"\n".join(ln[1:] if re.match(rb"^>+From ", ln) else ln for ln in lines))
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[Path, object, list[EmailMessage]]:
    path = tmp_path_factory.mktemp("bench") / "gen.mbox"
    stats = gen_mbox.generate(path, n=200, seed=1)
    msgs = [BytesParser(policy=policy.default).parsebytes(m)
            for m in split_mboxrd(path.read_bytes())]
    return path, stats, msgs


def kind(msg: EmailMessage) -> str:
    subject = msg["Subject"]
    if subject.startswith("Re:"):
        return "reply"
    if re.search(r"\s0/\d+\]", subject):
        return "cover"
    return "patch"


def test_count_and_stats(generated):
    path, stats, msgs = generated
    assert len(msgs) == stats.messages == 200
    assert stats.bytes == path.stat().st_size
    kinds = [kind(m) for m in msgs]
    assert (kinds.count("patch"), kinds.count("cover"), kinds.count("reply")) == (
        stats.patches, stats.covers, stats.replies)


def test_mix(generated):
    _, _, msgs = generated
    kinds = [kind(m) for m in msgs]
    assert 0.40 <= kinds.count("patch") / 200 <= 0.60
    assert 0.10 <= kinds.count("cover") / 200 <= 0.25
    assert 0.25 <= kinds.count("reply") / 200 <= 0.45
    trees = {re.match(r"(?:Re: )?\[(?:RFC )?PATCH (\S+)", m["Subject"]).group(1) for m in msgs}
    assert len(trees) >= 4
    assert any(" v2 " in m["Subject"] or " v3 " in m["Subject"] for m in msgs)
    assert len({m["From"].addresses[0].addr_spec for m in msgs}) >= 20


def test_headers_dates_and_ids(generated):
    _, _, msgs = generated
    ids = [m["Message-ID"] for m in msgs]
    assert len(set(ids)) == len(ids)
    for m in msgs:
        assert not m.defects
        assert m["List-Id"] == "<netdev.vger.kernel.org>"
        assert m.get_content_type() == "text/plain" and m.get_param("charset") == "UTF-8"
        date = m["Date"].datetime
        assert END - timedelta(days=30) <= date < END


def test_threading(generated):
    _, _, msgs = generated
    by_id = {m["Message-ID"]: m for m in msgs}
    position = {m["Message-ID"]: i for i, m in enumerate(msgs)}
    for i, m in enumerate(msgs):
        parent = m["In-Reply-To"]
        if kind(m) == "cover" or parent is None:
            assert kind(m) != "reply"
            continue
        assert parent in by_id and position[parent] < i, "parents come first"
        refs = m["References"].split()
        above = by_id[parent]["References"]
        assert refs == (above.split() if above else []) + [parent]
        if kind(m) == "patch":
            assert kind(by_id[parent]) == "cover"
        else:
            assert all(ref in by_id for ref in refs)


def test_patches_are_format_patch_with_valid_diffs(generated):
    _, _, msgs = generated
    lines_per_patch = []
    for m in (m for m in msgs if kind(m) == "patch"):
        body = m.get_content()
        assert "\nSigned-off-by: " in body and "\n---\n" in body
        assert body.endswith("-- \n2.43.0\n")
        diff = body[body.index("diff --git "):body.rindex("-- \n")]
        patch = PatchSet(diff)
        assert 1 <= len(patch) <= 3
        stat = re.search(r"^ (\d+) files? changed(?:, (\d+) insertions?\(\+\))?"
                         r"(?:, (\d+) deletions?\(-\))?$", body, re.M)
        assert stat, m["Subject"]
        assert (int(stat.group(1)), int(stat.group(2) or 0), int(stat.group(3) or 0)) == (
            len(patch), patch.added, patch.removed)
        total = 0
        for f in patch:
            for hunk in f:
                assert hunk.source_length == sum(1 for ln in hunk if not ln.is_added)
                assert hunk.target_length == sum(1 for ln in hunk if not ln.is_removed)
                total += len(hunk)
        lines_per_patch.append(total)
    assert min(lines_per_patch) >= 7 and max(lines_per_patch) <= 130


def test_covers_carry_a_benchmark_table(generated):
    _, _, msgs = generated
    for m in (m for m in msgs if kind(m) == "cover"):
        body = m.get_content()
        assert re.search(r"\| before \([^)]+\) \| after \([^)]+\) \|  delta", body)
        assert re.search(r"^ +\d+ \| +[\d.,]+ \| +[\d.,]+ \| +[+-]\d+\.\d%$", body, re.M)
        assert "files changed" in body or "file changed" in body


def test_replies_quote_and_give_trailers(generated):
    _, _, msgs = generated
    bodies = [m.get_content() for m in msgs if kind(m) == "reply"]
    assert all("\n> " in b or "\n>> " in b for b in bodies)
    assert any("\n>> " in b for b in bodies)
    assert any(re.search(r"^> [-+ @]", b, re.M) for b in bodies), "quoted patch lines"
    assert any("\nReviewed-by: " in b for b in bodies)
    assert any("\nAcked-by: " in b for b in bodies)


def test_encodings_and_escaping(generated):
    path, _, msgs = generated
    raw = path.read_bytes()
    assert re.search(rb"^>From ", raw, re.M)
    assert b"\nSubject: =?utf-8?" in raw
    assert any(not m["Subject"].isascii() for m in msgs)
    qp = [m for m in msgs if m["Content-Transfer-Encoding"] == "quoted-printable"]
    assert qp
    assert all(m.get_content() for m in qp)


def test_deterministic_and_seeded(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    gen_mbox.generate(a, n=50, seed=1)
    gen_mbox.generate(b, n=50, seed=1)
    gen_mbox.generate(c, n=50, seed=2)
    assert a.read_bytes() == b.read_bytes() != c.read_bytes()


def test_command_line(tmp_path, capsys):
    out = tmp_path / "cli.mbox"
    assert gen_mbox.main([str(out), "--n", "30"]) == 0
    assert out.read_bytes().count(SEP) == 30
    assert "30 messages" in capsys.readouterr().out
