"""One mail understood: decoded, its subject split, its diff, diffstat, pull URL and trailers
found, and its kind decided."""

from __future__ import annotations

import hashlib
import re

from analyze.errors import LimitExceeded
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Message, Patch, Subject

from .body import make_body
from .decode import decode_mail
from .diff import find_patch
from .diffstat import find_diffstat
from .links import linked_message_ids
from .pull import find_pull_url
from .subject import parse_subject
from .trailers import parse_trailers

# b4 writes `change-id: 20240312-act-police-3f2a1b` under the cover letter's diffstat;
# it stays the same across versions of a series.
_CHANGE_ID = re.compile(r"^change-id:\s*(\S+)\s*$", re.IGNORECASE)


_HAS_CHANGE_ID = re.compile(r"^change-id:", re.IGNORECASE | re.MULTILINE)


def find_change_id(lines: tuple[str, ...], depths: tuple[int, ...]) -> str | None:
    for line, depth in zip(lines, depths, strict=True):
        if not depth and line[:10].lower() == "change-id:":
            match = _CHANGE_ID.match(line)
            if match:
                return match.group(1)
    return None


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def message_key(message_id: str | None, digest: str) -> str:
    """A mail's identity: its Message-ID, or its content hash when it has none."""
    return message_id if message_id else f"sha256:{digest}"


def classify(subject: Subject, patch: Patch | None, pull_url: str | None, in_reply_to: str | None) -> str:
    """The first kind that applies (docs/json.md): pull_request, cover, patch, reply, other."""
    if pull_url:
        return "pull_request"
    if subject.index == 0 and not subject.reply:
        return "cover"
    if patch is not None and not patch.quoted:
        return "patch"  # a diff outside quotes, even in a `Re:` (Patchwork: bugs-unnumbered)
    if subject.reply or in_reply_to:
        return "reply"
    return "other"


def parse_message(data: bytes, origin: str = "", limits: Limits = DEFAULT_LIMITS) -> Message:
    """Understand one raw mail. Raises BadInput (or LimitExceeded) when it is not a usable mail."""
    mail = decode_mail(data, limits)
    digest = content_hash(data)
    body = make_body(mail.body_text)
    # The signature and list footer are no part of the content: diffs and trailers stop there.
    end = min(i for i in (body.signature_start, body.footer_start, len(body.lines)) if i is not None)
    lines, depths = body.lines[:end], body.depths[:end]
    attachment_texts = [a.text for a in mail.attachments if a.text is not None]
    subject = parse_subject(mail.subject)
    warnings = list(mail.warnings)
    try:
        patch = find_patch(lines, depths, attachment_texts)
    except LimitExceeded as exc:
        # A huge patch is still a patch of its series: keep the mail, without the diff's
        # files and counts, and say so.
        patch = Patch(files=(), added=0, removed=0, quoted=False, text="")
        warnings.append(f"{exc}; its files and line counts are not read")
    pull_url = find_pull_url(lines, depths)
    return Message(
        key=message_key(mail.message_id, digest),
        message_id=mail.message_id,
        content_hash=digest,
        subject=subject,
        from_name=mail.from_name,
        from_addr=mail.from_addr,
        address_hidden=mail.address_hidden,
        date=mail.date,
        in_reply_to=mail.in_reply_to,
        references=mail.references,
        body=body,
        attachments=mail.attachments,
        kind=classify(subject, patch, pull_url, mail.in_reply_to),
        patch=patch,
        diffstat=find_diffstat(lines, depths),
        pull_url=pull_url,
        trailers=parse_trailers(lines, depths),
        change_id=mail.change_id
        or (find_change_id(lines, depths) if _HAS_CHANGE_ID.search(mail.body_text) else None),
        list_id=mail.list_id,
        links=linked_message_ids(lines, depths),
        origin=origin,
        warnings=tuple(warnings),
    )
