"""Subject parsing: netdev examples, and agreement with Patchwork's subject tests."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from email.header import decode_header, make_header

import pytest
from agreement import score
from hypothesis import given, settings
from hypothesis import strategies as st

from analyze.errors import BadInput
from analyze.mail.subject import (
    MAX_SUBJECT_CHARS,
    parse_series_marker,
    parse_subject,
    split_prefixes,
)

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers


@pytest.mark.parametrize(
    ("raw", "expect"),
    [
        (
            "Re: [PATCH net-next 6/6] net_sched: act: remove spinlock in fast\n path",
            dict(
                reply=True,
                tree="net-next",
                index=6,
                total=6,
                version=1,
                version_written=False,
                name="net_sched: act: remove spinlock in fast path",
            ),
        ),
        (
            "[PATCH net-next 0/2] net/sched: act_police: lockless data path",
            dict(
                reply=False,
                tree="net-next",
                index=0,
                total=2,
                name="net/sched: act_police: lockless data path",
            ),
        ),
        ("[PATCH v3 net 2/5] x", dict(tree="net", version=3, index=2, total=5)),
        ("[PATCH net-next v2 00/12] x", dict(tree="net-next", version=2, index=0, total=12)),
        ("[PATCHv3 bpf-next 1/3] x", dict(tree="bpf-next", version=3, index=1, total=3)),
        ("[RFC PATCH iwl-next] x", dict(tree="iwl-next", rfc=True, index=None, total=None)),
        ("[PATCH RESEND net] x", dict(tree="net", resend=True, rfc=False)),
        (
            "[GIT PULL] Networking for 6.8",
            dict(tree=None, prefixes=("GIT", "PULL"), name="Networking for 6.8", version=1),
        ),
        ("[PATCH 1 of 2] x", dict(index=1, total=2)),
        ("[net,v2,1/2] x", dict(tree="net", version=2, index=1, total=2)),
        ("Re: [PATCH] x (v2)", dict(reply=True, version=2, version_written=True, name="x (v2)")),
        ("[RFCv2 PATCH net] x", dict(rfc=True, version=2, tree="net")),
        ("[PATCH RFC v3 wireless-next] x", dict(rfc=True, version=3, tree="wireless-next")),
        ("[PATCH mlx5-next 3/9] x", dict(tree="mlx5-next", index=3, total=9)),
        ("[PATCH iproute2-next v2] x", dict(tree="iproute2-next", version=2)),
        ("[PATCH -next] x", dict(tree="next")),
        ("[PATCH] [net-next] x", dict(tree="net-next", prefixes=("PATCH", "net-next"))),
        ("[0/2] A cover letter", dict(index=0, total=2, name="A cover letter")),
        ("tcp: fix [x] bug", dict(prefixes=(), name="tcp: fix [x] bug")),
        ("[PATCH] rewrite [a-z] regexes", dict(name="rewrite [a-z] regexes")),
        ("Fwd: [PATCH] x", dict(reply=False, name="x")),
        ("Aw: [PATCH] x", dict(reply=True, name="x")),
        ("[PATCH] Re work the frobnicator", dict(reply=False, name="Re work the frobnicator")),
        ("[PATCH v4l2-next] x", dict(version=1, tree="v4l2-next")),
        ("[PATCH] meep,\n meep", dict(name="meep, meep", raw="[PATCH] meep, meep")),
        ("", dict(name="", prefixes=(), index=None, reply=False)),
    ],
)
def test_netdev_subjects(raw, expect):
    subject = parse_subject(raw)
    for field, value in expect.items():
        assert getattr(subject, field) == value, (raw, field, subject)


def test_prefixes_are_kept_as_written():
    subject = parse_subject("Re: [PATCH net-next v2 00/12] x")
    assert subject.prefixes == ("PATCH", "net-next", "v2", "00/12")


def test_not_text_is_bad_input():
    with pytest.raises(BadInput, match="subject must be text"):
        parse_subject(b"[PATCH] x")  # type: ignore[arg-type]


def test_absurd_subject_is_cut():
    subject = parse_subject("[PATCH] " + "a" * 100_000)
    assert len(subject.raw) <= MAX_SUBJECT_CHARS


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="[]PATCHv0123456789/ ,ReFwd:-of()\n\tx", min_size=2000, max_size=6000))
def test_hostile_subjects_stay_fast(text):
    start = time.perf_counter()
    parse_subject(text)
    assert time.perf_counter() - start < 0.25  # generous: loaded CI machines


@pytest.mark.parametrize(
    "text",
    [
        "[" * 10_000,
        "Re: " * 5_000,
        "[PATCH " + "1" * 5_000 + "/" + "2" * 5_000 + "] x",
        "[PATCH v" + "9" * 5_000 + "] x (v" + "9" * 5_000 + ")",
        "[" + " " * 8_000 + "]",
        "x" + "(" * 8_000 + ")",
    ],
)
def test_pathological_subjects(text):
    start = time.perf_counter()
    parse_subject(text)
    assert time.perf_counter() - start < 0.25  # generous: loaded CI machines


# --- agreement with Patchwork's subject tests -------------------------------------------------


def _decoded(raw: str) -> str:
    # RFC 2047 is the decoder's job (parse_subject takes decoded text); stdlib stands in for it.
    return str(make_header(decode_header(raw))) if "=?" in raw else raw


def _semantic_prefixes(subject, case) -> list[str]:
    # Patchwork drops PATCH (and any configured extra prefixes) and keeps the rest as written.
    dropped = {"patch"} | {p.lower() for p in case.get("options", {}).get("also_drop_prefixes", [])}
    return [p for p in subject.prefixes if p.lower() not in dropped]


def _check(case) -> str | None:
    """None on agreement, else the reason for the disagreement."""
    check, expect = case["check"], case["expect"]
    if check == "clean_subject":
        subject = parse_subject(_decoded(case["subject"]))
        name = expect["name"]
        if name.startswith("["):  # Patchwork's own `[RFC,1/2] meep` format: compare the tail
            name = name.partition("] ")[2]
        if subject.name != name:
            return f"name {subject.name!r} != {name!r}"
        if "prefixes" in expect and _semantic_prefixes(subject, case) != expect["prefixes"]:
            return f"prefixes {subject.prefixes!r} vs {expect['prefixes']!r}"
    elif check == "is_reply":
        reply = parse_subject(case["subject"]).reply
        if reply != expect["is_reply"]:
            return f"is_reply {reply}"
    elif check == "split_prefixes":
        if split_prefixes(case["prefix_string"]) != expect["tokens"]:
            return f"tokens {split_prefixes(case['prefix_string'])!r}"
    elif check == "series_marker":
        got = parse_series_marker(case["prefix_tokens"])
        if got != (expect["series_index"], expect["series_total"]):
            return f"marker {got!r}"
    elif check == "version":
        # the version as parse_subject reads it from these prefixes and this name
        tokens = case["prefix_tokens"]
        got = parse_subject(f"[{' '.join(tokens)}] " * bool(tokens) + case["subject_name"]).version
        if got != expect["series_version"]:
            return f"version {got}"
    elif check == "classification":
        subject = parse_subject(case["subject"])
        if (subject.index == 0) != expect["is_cover_letter"]:
            return f"index {subject.index!r}"
    else:
        return f"unknown check {check!r}"
    return None


@pytest.mark.peer
def test_patchwork_subject_cases(peer_dir):
    cases = json.loads((peer_dir / "patchwork-mails/subject_cases.json").read_text())
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    disagreements = []
    for case in cases:
        reason = _check(case)
        tally[case["check"]][1] += 1
        if reason is None:
            tally[case["check"]][0] += 1
        else:
            disagreements.append(f"{case['check']}: {case.get('subject')!r}: {reason}")
    for check, (agree, total) in sorted(tally.items()):
        print(f"patchwork subject {check}: {agree}/{total} = {agree / total:.0%}")
    for line in disagreements:
        print("  disagree:", line)
    for check, (agree, total) in tally.items():
        assert agree / total >= 0.95, (check, disagreements)


def _b4_check(case) -> str | None:
    category, given, expect = case["category"], case["input"], case["expect"]
    if category == "subject_parse":
        subject = parse_subject(given["subject"])
        got = {
            "series_index": subject.index,
            "series_total": subject.total,
            "series_version": subject.version,
        }
        wrong = {k: got[k] for k, v in expect.items() if got[k] != v}
        return f"{wrong!r}" if wrong else None
    if category == "cover_detection":
        # b4 infers 1/1 for a bare [PATCH]; ours leaves it None: either way, not a cover.
        covers = [i for i, s in enumerate(given["subjects"]) if parse_subject(s).index == 0]
        cover = covers[0] if covers else None
        patches = len(given["subjects"]) - len(covers)
        if (cover, patches) != (expect["cover_index"], expect["patches"]):
            return f"cover {cover!r}, patches {patches}"
        return None
    if category == "subject_rebuild":
        # Rebuilding is b4's feature; the parse facts under it are ours: prefixes as written,
        # in order, and the title (brackets inside it are not prefixes).
        raw = given["subject"]
        subject = parse_subject(raw)
        head, _, title = raw.partition("] ")
        if subject.name != title or list(subject.prefixes) != head[1:].split():
            return f"name {subject.name!r}, prefixes {subject.prefixes!r}"
        return None
    return "not a subject fact"


@pytest.mark.peer
def test_b4_subject_cases(peer_dir):
    cases = json.loads((peer_dir / "b4-samples/inline_cases.json").read_text())
    wanted = {"subject_parse", "cover_detection", "subject_rebuild"}
    score(
        ((c["category"], repr(c["input"]), _b4_check(c)) for c in cases if c["category"] in wanted),
        label="b4 ",
    )


def test_colon_after_the_prefixes_is_not_part_of_the_name():
    subject = parse_subject("[Patch 2/2]: powerpc/x: fix the thing")
    assert (subject.name, subject.index, subject.total) == ("powerpc/x: fix the thing", 2, 2)
