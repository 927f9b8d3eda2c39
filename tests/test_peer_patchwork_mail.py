"""Agreement with what Patchwork's own tests assert about its mail fixtures.

Reads ../shared/peer/patchwork-mails (expectations.json, mail/*.mbox, inline_cases.json) and
scores find_patch / find_pull_url on every fact they share with Patchwork: has_patch (an
unquoted or attached diff; a quoted one is not a patch), is_pull_request, pull_url and the
string checks on the diff text. Each category must agree on at least 95% of its cases.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from agreement import score

from analyze.mail.body import quote_depth
from analyze.mail.diff import find_patch
from analyze.mail.message import parse_message
from analyze.model import Message
from ingest.local import read_sources
from ingest.raw import RawMail

pytestmark = [pytest.mark.peer, pytest.mark.readers]  # readers: run again on the compiled build


def parse(path: Path) -> Message:
    """The file as `patchperf analyze` reads it: the project's reader, decoder and parser."""
    (item,) = read_sources([path])  # Patchwork reads each mail/ file as one message
    assert isinstance(item, RawMail), item
    return parse_message(item.data, item.origin)


def _checks(expect: dict, message: Message):
    """Yield (category, agreed, reason) for every fact we can score."""
    patch = message.patch
    own = patch if patch is not None and not patch.quoted else None
    text = own.text if own else ""
    pull = message.pull_url
    if "has_patch" in expect:
        yield "has_patch", (own is not None) == expect["has_patch"], f"patch={own is not None}"
    if "full_parse_creates_patches" in expect:
        want = expect["full_parse_creates_patches"] > 0
        yield "has_patch", (own is not None) == want, f"patch={own is not None}"
    if expect.get("is_reply_comment"):
        yield "has_patch", own is None, "a reply comment carries no patch"
    if "is_pull_request" in expect:
        yield "is_pull_request", (pull is not None) == expect["is_pull_request"], f"url={pull!r}"
    if "pull_url_found" in expect:
        yield "pull_url", (pull is not None) == expect["pull_url_found"], f"url={pull!r}"
    if "pull_url" in expect:
        yield "pull_url", pull == expect["pull_url"], f"url={pull!r}"
    if "diff_starts_with" in expect:
        ok = text.startswith(expect["diff_starts_with"])
        yield "diff_text", ok, f"diff starts {text[:60]!r}"
    for needle in expect.get("diff_contains", ()):
        yield "diff_text", needle in text, f"{needle!r} missing"
    if "diff_not_contains" in expect:
        yield "diff_text", expect["diff_not_contains"] not in text, "unwanted text in diff"
    for needle, count in expect.get("diff_count", {}).items():
        yield "diff_text", text.count(needle) == count, f"{needle!r} x{text.count(needle)}"
    if "diff_rstripped_ends_with" in expect:
        ok = text.rstrip().endswith(expect["diff_rstripped_ends_with"])
        yield "diff_text", ok, f"diff ends {text.rstrip()[-60:]!r}"


def test_mail_expectations(peer_dir: Path):
    root = peer_dir / "patchwork-mails"
    entries = json.loads((root / "expectations.json").read_text())
    rows = [
        (category, entry["file"], None if ok else reason)
        for entry in entries
        if entry["file"].startswith("mail/")
        for category, ok, reason in _checks(entry["expect"], parse(root / entry["file"]))
    ]
    assert {"has_patch", "pull_url", "is_pull_request", "diff_text"} <= {r[0] for r in rows}
    score(rows)


DIFF = (
    "diff --git a/meep.text b/meep.text\nindex 3d75e3a..e1a4c3b 100644\n"
    "--- a/meep.text\n+++ b/meep.text\n@@ -1,1 +1,2 @@\n meep\n+meep\n"
)
UTF8_DIFF = DIFF.replace("+meep\n", "+meep\u00e9\n")


def test_inline_body_split(peer_dir: Path):
    cases = json.loads((peer_dir / "patchwork-mails" / "inline_cases.json").read_text())
    rows = []
    for case in cases:
        if case["category"] != "body_split":
            continue
        spec, comment = case["input"]["body"], case["input"]["COMMENT"]
        diff = UTF8_DIFF if "UTF8_DIFF" in spec else DIFF
        if spec.startswith("multipart"):
            body, attachments = comment, [diff]
        else:
            # e.g. "COMMENT + '\\n-- \\nsig\\n' + DIFF": the literal between the two names.
            middle = re.search(r"COMMENT \+ ('.*') \+ (?:UTF8_)?DIFF", spec)
            body, attachments = comment + ast.literal_eval(middle.group(1)) + diff, []
        lines = body.split("\n")
        patch = find_patch(lines, [quote_depth(line) for line in lines], attachments)
        got = patch.text if patch is not None and not patch.quoted else None
        rows.append(("body_split", case["input"]["variant"], None if got == diff else f"diff={got!r}"))
    score(rows)
