"""Fuzzing every parser that reads outside input (issue 7): each either returns or raises one
of the project's named errors (`PatchperfError` and its subclasses). Anything else is a bug
the fuzzer has found.

Inputs are built from pieces mail is made of — header lines, MIME boundaries, RFC 2047 words,
quote markers, diff and diffstat lines, table rows, numbers with units, shell commands —
mixed with arbitrary text and bytes, so the search reaches past the first check of each
reader. How many examples run is the hypothesis profile's (tests/conftest.py): `ci` in
`make test`, `fuzz` (`make fuzz`) for the long run SECURITY.md quotes.

A failing input hypothesis finds goes to tests/data/fuzz/ as a file, with a line in its
README; `test_fuzz_regressions` replays them all through every byte-level reader.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyze.errors import PatchperfError
from analyze.limits import Limits

FUZZ_DATA = Path(__file__).parent / "data" / "fuzz"
SMALL = Limits(message_bytes=256 * 1024, decompressed_bytes=512 * 1024, page_bytes=256 * 1024,
               table_lines=2_000)

# -- pieces of mail ---------------------------------------------------------------------------

WORDS = ["before", "after", "patch", "baseline", "Mpps", "Gbit/s", "pps", "ns", "us", "%",
         "threads", "queues", "TCP_RR", "trans/s", "vs", "->", "=>", "from", "to", "improvement",
         "regression", "p50", "p99", "x", "±", "~", "<", ">", ">=", "≈", "1,234", "1.234,5",
         "0x1f", "1e9", "-3.2%", "+12%", "NaN", "inf", "…", "|", "||", "+---+", "\t", "  "]
HEADERS = ["From", "To", "Cc", "Subject", "Date", "Message-ID", "In-Reply-To", "References",
           "Content-Type", "Content-Transfer-Encoding", "MIME-Version", "List-Id", "X-Mailer"]
SPECIAL_VALUES = [
    "[PATCH net-next v2 3/7] tcp: thing", "Re: [RFC PATCH 0/0] x", "[GIT PULL] Networking",
    "multipart/mixed; boundary=\"b\"", "multipart/alternative; boundary=b2", "text/plain; charset=utf-8",
    "text/plain; charset=x-unknown", "text/plain; charset=undefined", "text/plain; charset=punycode",
    "text/plain; charset=idna", "text/plain; charset=base64", "text/plain; charset=utf-7",
    "text/html", "base64", "quoted-printable", "8bit",
    "=?undefined?q?x?=", "=?punycode?q?bcher-kva?=", "=?idna?q?x=FF?=", "=?zlib?q?x?=",
    "=?UTF-8?q?J=C3=B6rg?= <j@example.org>", "=?UTF-8?B?w7xiZXI=?=", "=?bogus?x?abc?=",
    "<a@b>", "<>", "Mon, 02 Sep 2024 10:00:00 +0000", "Tue, 31 Feb 2024 25:61:61 +9999",
    "[bold red]x[/]", "\x1b]0;title\x07", "\u202e", "\x00",
]
BODY_LINES = [
    "--b", "--b--", "--b2", "Content-Type: text/x-patch; name=\"../../etc/passwd\"",
    "Content-Disposition: attachment; filename=\"../../x\"", "", "> quoted", ">> deeper", ">>> ",
    "diff --git a/x.c b/x.c", "--- a/x.c", "+++ b/x.c", "@@ -1,2 +1,3 @@", "@@ -0,0 +1 @@ f(",
    "+added", "-removed", " context", "\\ No newline at end of file", "Binary files a/x and b/x differ",
    " x.c | 3 ++-", " 1 file changed, 2 insertions(+), 1 deletion(-)", "---", "-- ", "Signed-off-by: A <a@b>",
    "Acked-by: B", "Reviewed-by:", "Tested-by: C <c@d> # v2", "Link: https://lore.kernel.org/r/x@y",
    "| threads | before | after | delta |", "|---|---|---|---|", "| 1 | 3518448 | 3591240 | 2% |",
    "  $c | before patch |  after patch | improvement", " ----+------+------+-----", "   4 | 1540969 | 3238385 | 110%",
    "before: 5 Mpps, after: 10 Mpps", "went from 5.1 Mpps to 7.9 Mpps with 8 RX queues",
    "TCP_RR: +4.1%", "Throughput  9.4 Gbit/s  9.1 Gbit/s", "x 1.23 y 4.56 z 7.89",
    "# for c in 1 2 4; do ./pktgen.sh -t $c -n 5000000 -i eth1; done", "$ super_netperf 200 -H h -t TCP_RR",
    "tc filter add dev eth1 egress matchall action police rate 2gbit", "The following changes since commit 0123:",
    "are available in the Git repository at:", "  git://git.kernel.org/pub/scm/x.git tags/y", "On Mon, A wrote:",
    "=C3=BC=\n", "=", "=XY", "begin 644 x", "From something", ">From escaped",
]


def _line(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(st.sampled_from(BODY_LINES))
    if kind == 1:
        return " ".join(draw(st.lists(st.sampled_from(WORDS) | st.integers(-10**12, 10**12).map(str)
                                      | st.floats(allow_nan=True).map(str), max_size=10)))
    if kind == 2:
        return draw(st.text(max_size=60))
    return draw(st.sampled_from(BODY_LINES)) + draw(st.text(max_size=10))


@st.composite
def body_lines(draw: st.DrawFn) -> list[str]:
    return [_line(draw) for _ in range(draw(st.integers(0, 40)))]


@st.composite
def mails(draw: st.DrawFn) -> bytes:
    """Bytes shaped like a mail: some headers (known, odd, folded, repeated), a blank line,
    a body of mail-ish lines; now and then raw bytes spliced in."""
    headers = []
    for _ in range(draw(st.integers(0, 12))):
        name = draw(st.sampled_from(HEADERS) | st.text(max_size=8))
        value = draw(st.sampled_from(SPECIAL_VALUES) | st.text(max_size=40))
        fold = "\n " + draw(st.text(max_size=10)) if draw(st.booleans()) else ""
        headers.append(f"{name}: {value}{fold}")
    text = "\n".join(headers) + "\n\n" + "\n".join(draw(body_lines()))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(max_size=64)) + data[at:]
    return data


def _named_errors_only(call, *args):
    """Run a reader; a named error is an answer, anything else fails the test."""
    try:
        return call(*args)
    except PatchperfError:
        return None


# -- one test per reader ----------------------------------------------------------------------

FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                deadline=None)


@FUZZ
@given(mails() | st.binary(max_size=2048))
def test_fuzz_message_decoding_and_analysis(data: bytes) -> None:
    from analyze.claims import extract_claims
    from analyze.message import parse_message

    message = _named_errors_only(parse_message, data, "fuzz", SMALL)
    if message is not None:
        _named_errors_only(extract_claims, message)


@FUZZ
@given(st.lists(mails() | st.binary(max_size=256), max_size=6),
       st.sampled_from([b"From mboxrd@z Thu Jan  1 00:00:00 1970\n", b"From x\n", b"From \n", b">From x\n"]))
def test_fuzz_mbox_splitting(parts: list[bytes], separator: bytes) -> None:
    from analyze.model import Problem
    from ingest.mboxrd import iter_mboxrd

    stream = io.BytesIO(b"".join(separator + p + b"\n" for p in parts))
    items = _named_errors_only(lambda: list(iter_mboxrd(stream, "fuzz.mbox", SMALL)))
    for item in items or []:
        assert isinstance(item, Problem) or len(item.data) <= SMALL.message_bytes


@FUZZ
@given(mails() | st.binary(max_size=1024), st.booleans())
def test_fuzz_gzip_reader(payload: bytes, truncate: bool) -> None:
    from ingest.gz import open_gunzip

    packed = gzip.compress(payload)
    if truncate:
        packed = packed[: max(1, len(packed) // 2)]
    _named_errors_only(lambda: open_gunzip(io.BytesIO(packed), "fuzz.gz", 4096).read())


PAGE_PIECES = ["<pre>", "</pre>", "<html>", "<body>", "<a href=\"x\">", "</a>", "<b>", "&lt;",
               "&amp;", "&#0;", "&#x1b;", "<!--", "-->", "<script>", "<pre id=\"b\">",
               "From: A <a@b>", "Subject: [PATCH] x", "Date: Mon, 2 Sep 2024", "Message-ID: <m@x>",
               "Content-Type: text/plain", "[<prev>] [next>] [day] [month] [year] [list]",
               "Powered by blists", "next prev parent reply other threads:[~", "^ permalink raw reply"]


@st.composite
def pages(draw: st.DrawFn) -> bytes:
    pieces = draw(st.lists(st.sampled_from(PAGE_PIECES) | st.text(max_size=30)
                           | st.sampled_from(BODY_LINES), max_size=40))
    return "\n".join(pieces).encode("utf-8", "surrogatepass")


@FUZZ
@given(pages() | st.binary(max_size=1024), st.sampled_from(["lore-html", "openwall-html",
                                                          "lore-text", "openwall-text"]))
def test_fuzz_archive_page_readers(data: bytes, fmt: str) -> None:
    from ingest.pages import page_to_mail

    _named_errors_only(page_to_mail, data, fmt)


@FUZZ
@given(mails() | pages() | st.binary(max_size=512))
def test_fuzz_format_detection(head: bytes) -> None:
    from ingest.detect import looks_binary, sniff_format

    sniff_format(head)
    looks_binary(head)


@FUZZ
@given(st.sampled_from(SPECIAL_VALUES) | st.text(max_size=120)
       | st.lists(st.sampled_from(["[", "]", "PATCH", "RFC", "v2", "3/7", "net-next", "Re:",
                                   "Fwd:", "AW:", "0/0", "99999999999/1", " "]), max_size=12).map("".join))
def test_fuzz_subject_parsing(subject: str) -> None:
    from analyze.subject import parse_subject

    _named_errors_only(parse_subject, subject)


@FUZZ
@given(body_lines(), st.data())
def test_fuzz_trailers_tables_lists_and_prose(lines: list[str], data: st.DataObject) -> None:
    from analyze.lists import find_list_measurements
    from analyze.prose import find_prose_claims
    from analyze.tables import find_table_measurements
    from analyze.trailers import parse_trailers

    depths = data.draw(st.lists(st.integers(0, 3), min_size=len(lines), max_size=len(lines)))
    _named_errors_only(parse_trailers, lines, depths)
    _named_errors_only(find_table_measurements, lines)
    _named_errors_only(find_list_measurements, lines)
    _named_errors_only(find_prose_claims, lines)


@FUZZ
@given(st.text(max_size=200) | st.lists(st.sampled_from(WORDS), max_size=20).map(" ".join))
def test_fuzz_number_lexer(line: str) -> None:
    from analyze.numbers import find_quantities

    for q in _named_errors_only(find_quantities, line) or []:
        assert 0 <= q.start <= q.end <= len(line)


SCENARIO_KEYS = ["id", "title", "commands", "[claim]", "[platform]", "[topology]", "[[datapath]]",
                 "[workload]", "[metric]", "[calibration]", "[claimed]", "sweep", "values",
                 "cost_ns", "kind", "lines", "frequency", "before", "after", "name", "unit",
                 "profile", "cores", "sockets", "mechanisms", "points", "free", "resource"]


@st.composite
def scenario_texts(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 25))):
        key = draw(st.sampled_from(SCENARIO_KEYS))
        if key.startswith("["):
            lines.append(key)
            continue
        value = draw(st.sampled_from(['"x"', "1", "-1", "1e308", "[1, 2, 4]", "[]", '["a"]',
                                     "true", "{a = 1}", '"\\u202e"', "[[[[1]]]]"])
                     | st.text(max_size=20).map(repr))
        lines.append(f"{key} = {value}")
    return "\n".join(lines)


@FUZZ
@given(scenario_texts() | st.text(max_size=300))
def test_fuzz_scenario_loader(text: str) -> None:
    from analyze.sim.scenario import parse_scenario

    _named_errors_only(parse_scenario, text, "fuzz.toml")


def _regressions() -> list[Path]:
    return sorted(p for p in FUZZ_DATA.glob("*") if p.name != "README.md")


@pytest.mark.parametrize("path", _regressions(), ids=lambda p: p.name)
def test_fuzz_regressions(path: Path) -> None:
    """Each input a fuzzer once failed on, through every reader that takes bytes or text."""
    from analyze.claims import extract_claims
    from analyze.message import parse_message
    from analyze.sim.scenario import parse_scenario
    from analyze.subject import parse_subject
    from ingest.mboxrd import iter_mboxrd
    from ingest.pages import page_to_mail

    data = path.read_bytes()
    text = data.decode("utf-8", "replace")
    message = _named_errors_only(parse_message, data, path.name, SMALL)
    if message is not None:
        _named_errors_only(extract_claims, message)
    _named_errors_only(lambda: list(iter_mboxrd(io.BytesIO(data), path.name, SMALL)))
    for fmt in ("lore-html", "openwall-html", "lore-text", "openwall-text"):
        _named_errors_only(page_to_mail, data, fmt)
    _named_errors_only(parse_subject, text[:1000])
    _named_errors_only(parse_scenario, text, path.name)
