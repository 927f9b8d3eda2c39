"""The direct header reading of analyze/mail/mime_fields.py and the plain-From path of
headers.py answer exactly as the stdlib does: on generated headers (hypothesis, from the
characters that matter to MIME parameters and addresses), on hand-picked odd ones, and on
every part of the peer fixtures' real mail."""

from __future__ import annotations

import email.parser
import email.policy
import mailbox
import os
from email.message import Message as EmailMessage
from email.utils import parseaddr
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyze.mail.headers import _parseaddr
from analyze.mail.mime_fields import Fields

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers

PARSER = email.parser.BytesParser(policy=email.policy.compat32)
# `HYPOTHESIS_PROFILE=fuzz` (as the fuzz runs set it) tries fifty times as many headers
FUZZ = 50 if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" else 1


def _stdlib(part: EmailMessage) -> tuple[object, ...]:
    def param(read):
        try:
            return read()
        except (TypeError, ValueError, LookupError):
            return "<error>"
    return (part.get_content_type(), param(part.get_content_charset), param(part.get_filename),
            str(part.get("Content-Disposition")), str(part.get("Subject")))


def _ours(part: EmailMessage) -> tuple[object, ...]:
    fields = Fields(part)

    def param(read):
        try:
            return read()
        except (TypeError, ValueError, LookupError):
            return "<error>"
    return (fields.content_type(), fields.charset(lambda: param(part.get_content_charset)),
            fields.filename(lambda: param(part.get_filename)),
            str(fields.get("content-disposition")), str(fields.get("SUBJECT")))


def _mail(content_type: str | None, disposition: str | None = None) -> EmailMessage:
    head = "From: a@example.org\nSubject: s\n"
    if content_type is not None:
        head += f"Content-Type: {content_type}\n"
    if disposition is not None:
        head += f"Content-Disposition: {disposition}\n"
    return PARSER.parsebytes((head + "\nbody\n").encode("utf-8", "surrogateescape"))


ODD = [
    None, "", "text/plain", "TEXT/Plain; CHARSET=UTF-8", "text/plain; charset=\"iso-8859-1\"",
    "text/plain; charset=utf-8; format=flowed; delsp=yes", "text/plain;\n charset=\"utf-8\"",
    "text/plain; charset=<utf-8>", "text/plain; charset=\"<utf-8>\"", "charset=utf-8",
    "text/plain; charset*=us-ascii''utf-8", "text/plain; charset*0=ut; charset*1=f-8",
    "text/plain; charset=\"a;b\"", "text/plain; charset=\"a\\\"b\"", "text/plain; flowed",
    "text/plain; charset=", "text/plain; charset=\"\"", "text/plain; charset= utf 8 ;",
    "text/plain; charset=\"utf-8\" ; format=flowed", "text/plain (comment); charset=utf-8",
    "text/x-patch; name=\"a.patch\"", "text/plain; NAME=x", "text/plain; charset=utf-8; charset=latin1",
    "text", "text/plain/x", " Text/HTML ;", "text/plain; charset=ut\u00e9-8", "application/octet-stream",
    "multipart/mixed; boundary=xyz",
]
DISPOSITIONS = [None, "inline", "attachment", "attachment; filename=\"a.diff\"", "inline; size=12",
                "attachment; FileName*=utf-8''x.patch", "attachment;\n filename=b.txt"]


@pytest.mark.parametrize("content_type", ODD)
@pytest.mark.parametrize("disposition", DISPOSITIONS)
def test_odd_headers_answer_as_the_stdlib(content_type, disposition):
    part = _mail(content_type, disposition)
    assert _ours(part) == _stdlib(part)


_PARAM_TEXT = st.lists(st.sampled_from(list("aZ09-_.=;\"\\*()<> \t\n/'%\u00e9") + ["name", "charset"]),
                       max_size=24).map("".join)


@settings(max_examples=400 * FUZZ)
@given(type_=st.sampled_from(["text/plain", "TEXT/X-Patch", "text", "a/b/c", ""]),
       params=_PARAM_TEXT, disposition=st.one_of(st.none(), _PARAM_TEXT))
def test_generated_headers_answer_as_the_stdlib(type_, params, disposition):
    # (a folded line must go on with white space, as the parser reads it)
    content_type = (type_ + params).replace("\n", "\n ")
    part = _mail(content_type, disposition.replace("\n", "\n ") if disposition is not None else None)
    assert _ours(part) == _stdlib(part)


def test_every_part_of_the_peer_mail_answers_as_the_stdlib(peer_dir: Path):
    checked = 0
    for path in sorted(peer_dir.rglob("*")):
        if path.suffix not in (".mbox", ".eml", ".txt") or not path.is_file():
            continue
        box = mailbox.mbox(str(path)) if path.suffix == ".mbox" else None
        raws = [box.get_bytes(key) for key in box.iterkeys()] if box is not None else [path.read_bytes()]
        for raw in raws:
            for part in PARSER.parsebytes(raw).walk():
                assert _ours(part) == _stdlib(part), path
                checked += 1
    assert checked > 50  # (the fixtures hold a hundred-odd mails)


# Hostile values, each tens of kilobytes: read as the stdlib reads them (the direct reading
# is bounded, and its patterns cannot backtrack over a run of blanks in many ways)
LONG = ["text/plain; a=b" + " " * 60_000 + '"', "text/plain" + " " * 60_000 + '"',
        "text/plain; charset=utf-8" + "; a=b c" * 9_000, "text/plain" + ";" * 60_000 + 'x"']


@pytest.mark.parametrize("content_type", LONG, ids=["blanks-after-value", "blanks-after-type",
                                                  "many-params", "semicolons"])
def test_long_headers_answer_as_the_stdlib(content_type):
    part = _mail(content_type)
    assert _ours(part) == _stdlib(part)


FROMS = ["Ana Lopes <ana@example.org>", "ana@example.org", "<ana@example.org>", "  Ana   Lopes  <a.b@c.d> ",
         "\"Lopes, Ana\" <ana@example.org>", "Ana (work) <ana@example.org>", "Ana <ana@example.org>, b@c",
         "ana@example.org (Ana)", "Ana <ana@@example.org>", "Ana <ana@example.org", "Ana", "",
         ". <a@b>", "O'Brien <o@b>", "a..b@c", ".a@b.", "Ana <a@b.c> x", "Ana <a@b@c>", "undisclosed:;"]


@pytest.mark.parametrize("text", [*FROMS, "a" + " " * 60_000 + "x", "Ana" + " " * 20_000 + "<a@b",
                                  "Ana <" + "a" * 600 + "@example.org>"],
                         ids=[*map(repr, FROMS), "blanks", "blanks-unclosed", "long-address"])
def test_plain_from_headers_answer_as_parseaddr(text):
    assert _parseaddr(text) == parseaddr(text)


@settings(max_examples=400 * FUZZ)
@given(st.text(alphabet=st.sampled_from(list("aZ09 .'_-%+@<>\",:;()[]\\\t")), max_size=30))
def test_generated_from_headers_answer_as_parseaddr(text):
    assert _parseaddr(text) == parseaddr(text)
