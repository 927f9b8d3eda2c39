"""Format sniffing and archive pages (lore, openwall; HTML and saved text) rebuilt as mail."""

from __future__ import annotations

import email.header
import email.parser
import email.policy
import gzip
from pathlib import Path

import pytest

from analyze.errors import BadInput, LimitExceeded
from ingest.detect import sniff_format
from ingest.pages import page_to_mail

DATA = Path(__file__).parent / "data" / "ingest"
_parser = email.parser.BytesParser(policy=email.policy.compat32)


def parse(data: bytes):
    return _parser.parsebytes(data)


def header(msg, name: str) -> str | None:
    """A header as text: raw UTF-8 bytes come back surrogate-escaped from compat32."""
    value = msg.get(name)
    if isinstance(value, email.header.Header):  # compat32 wraps 8-bit values this way
        return "".join(
            part.decode("utf-8") if isinstance(part, bytes) else part
            for part, _charset in email.header.decode_header(value)
        )
    return value


def body(msg) -> str:
    return msg.get_payload(decode=True).decode("utf-8")


LORE_TEXT = (
    "public inbox for netdev@vger.kernel.org \n"
    " help / color / mirror / Atom feed\n"
    "\n"
    "From: Ann Example <ann@example\u2022org>\n"
    "To: netdev@vger\u2022kernel.org\n"
    "Subject: Re: [PATCH] x\n"
    "Date: Mon, 01 Jan 2024 10:00:00 +0100\t[thread overview]\n"
    "Message-ID: <1@example.org> (raw)\n"
    "\n"
    "body\n"
    "\n"
    "next prev parent reply\tother threads:[~2024-01-01 10:00 UTC|newest]\n"
)
OPENWALL_TEXT = (
    "netdev - [PATCH] x\n\nlists.openwall.net\tlists / netdev\n\n"
    "[<prev] [next>] [day] [month] [year] [list]\n\n"
    "Date:   Mon, 1 Jan 2024 10:00:00 +0100\nFrom:   Ann <ann@...mple.org>\n"
    "Subject: [PATCH] x\n\nbody\n"
)


@pytest.mark.parametrize(
    ("head", "fmt"),
    [
        (gzip.compress(b"From x\n"), "gz"),
        (b"From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: a\n\nb\n", "mbox"),
        (b"\xef\xbb\xbf\r\n\r\nFrom x\r\nSubject: s\r\n\r\n", "mbox"),
        (b"Received: from a\n\tby b\nFrom: a@b\nSubject: s\n\nbody\n", "eml"),
        (b"\n\nSubject: s\r\nFrom: a@b\r\n\r\nbody\r\n", "eml"),
        (LORE_TEXT.encode(), "lore-text"),
        (OPENWALL_TEXT.encode(), "openwall-text"),
        (OPENWALL_TEXT.replace("\n", "\r\n").encode(), "openwall-text"),
        ((DATA / "lore-page.html").read_bytes(), "lore-html"),
        ((DATA / "openwall-page.html").read_bytes(), "openwall-html"),
        (b"From the start it was clear\nthat this is prose.\n", None),
        (b'{"json": true}\n', None),
        (b"<html><head><title>Making sure you're not a bot!</title></head></html>", None),
        (b"", None),
        (b"\n \n", None),
        (b"\x00\x01\x02garbage", None),
        (b"Note: this is a note\nand not a header block at all\n", None),
    ],
)
def test_sniff_format(head, fmt):
    assert sniff_format(head) == fmt


def test_lore_html_page():
    msg = parse(page_to_mail((DATA / "lore-page.html").read_bytes(), "lore-html"))
    assert header(msg, "From") == "Ann Example <ann@example\u2022org>"
    assert (
        header(msg, "Cc")
        == "Bob Sample <bob@example\u2022com>, J\u00f6rg Test <joerg@example\u2022net>"
    )
    assert header(msg, "Subject") == "Re: [PATCH net-next] veth: batch the xmit path"
    assert header(msg, "Date") == "Mon, 01 Jan 2024 10:00:00 +0100"
    assert header(msg, "Message-ID") == "<20240101-veth-2@example.org>"
    assert header(msg, "In-Reply-To") == "<20240101-veth-1@example.org>"
    assert msg.get_content_type() == "text/plain"
    text = body(msg)
    assert text.startswith("> Did you measure it?\nYes: 1.2 Mpps")
    assert ">> From the cover letter" in text
    assert text.endswith("Thanks,\nAnn\n")
    assert "Thread overview" not in text and "Reply instructions" not in text


def test_openwall_html_page():
    msg = parse(page_to_mail((DATA / "openwall-page.html").read_bytes(), "openwall-html"))
    assert header(msg, "Message-ID") == "<20240102110000.7@example.org>"
    assert header(msg, "From") == "Dana Nomad <dana@...mple.org>"
    assert header(msg, "Cc") == "Erik \u00d6berg <erik@...mple.com>, Fay Writer <fay@...mple.com>"
    assert header(msg, "X-Patchperf-Attachment") == "perf-results.txt"
    assert header(msg, "In-Reply-To") is None
    text = body(msg)
    assert text.startswith("Throughput goes from 10 Gbit/s")
    assert text.endswith("-- \n2.43.0\n")
    assert "blists" not in text and "[day]" not in text


def test_lore_text_minimal():
    msg = parse(page_to_mail(LORE_TEXT.encode(), "lore-text"))
    assert header(msg, "Message-ID") == "<1@example.org>"
    assert header(msg, "Date") == "Mon, 01 Jan 2024 10:00:00 +0100"
    assert body(msg) == "body\n"


def test_openwall_text_attachment_line_noted():
    text = OPENWALL_TEXT + '\nView | Download attachment "bench.txt" of type "text/plain"\n'
    msg = parse(page_to_mail(text.encode(), "openwall-text"))
    assert header(msg, "X-Patchperf-Attachment") == "bench.txt"
    assert body(msg) == "body\n"


def test_header_injection_is_flattened():
    text = OPENWALL_TEXT.replace("Subject: [PATCH] x", "Subject: x\x0bBcc: evil@example.org")
    msg = parse(page_to_mail(text.encode(), "openwall-text"))
    assert msg.get("Bcc") is None


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        (b"<html><body><pre>nothing</pre></body></html>", "lore-html"),
        (b"<html><body><p>nothing</p></body></html>", "openwall-html"),
        (b"public inbox for x\n help / color / mirror / Atom feed\n\njust text\n", "lore-text"),
        (b"no nav line here\n", "openwall-text"),
    ],
)
def test_page_without_a_message(data, fmt):
    with pytest.raises(BadInput):
        page_to_mail(data, fmt)


def test_a_page_of_too_many_tags_is_refused_before_parsing() -> None:
    """BeautifulSoup keeps an object per tag: 15 MiB of `<b>` took 1 GB and 25 s."""
    page = b"<html><body><pre id=b>From: a@b\nSubject: x\n\n" + b"<b>" * 500_001 + b"</pre></body></html>"
    for fmt in ("lore-html", "openwall-html"):
        with pytest.raises(LimitExceeded, match="page exceeds the limit of 500,000 tags"):
            page_to_mail(page, fmt)
