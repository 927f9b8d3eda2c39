"""Decoding (analyze/mail/decode.py, headers.py, charsets.py, body.py): the ways real mail is
encoded, each with a mail written here."""

from __future__ import annotations

import base64
import contextlib
import quopri

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyze.errors import BadInput, LimitExceeded
from analyze.limits import Limits
from analyze.mail.body import make_body, quote_depth, strip_quote
from analyze.mail.charsets import decode_bytes
from analyze.mail.decode import MAX_PARTS, decode_mail
from analyze.mail.headers import clean_message_id, message_ids, parse_date, parse_from
from analyze.mail.message import parse_message

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers

HEAD = (
    b"From: Ana Lopes <ana@example.org>\n"
    b"Subject: [PATCH net] tcp: fix\n"
    b"Date: Mon, 02 Sep 2024 10:00:00 +0200\n"
    b"Message-ID: <m1@example.org>\n"
)


def mail(body: bytes, headers: bytes = b"") -> bytes:
    return HEAD + headers + b"\n" + body


# -- headers ----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("raw", "name", "addr"),
    [
        ("=?UTF-8?q?J=C3=B6rg_Sch=C3=A4fer?= <joerg@example.de>", "Jörg Schäfer", "joerg@example.de"),
        ("=?iso-8859-1?b?SvZyZw==?= <j@example.de>", "Jörg", "j@example.de"),
        ('"Miller, David S." <davem@example.net>', "Miller, David S.", "davem@example.net"),
        ("Jason Baron <jbaron@akamai\u2022com>", "Jason Baron", "jbaron@akamai.com"),  # lore
        ("Davide Caratti <dcaratti@...hat.com>", "Davide Caratti", "dcaratti@...hat.com"),  # openwall
        ("bare@example.org", "", "bare@example.org"),
    ],
)
def test_from_header(raw, name, addr):
    assert parse_from(raw) == (name, addr)


def test_openwall_hidden_address_is_flagged_and_lore_is_repaired():
    openwall = decode_mail(mail(b"x\n").replace(b"Ana Lopes <ana@example.org>", b"Ana <ana@...mple.org>"))
    assert openwall.address_hidden and openwall.from_addr == "ana@...mple.org"
    lore = decode_mail(mail(b"x\n").replace(b"ana@example.org", "ana@example\u2022org".encode()))
    assert not lore.address_hidden and lore.from_addr == "ana@example.org"


def test_raw_utf8_and_latin1_headers():
    utf8 = decode_mail(mail(b"x\n").replace(b"Ana Lopes", "Ana L\u00f3pes".encode()))
    assert utf8.from_name == "Ana L\u00f3pes"
    latin1 = decode_mail(mail(b"x\n").replace(b"Ana Lopes", "Ana L\u00f3pes".encode("latin-1")))
    assert latin1.from_name == "Ana L\u00f3pes"


def test_message_ids():
    assert clean_message_id(" <a.b@c>  ") == "a.b@c"
    assert clean_message_id("a.b@c") == "a.b@c"
    assert clean_message_id("<a@b> (raw)") == "a@b"
    assert message_ids("<a@b>\n\t<c@d> <a@b>") == ("a@b", "c@d")


def test_dates_keep_their_offset_and_bad_dates_are_none():
    assert parse_date("Fri, 03 Jul 2015 07:07:27 -0400").isoformat() == "2015-07-03T07:07:27-04:00"
    assert parse_date("Thu, 1 Jan 2015 00:00:00 -0000").utcoffset().total_seconds() == 0
    assert parse_date("not a date") is None
    assert parse_date("Mon, 99 Foo 99999 99:99:99 +9999") is None


# -- charsets and transfer encodings ----------------------------------------------------------

def test_charset_fallbacks():
    assert decode_bytes("caf\u00e9".encode(), "utf-8") == "caf\u00e9"
    assert decode_bytes(b"\x93quoted\x94", "no-such-charset") == "\u201cquoted\u201d"  # windows-1252
    assert decode_bytes(b"\x81\xff", None) == "\x81\xff"  # latin-1 takes anything
    assert decode_bytes("\u00e9".encode("latin-1"), "utf-8") == "\u00e9"  # mislabelled


