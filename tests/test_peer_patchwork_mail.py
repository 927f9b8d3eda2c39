"""Agreement with what Patchwork's own tests assert about its mail fixtures.

Reads ../shared/peer/patchwork-mails (expectations.json, mail/*.mbox, inline_cases.json) and
scores find_patch / find_pull_url on every fact they share with Patchwork: has_patch (an
unquoted or attached diff; a quoted one is not a patch), is_pull_request, pull_url and the
string checks on the diff text. Each category must agree on at least 95% of its cases.
"""

from __future__ import annotations

import ast
import email
import email.policy
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from analyze.diff import find_patch
from analyze.pull import find_pull_url

pytestmark = pytest.mark.peer


def _text(part) -> str:
    payload = part.get_payload(decode=True) or b""
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, "replace")
    except LookupError:  # charset="none" in Patchwork's fixture 0010
        return payload.decode("utf-8", "replace")


def decode(data: bytes) -> tuple[list[str], list[str]]:
    """Body lines and text attachments, with the stdlib only (the project's decoder is
    written elsewhere): the first inline text/plain part is the body, every other text
    part except HTML is an attachment."""
    msg = email.message_from_bytes(data, policy=email.policy.compat32)
    body: str | None = None
    attachments: list[str] = []
    for part in msg.walk():
        if part.is_multipart() or part.get_content_maintype() != "text":
            continue
        if part.get_content_type() == "text/html":
            continue
        attached = part.get_filename() or "attachment" in (part.get("Content-Disposition") or "")
        if body is None and part.get_content_type() == "text/plain" and not attached:
            body = _text(part)
        else:
            attachments.append(_text(part))
    return (body or "").splitlines(), attachments


def depth_of(line: str) -> int:
    """Quote depth: leading `>`, each followed by at most one space."""
    return len(re.match(r"(?:> ?)*", line).group(0).replace(" ", ""))


def _checks(expect: dict, lines, attachments):
    """Yield (category, agreed, reason) for every fact we can score."""
    depths = [depth_of(line) for line in lines]
    patch = find_patch(lines, depths, attachments)
    own = patch if patch is not None and not patch.quoted else None
    text = own.text if own else ""
    pull = find_pull_url(lines, depths)
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


def _score(results: dict[str, list[tuple[str, bool, str]]]) -> None:
    failed = []
    for category, rows in sorted(results.items()):
        agreed = sum(ok for _, ok, _ in rows)
        print(f"{category}: {agreed}/{len(rows)} agree")
        for name, ok, reason in rows:
            if not ok:
                print(f"  miss {name}: {reason}")
        if agreed < 0.95 * len(rows):
            failed.append(category)
    assert not failed, f"below 95% agreement: {failed}"


def test_mail_expectations(peer_dir: Path):
    root = peer_dir / "patchwork-mails"
    entries = json.loads((root / "expectations.json").read_text())
    results: dict[str, list[tuple[str, bool, str]]] = defaultdict(list)
    for entry in entries:
        if not entry["file"].startswith("mail/"):
            continue
        lines, attachments = decode((root / entry["file"]).read_bytes())
        for category, ok, reason in _checks(entry["expect"], lines, attachments):
            results[category].append((entry["file"], ok, reason))
    assert results["has_patch"] and results["pull_url"]
    _score(results)


DIFF = (
    "diff --git a/meep.text b/meep.text\nindex 3d75e3a..e1a4c3b 100644\n"
    "--- a/meep.text\n+++ b/meep.text\n@@ -1,1 +1,2 @@\n meep\n+meep\n"
)
UTF8_DIFF = DIFF.replace("+meep\n", "+meep\u00e9\n")


def test_inline_body_split(peer_dir: Path):
    cases = json.loads((peer_dir / "patchwork-mails" / "inline_cases.json").read_text())
    results: dict[str, list[tuple[str, bool, str]]] = defaultdict(list)
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
        patch = find_patch(lines, [depth_of(line) for line in lines], attachments)
        got = patch.text if patch is not None and not patch.quoted else None
        results["body_split"].append((case["input"]["variant"], got == diff, f"diff={got!r}"))
    assert results["body_split"]
    _score(results)
