"""Series assembly against Patchwork's own series fixtures (../shared/peer/patchwork-mails/series).

Patchwork feeds each mbox into a fresh project; expectations.json says what its tests assert:
how many covers, patches and comments (replies) land in series, how many series, their sizes
in date order, and whether a single series is complete.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import hashlib
import json
import mailbox
import re
from pathlib import Path

import pytest

from analyze.model import Body, Message
from analyze.series import assemble_series

pytestmark = pytest.mark.peer

CATEGORIES = (
    "covers",
    "patches",
    "comments",
    "series_count",
    "patches_per_series",
    "covers_per_series",
    "series_complete",
)

try:  # the project's real parser, once all of its parts are in place
    from analyze.message import parse_message as _parse_message
except ImportError:  # pragma: no cover - depends on the state of the tree
    _parse_message = None

_MSGID = re.compile(r"<([^<>\s]+)>")
_DIFF = re.compile(r"^(diff --git |Index: |\+\+\+ )")


def _ids(values: list[str] | None) -> list[str]:
    return [m for value in values or () for m in _MSGID.findall(str(value))]


def _adapter_message(raw: bytes) -> Message:
    """TEMPORARY stand-in for analyze.message.parse_message: enough of a Message for series.

    Headers via `email`, subject via analyze.subject, kind by a crude check: an unquoted diff
    is a patch, index 0 a cover, anything else a reply.
    """
    from analyze.subject import parse_subject

    mail = email.message_from_bytes(raw, policy=email.policy.compat32)
    digest = hashlib.sha256(raw).hexdigest()
    message_ids = _ids(mail.get_all("Message-Id"))
    message_id = message_ids[0] if message_ids else None
    in_reply_to = next(iter(_ids(mail.get_all("In-Reply-To"))), None)
    references = tuple(_ids(mail.get_all("References")))
    subject = parse_subject(
        str(email.header.make_header(email.header.decode_header(mail.get("Subject", ""))))
    )
    name, addr = email.utils.parseaddr(str(mail.get("From", "")))
    try:
        date = email.utils.parsedate_to_datetime(mail.get("Date"))
    except (TypeError, ValueError):
        date = None
    part = next((p for p in mail.walk() if p.get_content_type() == "text/plain"), None)
    payload = part.get_payload(decode=True) if part is not None else b""
    lines = tuple((payload or b"").decode("utf-8", "replace").splitlines())
    depths = tuple(len(line) - len(line.lstrip(">")) for line in lines)
    has_diff = any(not d and _DIFF.match(line) for line, d in zip(lines, depths, strict=True))
    if subject.index == 0 and not subject.reply:
        kind = "cover"
    elif has_diff:
        kind = "patch"
    else:
        kind = "reply"
    return Message(
        key=message_id or f"sha256:{digest}",
        message_id=message_id,
        content_hash=digest,
        subject=subject,
        from_name=name,
        from_addr=addr,
        address_hidden=False,
        date=date,
        in_reply_to=in_reply_to,
        references=references,
        body=Body(lines=lines, depths=depths),
        attachments=(),
        kind=kind,
        patch=None,
        diffstat=None,
        pull_url=None,
        trailers=(),
    )


def _message(raw: bytes, origin: str) -> Message:
    if _parse_message is not None:
        return _parse_message(raw, origin)
    return _adapter_message(raw)


def _observed(path: Path) -> dict:
    messages = [
        _message(m.as_bytes(), f"{path.name}#{i}") for i, m in enumerate(mailbox.mbox(path))
    ]
    series = assemble_series(messages)
    return {
        "covers": sum(s.cover is not None for s in series),
        "patches": sum(len(s.patches) for s in series),
        "comments": sum(len(s.replies) for s in series),
        "series_count": len(series),
        "patches_per_series": [len(s.patches) for s in series],
        "covers_per_series": [int(s.cover is not None) for s in series],
        "series_complete": series[0].complete if len(series) == 1 else None,
        "layout": [
            f"v{s.version} {s.name!r} cover={int(s.cover is not None)} patches={len(s.patches)}"
            for s in series
        ],
    }


def test_series_agree_with_patchwork(peer_dir: Path) -> None:
    base = peer_dir / "patchwork-mails"
    entries = [
        e
        for e in json.loads((base / "expectations.json").read_text())
        if e["file"].startswith("series/") and e["file"].endswith(".mbox")
    ]
    assert entries, "no series/*.mbox entries in expectations.json"
    hits = {c: 0 for c in CATEGORIES}
    seen = {c: 0 for c in CATEGORIES}
    misses: list[str] = []
    for entry in entries:
        observed = _observed(base / entry["file"])
        for category in CATEGORIES:
            if category not in entry["expect"]:
                continue
            seen[category] += 1
            want, got = entry["expect"][category], observed[category]
            if want == got:
                hits[category] += 1
            else:
                layout = ", ".join(observed["layout"])
                misses.append(
                    f"{entry['file']}: {category} expected {want!r}, got {got!r} "
                    f"(series built: {layout})"
                )
    parser = "analyze.message.parse_message" if _parse_message else "_adapter_message"
    print(f"messages built with {parser}")
    for category in CATEGORIES:
        if seen[category]:
            print(f"{category}: {hits[category]}/{seen[category]}")
    for miss in misses:
        print("MISS", miss)
    for category in CATEGORIES:
        if seen[category]:
            assert hits[category] / seen[category] >= 0.95, (category, misses)
