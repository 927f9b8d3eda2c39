"""Trailer parsing: own examples, Patchwork's tag counting, b4's trailer samples."""

from __future__ import annotations

import email
import email.policy
import json
import mailbox
import time
from collections import Counter

import pytest
from agreement import score

from analyze.errors import BadInput
from analyze.mail.trailers import parse_trailers, split_person
from analyze.model import Trailer

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers


def _depth(line: str) -> tuple[int, str]:
    # One quote level is `>` plus at most one following space (analyze/mail/body.py).
    depth = 0
    while line.startswith(">"):
        line = line[1:]
        if line.startswith(" "):
            line = line[1:]
        depth += 1
    return depth, line


def _parse(text: str) -> tuple[Trailer, ...]:
    """Test-local stand-in for the decoder: split lines, strip quote markers, keep depths."""
    pairs = [_depth(line) for line in text.split("\n")]
    return parse_trailers([p[1] for p in pairs], [p[0] for p in pairs])


def _lines(trailers) -> list[str]:
    return [f"{t.key}: {t.value}" for t in trailers]


# --- own examples ---------------------------------------------------------------------------


SEED_000_LIKE = """\
On 07/02/15 09:07, Eric Dumazet wrote:
> Final step for gact RCU operation :
>
> Signed-off-by: Eric Dumazet <edumazet@google.com>
> Cc: Alexei Starovoitov <ast@plumgrid.com>

Acked-by: Jamal Hadi Salim <jhs@mojatatu.com>

cheers,
jamal
"""


def test_reply_ack_mid_body_counts_and_quoted_does_not():
    assert _parse(SEED_000_LIKE) == (
        Trailer(
            "Acked-by",
            "Jamal Hadi Salim <jhs@mojatatu.com>",
            "Jamal Hadi Salim",
            "jhs@mojatatu.com",
        ),
    )


def test_canonical_case_and_keys():
    text = "signed-off-by: A <a@x.org>\nREVIEWED-BY: B <b@x.org>\nco-developed-by: C <c@x.org>\n"
    assert [t.key for t in _parse(text)] == ["Signed-off-by", "Reviewed-by", "Co-developed-by"]


def test_stops_at_separator_and_diff():
    text = (
        "Fix it.\n\nSigned-off-by: A <a@x.org>\n---\nv2: Acked-by: nobody <n@x.org>\n"
        "Acked-by: Not A Trailer <n@x.org>\n diff | 2 +-\n"
    )
    assert _lines(_parse(text)) == ["Signed-off-by: A <a@x.org>"]
    diff = "Signed-off-by: A <a@x.org>\ndiff --git a/x b/x\n+Acked-by: B <b@x.org>\n"
    assert _lines(_parse(diff)) == ["Signed-off-by: A <a@x.org>"]
    plain = "Signed-off-by: A <a@x.org>\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-Cc: c@x.org\n"
    assert _lines(_parse(plain)) == ["Signed-off-by: A <a@x.org>"]


def test_signature_ends_trailers():
    assert _parse("Acked-by: A <a@x.org>\n-- \nCc: b@x.org\n") == _parse("Acked-by: A <a@x.org>")


def test_fixes_needs_a_commit_id():
    text = (
        "Fixes: ?\nFixes: the bug\nFixes: abc123\n"
        'Fixes: 1234567890ab ("net: frob")\nfixes: deadbeef\n'
    )
    assert _lines(_parse(text)) == ['Fixes: 1234567890ab ("net: frob")', "Fixes: deadbeef"]


def test_fixes_subject_wrapped_without_indent():
    text = 'Fixes: 1234567890ab ("net: a subject long enough to be\nwrapped by the client")\nok\n'
    assert _lines(_parse(text)) == [
        'Fixes: 1234567890ab ("net: a subject long enough to be wrapped by the client")'
    ]


def test_wrapped_link_rejoins():
    text = "Link: https://lore.kernel.org/netdev/20240101120000.1234\n -1-someone@example.com/\n"
    assert _lines(_parse(text)) == [
        "Link: https://lore.kernel.org/netdev/20240101120000.1234-1-someone@example.com/"
    ]
    assert _lines(_parse("Link:\nhttps://x.org/a\n")) == ["Link: https://x.org/a"]


def test_wrapped_person_rejoins_and_indented_text_does_not():
    text = "Reviewed-by: Some Body\n  <some@body.org>\nTested-by: T <t@x.org>\n  thanks!\n"
    assert _lines(_parse(text)) == [
        "Reviewed-by: Some Body <some@body.org>",
        "Tested-by: T <t@x.org>",
    ]