def test_quoted_printable_body():
    body = quopri.encodestring("J\u00f6rg measured 7,9 Mpps =\n".encode())
    decoded = decode_mail(mail(body, b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n"))
    assert decoded.body_text.startswith("J\u00f6rg measured 7,9 Mpps =")


def test_base64_body():
    body = base64.encodebytes(b"before: 5 Mpps\nafter: 10 Mpps\n")
    decoded = decode_mail(mail(body, b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n"))
    assert decoded.body_text == "before: 5 Mpps\nafter: 10 Mpps\n"


def test_unknown_charset_is_a_warning():
    decoded = decode_mail(mail(b"caf\xe9\n", b"Content-Type: text/plain; charset=x-martian\n"))
    assert decoded.body_text == "caf\u00e9\n"
    assert any("x-martian" in w for w in decoded.warnings)


DIFF = (
    "diff --git a/net/core/dev.c b/net/core/dev.c\n"
    "--- a/net/core/dev.c\n+++ b/net/core/dev.c\n"
    "@@ -1,2 +1,2 @@\n ctx\n-old\n+new\n"
)


def multipart(parts: list[tuple[str, str, bytes]], sub: str = "mixed") -> bytes:
    out = [b"MIME-Version: 1.0\nContent-Type: multipart/" + sub.encode() + b'; boundary="BB"\n\npreamble\n']
    for headers, _, payload in parts:
        out.append(b"--BB\n" + headers.encode() + b"\n\n" + payload + b"\n")
    out.append(b"--BB--\n")
    return HEAD + b"".join(out)


def test_multipart_plain_body_html_ignored_patch_attached():
    data = multipart([
        ("Content-Type: text/plain; charset=utf-8", "", b"Here is the patch.\n"),
        ("Content-Type: text/html; charset=utf-8", "", b"<p>Here is <b>the</b> patch.</p>"),
        ('Content-Type: text/x-patch; name="0001-fix.patch"\nContent-Disposition: attachment; filename="0001-fix.patch"\n'
         "Content-Transfer-Encoding: base64", "", base64.encodebytes(DIFF.encode())),
    ])
    message = parse_message(data)
    assert message.body.text == "Here is the patch."
    assert "<p>" not in message.body.text
    assert [a.filename for a in message.attachments] == ["0001-fix.patch"]
    assert message.kind == "patch"
    assert message.patch and not message.patch.quoted
    assert [(f.path, f.added, f.removed) for f in message.patch.files] == [("net/core/dev.c", 1, 1)]


def test_inline_patch_in_a_second_text_part():
    data = multipart([
        ("Content-Type: text/plain; charset=utf-8", "", b"Comment first.\n"),
        ("Content-Type: text/plain; charset=utf-8\nContent-Disposition: inline", "", DIFF.encode()),
    ])
    message = parse_message(data)
    assert message.patch is not None and message.kind == "patch"


def test_too_many_mime_parts():
    parts = [("Content-Type: text/plain", "", b"x")] * (MAX_PARTS + 5)
    with pytest.raises(LimitExceeded, match="MIME parts"):
        decode_mail(multipart(parts))


def _parts(head: bytes, delimiter: bytes, n: int, sep: bytes = b"\n") -> bytes:
    """A multipart mail whose body is `n` empty parts, each opened by `delimiter`."""
    return HEAD + b"MIME-Version: 1.0\n" + head + b"\n\n" + (delimiter + sep + sep) * n


# Boundaries the stdlib reads and a pre-count on the raw bytes would miss (the review of
# 2026-11-30 found each one): the parts are counted as the parser makes them instead.
SPELLINGS = {
    "empty": (b'Content-Type: multipart/mixed; boundary=""', b"--", b"\n"),
    "angle brackets": (b"Content-Type: multipart/mixed; boundary=<x>", b"--x", b"\n"),
    "rfc 2231": (b"Content-Type: multipart/mixed; boundary*=''x", b"--x", b"\n"),
    "rfc 2231 continued": (b"Content-Type: multipart/mixed; boundary*0=x", b"--x", b"\n"),
    "decoy parameter": (b"Content-Type: multipart/mixed; xboundary=y; boundary=x", b"--x", b"\n"),
    "far boundary": (b"Content-Type: multipart/mixed;" + b" " * 2000 + b"boundary=x", b"--x", b"\n"),
    "long boundary": (b'Content-Type: multipart/mixed; boundary="' + b"x" * 300 + b'"', b"--" + b"x" * 300, b"\n"),
    "cr lines": (b"Content-Type: multipart/mixed; boundary=x", b"--x", b"\r"),
}


@pytest.mark.parametrize("spelling", SPELLINGS.values(), ids=SPELLINGS.keys())
def test_parts_are_counted_however_the_boundary_is_spelled(spelling):
    head, delimiter, sep = spelling
    # (only the parser's part factory raises this: it stopped at part 1,001 of 100,000)
    with pytest.raises(LimitExceeded, match="MIME parts exceeds the limit of 1,000 parts"):
        decode_mail(_parts(head, delimiter, 100_000, sep))


def test_a_mail_of_too_many_lines_is_refused_before_parsing():
    """The parser holds every line as a string: 64 MiB of short lines took 2.5 GB."""
    for sep in (b"\n", b"\r", b"\r\n"):
        with pytest.raises(LimitExceeded, match="message exceeds the limit of 1,000,000 lines"):
            decode_mail(HEAD + sep + b"x" + sep * 1_000_001)
    assert decode_mail(HEAD + b"\n" + b"x\n" * 990_000).body_text.startswith("x\n")


def test_a_mail_with_many_parts_under_the_limit_is_read():
    parts = [("Content-Type: text/plain", "", f"part {i}".encode()) for i in range(MAX_PARTS - 10)]
    decoded = decode_mail(multipart(parts))
    assert "part 0" in decoded.body_text and f"part {MAX_PARTS - 11}" in decoded.body_text


@pytest.mark.parametrize("head", [
    b"Content-Type: message/rfc822\n\n",  # a mail in a mail in a mail...
    b"Content-Type: message/global\n\n",
    b"content-type:\n MULTIPART/mixed; boundary=x\n\n",  # folded, in capitals
])
def test_nesting_is_bounded_before_the_parser_recurses(head):
    with pytest.raises(LimitExceeded, match="multipart and message/. parts exceeds the limit of 100"):
        decode_mail(HEAD + head * 5_000 + b"From: x\n\nbody\n")


def test_a_container_on_the_first_line_counts():
    def mail_(inner: int) -> bytes:
        return b"Content-Type: multipart/mixed; boundary=b\n" + HEAD + b"\n" \
            + b"".join(b"--b\nContent-Type: message/rfc822\n\nFrom: x\n\nx\n" for _ in range(inner))

    with pytest.raises(LimitExceeded, match="parts exceeds the limit of 100"):
        decode_mail(mail_(100))  # 101 with the first line's
    decode_mail(mail_(99))  # 100: read


@pytest.mark.parametrize("params", [b"foo*=a; foo*0=b", b"name*=undefined''x", b"name*=idna''x",
                                    b"name*=punycode''%e9", b"name*=a\x00b''x", b"charset*=idna''x"])
def test_broken_rfc2231_parameters_are_ignored_with_a_warning(params):
    """The stdlib raises TypeError, ValueError or LookupError on these (found in review)."""
    data = multipart([(("Content-Type: text/plain; " + params.decode("latin-1")), "", b"hello\n"),
                      ("Content-Type: text/x-patch; " + params.decode("latin-1")
                       + "\nContent-Disposition: attachment; " + params.decode("latin-1"), "", b"x\n")])
    decoded = decode_mail(data)
    assert "hello" in decoded.body_text
    assert decoded.warnings  # an unreadable parameter, or an unknown charset it names
    single = HEAD + b"Content-Type: text/plain; " + params + b"\n\nhi\n"
    assert decode_mail(single).body_text.startswith("hi")


def test_header_size_limit_is_named():
    refs = b" ".join(b"<r%d@example.org>" % i for i in range(100_000))  # 2 MB of References
    with pytest.raises(LimitExceeded, match="header exceeds the limit of 1,048,576 bytes"):
        decode_mail(HEAD + b"References: " + refs + b"\n\nA body.\n")
    # a header block that never ends (no body at all) counts whole
    with pytest.raises(LimitExceeded, match="header exceeds the limit of 1,000 bytes"):
        decode_mail(HEAD + b"X-Pad: " + b"x" * 2_000 + b"\n", Limits(header_bytes=1_000))
    # CRLF mail: the blank line is found too, and a large body is no header
    crlf = (HEAD + b"X-Pad: short\n").replace(b"\n", b"\r\n") + b"\r\n" + b"body line\r\n" * 500
    assert decode_mail(crlf, Limits(header_bytes=1_000)).body_text.startswith("body line")


def test_message_size_limit_is_named():
    with pytest.raises(LimitExceeded, match="limit of 100 bytes"):
        decode_mail(mail(b"x" * 200), Limits(message_bytes=100))


@pytest.mark.parametrize("data", [b"", b"   \n\n", b"just some words\nand more\n"])
def test_not_a_mail(data):
    with pytest.raises(BadInput):
        decode_mail(data)


# -- body lines -------------------------------------------------------------------------------

def test_format_flowed_is_not_unflowed():
    text = "threads | before | after \n      1 |  3518448 |  3591240\n"
    decoded = decode_mail(mail(text.encode(), b"Content-Type: text/plain; charset=utf-8; format=flowed\n"))
    assert make_body(decoded.body_text).lines == ("threads | before | after ", "      1 |  3518448 |  3591240")


@pytest.mark.parametrize(
    ("line", "depth", "rest"),
    [
        ("> quoted", 1, "quoted"),
        ("> > two", 2, "two"),
        (">> two", 2, "two"),
        (">>>  out:", 3, " out:"),  # seed 004: the context line ` out:` of a quoted hunk
        (">", 1, ""),
        ("not > quoted", 0, "not > quoted"),
    ],
)
def test_quote_depth(line, depth, rest):
    assert quote_depth(line) == depth
    assert strip_quote(line, depth) == rest


def test_signature_and_vger_footer():
    body = make_body(
        "Acked-by: A <a@b>\n\n-- \nAna\n--\nTo unsubscribe from this list: send the line "
        '"unsubscribe netdev" in\nthe body of a message to majordomo@vger.kernel.org\n'
    )
    assert body.signature_start == 2
    assert body.lines[body.footer_start] == "--"


def test_trailers_stop_at_the_signature():
    message = parse_message(mail(b"Acked-by: Ana <ana@example.org>\n\n-- \nReviewed-by: sig <s@x>\n"))
    assert [t.key for t in message.trailers] == ["Acked-by"]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_decode_never_raises_anything_but_bad_input(data):
    with contextlib.suppress(BadInput):
        parse_message(HEAD + data)