def test_indented_trailer_is_not_counted():
    # a pasted `git log` in a reply
    assert _parse("commit 1234\n    Signed-off-by: A <a@x.org>\n") == ()


def test_comments_and_mailto_junk():
    text = (
        "Cc: stable@vger.kernel.org # 6.1+\n"
        "Reviewed-by: J <j@x.org<mailto:j@x.org>>\n"
        "Closes: https://bugzilla.kernel.org/show_bug.cgi?id=1  # the report\n"
    )
    assert _lines(_parse(text)) == [
        "Cc: stable@vger.kernel.org",
        "Reviewed-by: J <j@x.org>",
        "Closes: https://bugzilla.kernel.org/show_bug.cgi?id=1",
    ]


@pytest.mark.parametrize(
    ("value", "expect"),
    [
        ("Simple Name <simple@example.com>", ("Simple Name", "simple@example.com")),
        ('"Doe, Jane" <jane@example.com>', ('"Doe, Jane"', "jane@example.com")),
        (
            "Developer Foo (EXAMPLECORP) <dev@example.com>",
            ("Developer Foo (EXAMPLECORP)", "dev@example.com"),
        ),
        ("<bare@example.com>", (None, "bare@example.com")),
        ("bare@example.com", (None, "bare@example.com")),
        ("Jamal", ("Jamal", None)),
    ],
)
def test_split_person(value, expect):
    assert split_person(value) == expect


def test_unknown_keys_and_prose_are_ignored():
    assert _parse("Note: this is fine\nAcked-by:\nReviewed-by: \n") == ()


def test_mismatched_depths_is_bad_input():
    with pytest.raises(BadInput, match="quote depths"):
        parse_trailers(["a", "b"], [0])


def test_hostile_body_stays_fast():
    lines = ["Fixes: " + "(" * 20_000, "Link: " + " " * 50_000 + "x", "Cc: " + "a@" * 30_000]
    lines += ["Acked-by: x"] * 50_000
    start = time.perf_counter()
    parse_trailers(lines, [0] * len(lines))
    assert time.perf_counter() - start < 2


# --- Patchwork: tag counting ----------------------------------------------------------------


@pytest.mark.peer
def test_patchwork_tag_counting(peer_dir):
    cases = json.loads((peer_dir / "patchwork-mails/inline_cases.json").read_text())
    cases = [c for c in cases if c["category"] == "tag_counting"]
    disagreements = []
    for case in cases:
        text = case["input"].get("text", case["input"].get("patch_comment", ""))
        counts = Counter(t.key for t in _parse(text))
        got = {key: counts[key] for key in case["expect"]}
        if got != case["expect"]:
            disagreements.append(f"{text!r}: {got} != {case['expect']}")
    agree = len(cases) - len(disagreements)
    print(f"patchwork tag_counting: {agree}/{len(cases)} = {agree / len(cases):.0%}")
    for line in disagreements:
        print("  disagree:", line)
    assert agree / len(cases) >= 0.95, disagreements


# --- b4: inline cases -----------------------------------------------------------------------


def _b4_inline(case) -> str | None:
    category, given, expect = case["category"], case["input"], case["expect"]
    if category == "fixes_trailer_validation":
        got = [t.value for t in _parse(given["followup_body"]) if t.key == "Fixes"]
        return None if got == expect["fixes_values"] else f"fixes {got!r}"
    if category == "trailer_address":
        trailers = _parse(f"{given['name']}: {given['value']}")
        if len(trailers) != 1:
            return f"{len(trailers)} trailers"
        got = (trailers[0].name or "", trailers[0].email)
        if got != tuple(expect["address"]) or trailers[0].value != expect["value"]:
            return f"{got!r} value {trailers[0].value!r}"
        return None
    if category == "link_trailers":
        got = _lines(_parse("\n".join(given["body_trailers"])))
        return None if got == given["body_trailers"] else f"{got!r}"
    if category == "followup_take_flow":
        body = "> Some quoted text\n" + "\n".join(given["replies"])
        got = _lines(_parse(body))
        return None if got == expect["applied_commit_contains"] else f"{got!r}"
    return "not a trailer fact"


@pytest.mark.peer
def test_b4_inline_trailer_cases(peer_dir):
    cases = json.loads((peer_dir / "b4-samples/inline_cases.json").read_text())
    wanted = {"fixes_trailer_validation", "trailer_address", "link_trailers", "followup_take_flow"}
    score(
        ((c["category"], repr(c["input"]), _b4_inline(c)) for c in cases if c["category"] in wanted),
        label="b4 ",
    )


# --- b4: sample mails -----------------------------------------------------------------------


def _body(message: email.message.Message) -> str:
    # Test-local: the project's decoder is a separate module; the samples are plain text.
    part = next((p for p in message.walk() if p.get_content_type() == "text/plain"), message)
    payload = part.get_payload(decode=True) or b""
    return payload.decode(part.get_content_charset() or "utf-8", errors="replace")


def _thread(path) -> list[tuple[str, tuple[Trailer, ...]]]:
    box = mailbox.mbox(path, factory=lambda f: email.message_from_binary_file(f))
    return [(str(m.get("Subject", "")), _parse(_body(m))) for m in box]


@pytest.mark.peer
@pytest.mark.parametrize("name", ["trailers-test-simple", "trailers-test-extinfo"])
def test_b4_parse_trailers_samples(peer_dir, name):
    expect = next(
        e
        for e in json.loads((peer_dir / "b4-samples/expectations.json").read_text())
        if e["file"] == f"{name}.txt"
    )["expect"]
    raw = (peer_dir / f"b4-samples/{name}.txt").read_bytes()
    trailers = _parse(_body(email.message_from_bytes(raw, policy=email.policy.compat32)))
    got = [(t.key, t.value) for t in trailers]
    assert got == [(t["name"], t["value"]) for t in expect["trailers"]]


def _expected_lines(entry) -> set[str]:
    """Trailer lines b4 finds in the thread itself (not the ones its options add)."""
    lines: set[str] = set()
    for case in entry["expect"].get("cases", []):
        options = case["options"]
        if any(word in options for word in ("recipients", "Link: https", "Message-ID")):
            continue  # these options add trailers made from headers or message-ids
        for result in case["result"]:
            for line in result["trailers_in_order"]:
                if "test-override@example.com" in line:  # the applier's own sign-off
                    continue
                if "copyccs" in options and line.startswith("Cc:"):  # made from headers
                    continue
                lines.add(line.split("  #")[0])  # b4 extinfo comment: not part of the value
    return lines


@pytest.mark.peer
def test_b4_followup_threads(peer_dir):
    entries = json.loads((peer_dir / "b4-samples/expectations.json").read_text())
    found_total = expected_total = 0
    report = []
    for entry in entries:
        if not entry["file"].startswith("trailers-followup-") or "cases" not in entry["expect"]:
            continue
        expected = _expected_lines(entry)
        if not expected:
            continue
        parsed = {
            line
            for _, trailers in _thread(peer_dir / "b4-samples" / entry["file"])
            for line in _lines(trailers)
        }
        missing = expected - parsed
        extra = parsed - expected
        found_total += len(expected) - len(missing)
        expected_total += len(expected)
        report.append(
            f"{entry['file']}: {len(expected) - len(missing)}/{len(expected)}"
            + (f" missing {sorted(missing)}" if missing else "")
            + (f" parsed, not in b4's output {sorted(extra)}" if extra else "")
        )
    # "not in b4's output" is b4 policy, not parsing: it drops trailers whose address differs
    # from the replier's, and reviews of a rerolled patch; the applier's sign-off is filtered
    # out of the expectations above.
    print(
        f"b4 followup threads: {found_total}/{expected_total} = "
        f"{found_total / expected_total:.0%} of b4's trailer lines found"
    )
    for line in report:
        print("  ", line)
    assert found_total / expected_total >= 0.95, report


@pytest.mark.peer
def test_b4_thread_with_followups(peer_dir):
    thread = dict(_thread(peer_dir / "b4-samples/trailers-thread-with-followups.mbox"))
    replies = [t for subject, t in thread.items() if subject.startswith("Re:")]
    assert _lines(t for ts in replies for t in ts) == [
        "Reviewed-by: Follow Upper <follow.upper@example.org>"
    ]


@pytest.mark.peer
def test_b4_thread_with_cover_followup(peer_dir):
    expect = next(
        e
        for e in json.loads((peer_dir / "b4-samples/expectations.json").read_text())
        if e["file"] == "trailers-thread-with-cover-followup.mbox"
    )["expect"]
    thread = _thread(peer_dir / "b4-samples/trailers-thread-with-cover-followup.mbox")
    given = [line for subject, ts in thread if subject.startswith("Re:") for line in _lines(ts)]
    assert expect["every_patch_gains"] in given
    for line in expect["patch_4_gains_in_order"]:
        assert line in given


def test_seed_000_reply(seeds_dir):
    raw = (seeds_dir / "000_ea1513e461eed647.txt").read_bytes()
    trailers = _parse(_body(email.message_from_bytes(raw, policy=email.policy.compat32)))
    assert _lines(trailers) == ["Acked-by: Jamal Hadi Salim <jhs@mojatatu.com>"]
