"""Fuzzing every parser that reads outside input (issue 7): each either returns or raises one
of the project's named errors (`PatchperfError` and its subclasses). Anything else is a bug
the fuzzer has found.

Inputs are built from pieces mail is made of — header lines, MIME boundaries, RFC 2047 words,
quote markers, diff and diffstat lines, table rows, numbers with units, shell commands —
mixed with arbitrary text and bytes, so the search reaches past the first check of each
reader. How many examples run is the hypothesis profile's (tests/conftest.py): `ci` in
`make test`, `fuzz` (`make fuzz`) for the long run SECURITY.md quotes.

Most inputs of pure noise stop at a reader's first check, so the deeper generators start
from what a reader accepts — a mail built with the stdlib's email package (matching MIME
boundaries, real transfer encodings and charsets), the library's own scenarios, Atom feeds,
Patchwork event pages, openwall index pages, a real git epoch — and then mutate it.
`hypothesis.event` records how far each input got (`pytest --hypothesis-show-statistics`).

A failing input hypothesis finds goes to tests/data/fuzz/ as a file, with a line in its
README; `test_fuzz_regressions` replays them all through every byte-level reader.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from analyze.errors import PatchperfError
from analyze.limits import Limits

FUZZ_DATA = Path(__file__).parent / "data" / "fuzz"
SCENARIO_LIBRARY = Path(__file__).parent.parent / "corpus" / "scenarios"
SMALL = Limits(message_bytes=256 * 1024, decompressed_bytes=512 * 1024, page_bytes=256 * 1024,
               table_lines=2_000)

# -- pieces of mail ---------------------------------------------------------------------------

WORDS = ["before", "after", "patch", "baseline", "Mpps", "Gbit/s", "pps", "ns", "us", "%",
         "threads", "queues", "TCP_RR", "trans/s", "vs", "->", "=>", "from", "to", "improvement",
         "regression", "p50", "p99", "x", "±", "~", "<", ">", ">=", "≈", "1,234", "1.234,5",
         "0x1f", "1e9", "-3.2%", "+12%", "NaN", "inf", "…", "|", "||", "+---+", "\t", "  ",
         # issue 22's number shapes: exponents past a float, invisible and format characters
         # inside figures, the unicode minus, mixed and mangled units
         "1.5e+400", "9.9e+308", "1.0e+400%", "-1e-400", "5\u200b000000", "9\u00ad", "1\u0336000",
         "\u2060", "\ufeff", "\U000e0041", "\u22125", "\u2212", "Gpps", "Kpps", "usé", "Mppś",
         "→", "5 Mpps → 10 Gpps", "from \u22125 Mpps to 10 Mpps", "10 us to 5 usé"]
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
    # RFC 2231 parameters the stdlib raises TypeError, ValueError or LookupError on
    "text/plain; foo*=a; foo*0=b", "text/plain; name*=undefined''x", "text/x-patch; name*=punycode''%e9",
    "attachment; filename*=idna''x", "attachment; filename*0*=utf-8''a%ff; filename*1=b",
    "multipart/mixed; boundary*=''x", 'multipart/mixed; boundary=""', "message/global", "message/delivery-status",
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
    # numbers past what int() converts (4,300 digits) where the readers take counts
    "@@ -1," + "9" * 4400 + " +1 @@", " 1 file changed, " + "9" * 4400 + " insertions(+)",
    " x.c | " + "9" * 4400 + " +-", "before: " + "9" * 4400 + " Mpps, after: 1 Mpps",
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


HEADER_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=60)
SUBJECTS = [v for v in SPECIAL_VALUES if v.startswith(("[", "Re:"))]
CHARSETS = ["utf-8", "iso-8859-1", "windows-1252", "koi8-r", "iso-2022-jp", "utf-16", "gb2312"]
ENCODINGS = ["base64", "quoted-printable", "8bit", "7bit"]


@st.composite
def valid_mails(draw: st.DrawFn) -> bytes:
    """A well-formed mail made by the stdlib's email package — the headers a reader wants,
    a body of mail-ish lines in a real charset and transfer encoding, perhaps a patch, an
    HTML alternative or a binary attachment under matching boundaries — then perhaps
    mutated (cut, a byte flipped, bytes spliced in, a part repeated)."""
    from email.headerregistry import Address
    from email.message import EmailMessage
    from email.policy import SMTP

    msg = EmailMessage()
    msg["From"] = draw(st.sampled_from(["Ana <ana@example.org>", "=?UTF-8?q?J=C3=B6rg?= <j@example.de>"])
                       | HEADER_TEXT.map(lambda t: Address(display_name=t, addr_spec="x@example.org")))
    msg["Subject"] = draw(st.sampled_from(SUBJECTS) | HEADER_TEXT)
    msg["Date"] = draw(st.sampled_from(["Mon, 02 Sep 2024 10:00:00 +0000", "Tue, 31 Feb 2024 25:61:61 +9999"]))
    msg["Message-ID"] = f"<{draw(st.integers(0, 50))}@fuzz.example>"
    if draw(st.booleans()):
        parent = f"<{draw(st.integers(0, 50))}@fuzz.example>"
        msg["In-Reply-To"], msg["References"] = parent, parent
    body = "\n".join(draw(body_lines()))
    try:
        msg.set_content(body, charset=draw(st.sampled_from(CHARSETS)), cte=draw(st.sampled_from(ENCODINGS)))
    except (UnicodeError, ValueError):  # text the charset cannot hold, 8-bit text as 7bit
        msg.set_content(body, charset="utf-8", cte="base64")
    for kind in draw(st.lists(st.sampled_from(["patch", "html", "binary"]), max_size=2)):
        name = draw(st.sampled_from(["0001-fix.patch", "../../x.patch", "\u202efix.patch"]) | HEADER_TEXT)
        if kind == "patch":
            msg.add_attachment("\n".join(draw(body_lines())), subtype="x-patch", filename=name)
        elif kind == "html":
            msg.add_attachment("<p>" + "<br>".join(draw(body_lines())), subtype="html")
        else:
            msg.add_attachment(draw(st.binary(max_size=64)), maintype="application",
                               subtype="octet-stream", filename=name)
    if msg.is_multipart():  # (the stdlib draws a boundary with `random`, which hypothesis forbids)
        msg.set_boundary(f"==fuzz{draw(st.integers(0, 9))}==")
    data = msg.as_bytes(policy=SMTP)
    if draw(st.integers(0, 4)) == 0:  # a parameter spelled as strangers spell them
        leaves = [p for p in msg.walk() if not p.is_multipart()]
        target = draw(st.sampled_from(leaves))
        header = draw(st.sampled_from(["Content-Type", "Content-Disposition"]))
        value = draw(st.sampled_from([v for v in SPECIAL_VALUES if ";" in v or "/" in v]))
        # (the stdlib's own header classes and writer choke on some: the mail is kept as made)
        with contextlib.suppress(AttributeError, TypeError, ValueError, LookupError):
            del target[header]
            target[header] = value
            data = msg.as_bytes(policy=SMTP)
    return _mutated(draw, data)


def _mutated(draw: st.DrawFn, data: bytes) -> bytes:
    how = draw(st.sampled_from(["as made", "as made", "cut", "flip", "splice", "repeat"]))
    if how == "as made" or not data:
        return data
    at = draw(st.integers(0, len(data) - 1))
    if how == "cut":
        return data[:at]
    if how == "flip":
        return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]
    if how == "splice":
        return data[:at] + draw(st.binary(max_size=32) | st.sampled_from(BODY_LINES).map(str.encode)) + data[at:]
    end = draw(st.integers(at, min(len(data), at + 400)))
    return data[:end] + data[at:end] * draw(st.integers(1, 4)) + data[end:]


def _named_errors_only(call, *args):
    """Run a reader; a named error is an answer, anything else fails the test."""
    try:
        return call(*args)
    except PatchperfError as exc:
        if currently_in_test_context():  # (the regression replay runs outside hypothesis)
            event(f"{getattr(call, '__name__', 'reader')}: {type(exc).__name__}: {_first_words(exc)}")
        return None


def _first_words(exc: Exception) -> str:
    """An error's kind without its particulars (names, sizes): what `event` should count."""
    words = [w for w in str(exc).split() if not any(c.isdigit() for c in w) and "/" not in w]
    return " ".join(words[:4])


# -- one test per reader ----------------------------------------------------------------------

FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                deadline=None)


@FUZZ
@given(valid_mails() | mails() | st.binary(max_size=2048))
def test_fuzz_message_decoding_and_analysis(data: bytes) -> None:
    from analyze.claims.extract import extract_claims
    from analyze.mail.message import parse_message

    message = _named_errors_only(parse_message, data, "fuzz", SMALL)
    if message is None:
        return
    claims = _named_errors_only(extract_claims, message, SMALL)
    event(f"parsed: a {message.kind}, {'no' if not claims else 'some'} claims, "
          f"{'a' if message.patch and message.patch.files else 'no'} diff")


# A quarter of the profile's examples for the tests whose one example is several mails,
# files or git runs: the long run stays within half an hour.
HEAVY = settings(FUZZ, max_examples=max(40, settings().max_examples // 4))


@HEAVY
@given(st.lists(valid_mails(), min_size=1, max_size=4))
def test_fuzz_thread_analysis(mails_: list[bytes]) -> None:
    """A batch of well-formed mails replying to one another: threads, series, claims merged
    across the thread, and the scenarios built from them."""
    from analyze.pipeline import analyze_messages, parse_all
    from analyze.sim.build import build_scenarios

    messages, problems = parse_all(((m, f"fuzz#{i}") for i, m in enumerate(mails_)), SMALL)
    analysis = analyze_messages(messages, problems, SMALL)
    _named_errors_only(build_scenarios, analysis.claims, analysis.messages)
    event(f"thread: {min(len(analysis.messages), 3)}+ messages, {min(len(analysis.series), 2)}+ series")


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
    from analyze.mail.subject import parse_subject

    _named_errors_only(parse_subject, subject)


@FUZZ
@given(body_lines(), st.data())
def test_fuzz_trailers_tables_lists_and_prose(lines: list[str], data: st.DataObject) -> None:
    from analyze.claims.lists.read import find_list_measurements
    from analyze.claims.prose.read import find_prose_claims
    from analyze.claims.tables.read import find_table_measurements
    from analyze.mail.trailers import parse_trailers

    depths = data.draw(st.lists(st.integers(0, 3), min_size=len(lines), max_size=len(lines)))
    _named_errors_only(parse_trailers, lines, depths)
    _named_errors_only(find_table_measurements, lines)
    _named_errors_only(find_list_measurements, lines)
    _named_errors_only(find_prose_claims, lines)


@given(body_lines())
def test_fuzz_claims_are_finite_and_render(lines: list[str]) -> None:
    """Issue 22: whatever the figures, every claim kept is finite and positive where it has a
    unit, its row renders, and its document is RFC 8259 JSON."""
    from analyze.claims.extract import claims_or_warning
    from analyze.mail.message import parse_message
    from analyze.serialize import claim_to_dict
    from reports.document import before_after, percent
    from reports.safe import json_text

    raw = ("From: a@b\nSubject: [PATCH] x\nMessage-ID: <f@z>\n"
           "Content-Type: text/plain; charset=utf-8\n\n" + "\n".join(lines)).encode("utf-8", "replace")
    message = _named_errors_only(parse_message, raw, "fuzz", SMALL)
    if message is None:
        return
    claims, _ = claims_or_warning(message, SMALL)
    for claim in claims:
        for x in (claim.baseline, claim.patched, claim.baseline_canonical,
                  claim.patched_canonical, claim.change_pct, claim.stated_change_pct):
            assert x is None or math.isfinite(x), claim
        if claim.canonical_unit is not None:
            assert (claim.baseline_canonical or 0) >= 0 and (claim.patched_canonical or 0) >= 0
        doc = claim_to_dict(claim)
        before_after(doc), percent(doc["change_pct"])
        json.loads(json_text(doc), parse_constant=lambda name: pytest.fail(f"{name} in JSON"))


@FUZZ
@given(st.text(max_size=200) | st.lists(st.sampled_from(WORDS), max_size=20).map(" ".join))
def test_fuzz_number_lexer(line: str) -> None:
    from analyze.claims.lexer.numbers import find_quantities

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


SCENARIO_VALUES = st.sampled_from(['"x"', "0", "1", "-1", "1e308", "-0.0", "nan", "inf", "[1, 2, 4]",
                                   "[]", '["a"]', "true", "{a = 1}", '"\\u202e"', "[[[[1]]]]",
                                   "[1, 1, 1]", "[4, 2, 1]", "100000000", '"pktgen"', '"threads"',
                                   '"drop_lock"', '["drop_lock", "percpu_stats"]'])


@st.composite
def library_scenarios(draw: st.DrawFn) -> str:
    """A scenario of the bundled library with one to three lines changed: a value replaced,
    a line dropped or repeated, a key renamed. Most stay valid TOML and reach the checks
    past parsing, and many load and run."""
    texts = [p.read_text() for p in sorted(SCENARIO_LIBRARY.glob("*.toml"))]
    lines = draw(st.sampled_from(texts)).splitlines()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["value", "value", "drop", "repeat", "key"]))
        key, eq, _ = lines[i].partition("=")
        if how == "value" and eq:
            lines[i] = f"{key}= {draw(SCENARIO_VALUES | st.text(max_size=12).map(json.dumps))}"
        elif how == "drop":
            del lines[i]
        elif how == "repeat":
            lines.insert(i, lines[i])
        elif eq:
            lines[i] = f"{draw(st.sampled_from(SCENARIO_KEYS))} ={lines[i].partition('=')[2]}"
        if not lines:
            break
    return "\n".join(lines)


@FUZZ
@given(library_scenarios() | scenario_texts() | st.text(max_size=300))
def test_fuzz_scenario_loader_and_simulator(text: str) -> None:
    from analyze.sim.predict import judge
    from analyze.sim.scenario import parse_scenario
    from corpus.library import constants_for

    scenario = _named_errors_only(parse_scenario, text, "fuzz.toml")
    if scenario is None:
        return
    verdict = _named_errors_only(lambda: judge(scenario, constants_for(scenario)))
    event(f"scenario loaded, {'judged: ' + verdict.verdict if verdict else 'no model'}")


# -- what the archives serve: Atom, Patchwork's JSON, openwall's index pages -------------------

ATOM_PIECES = ['<?xml version="1.0" encoding="us-ascii"?>', '<feed xmlns="http://www.w3.org/2005/Atom">',
               "</feed>", "<entry>", "</entry>", "<title>x</title>", "<updated>2024-09-02T10:00:00Z</updated>",
               "<updated>9999-12-31T23:59:59-23:59</updated>", "<updated>x</updated>",
               '<link href="http://h/netdev/a@b/"/>', '<link href="http://h/netdev/%3Ca%40b%3E/"/>',
               '<link href="../../"/>', '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>', "&e;",
               '<!ENTITY a "aaaaaaaaaa">', "<![CDATA[ x ]]>", "\x00"]


@st.composite
def atom_feeds(draw: st.DrawFn) -> bytes:
    entries = []
    for _ in range(draw(st.integers(0, 5))):
        mid = draw(st.sampled_from(["a@b", "<x@y>", "%3Cm%40n%3E", "", "../x", "\u202e@x"]) | HEADER_TEXT)
        when = draw(st.sampled_from(["2024-09-02T10:00:00Z", "2024-09-02T10:00:00", "2024-02-30T00:00:00Z",
                                     "0001-01-01T00:00:00-23:59", ""]))
        entries.append(f"<entry><title>{draw(HEADER_TEXT).replace('<', '&lt;').replace('&', '&amp;')}</title>"
                       f"<updated>{when}</updated><link href=\"http://h/netdev/{mid}/\"/></entry>")
    text = '<feed xmlns="http://www.w3.org/2005/Atom">' + "".join(entries) + "</feed>"
    pieces = draw(st.lists(st.sampled_from(ATOM_PIECES), max_size=4))
    if pieces and draw(st.integers(0, 3)) == 0:  # most feeds stay well-formed
        at = draw(st.integers(0, len(text)))
        text = text[:at] + "".join(pieces) + text[at:]
    return text.encode("utf-8", "surrogatepass")


@FUZZ
@given(atom_feeds() | st.binary(max_size=512))
def test_fuzz_atom_feed(body: bytes) -> None:
    from ingest.lore import parse_atom

    entries = _named_errors_only(parse_atom, body, "fuzz.atom", "netdev")
    for entry in entries or []:
        assert entry.message_id and entry.received.tzinfo is not None
    event(f"atom: {'rejected' if entries is None else min(len(entries), 3)} entries")


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | HEADER_TEXT,
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(HEADER_TEXT, inner, max_size=3),
                           max_leaves=8)


@st.composite
def patchwork_pages(draw: st.DrawFn) -> bytes:
    """A page of events shaped like Patchwork's (ids, categories, payloads with a patch, a
    series and a check), each field now and then of the wrong type."""
    def field(good):
        return draw(st.just(good) | JSON_VALUES) if draw(st.integers(0, 4)) == 0 else good

    events = []
    for i in range(draw(st.integers(0, 5))):
        events.append(field({
            "id": field(i), "category": field(draw(st.sampled_from(["series-completed", "patch-created",
                                                                    "check-created"]))),
            "date": field("2024-09-02T10:00:00"),
            "payload": field({"patch": field({"id": field(7), "msgid": field("<a@b>"),
                                               "mbox": field("http://pw/patch/7/mbox/")}),
                              "series": field({"id": field(3), "mbox": field("http://pw/series/3/mbox/")}),
                              "check": field({"state": field("success"), "context": field("build"),
                                              "target_url": field("http://ci/x")})}),
        }))
    text = json.dumps(field(events))
    if draw(st.integers(0, 5)) == 0:
        text = text[:draw(st.integers(0, len(text)))] + draw(st.sampled_from(["[" * 5000, "}", "\x00", ""]))
    return text.encode()


@FUZZ
@given(patchwork_pages() | st.binary(max_size=256))
def test_fuzz_patchwork_events(body: bytes) -> None:
    from ingest.patchwork import parse_events

    events = _named_errors_only(parse_events, body, "http://pw/api/1.3/events/")
    for e in events or []:
        assert isinstance(e.id, int) and (e.mbox is None or isinstance(e.mbox, str))
    event(f"patchwork: {'rejected' if events is None else min(len(events), 3)} events")


@st.composite
def openwall_pages(draw: st.DrawFn) -> bytes:
    links = []
    for _ in range(draw(st.integers(0, 8))):
        href = draw(st.sampled_from(["05/", "5/", "31/", "99/", "1", "123456", "1234567", "-1", "../", "3/1",
                                     "http://[::1/", "//evil/3", "/lists/netdev/2024/09/02/3/1",
                                     "3/2", "javascript:x"]) | HEADER_TEXT)
        text = draw(st.sampled_from(["3", 'Download attachment "x.patch"', 'View attachment "../y"',
                                     'Download attachment "\u202e.patch"']) | HEADER_TEXT)
        links.append(f'<a href="{href.replace(chr(34), "&quot;")}">{text.replace("<", "&lt;")}</a>')
    body = "<html><body><pre>" + draw(st.sampled_from(PAGE_PIECES)) + "</pre>" + " ".join(links) + "</body></html>"
    return body.encode("utf-8", "surrogatepass")


@FUZZ
@given(openwall_pages() | pages() | st.binary(max_size=512))
def test_fuzz_openwall_index_pages(body: bytes) -> None:
    from ingest.openwall import attachment_links, day_messages, month_days

    here = "https://www.openwall.com/lists/netdev/2024/09/02/3"
    days = _named_errors_only(month_days, body) or []
    numbers = _named_errors_only(day_messages, body) or []
    links = _named_errors_only(attachment_links, body, here) or []
    assert all(1 <= d <= 99 for d in days) and all(n >= 0 for n in numbers)
    event(f"openwall: {bool(days)} days, {bool(numbers)} messages, {bool(links)} attachments")


# -- what sits on the user's disk: Maildir folders, git epochs -------------------------------

FILE_NAMES = st.sampled_from(["1700000000.M1P2.host:2,S", ".hidden", "a b", "\u202e", "x" * 200, "new",
                              "-rf", "$(touch pwned)", "é"]) \
    | st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)), min_size=1, max_size=30)


@HEAVY
@given(st.lists(st.tuples(st.sampled_from(["cur", "new", "tmp"]), FILE_NAMES, valid_mails() | st.binary(max_size=64)),
                max_size=6), st.booleans())
def test_fuzz_maildir(tmp_path_factory, files, with_subfolder: bool) -> None:
    """Odd file names and contents in a Maildir: every file of cur/ and new/ is read (tmp/
    and hidden files never), in a stable order, and each mail is analysed or named."""
    from ingest.local import read_sources

    root = tmp_path_factory.mktemp("maildir")
    for sub in ("cur", "new", "tmp"):
        (root / sub).mkdir()
    if with_subfolder:
        (root / "cur" / "folder").mkdir()  # a folder inside cur/ is no message
    written = {}
    for sub, name, data in files:
        try:
            (root / sub / name).write_bytes(data)
        except OSError:  # a name this file system refuses (too long in bytes)
            continue
        if sub != "tmp" and not name.startswith(".") and name != "folder":
            written[(sub, name)] = data
    items = list(read_sources([root], SMALL))
    # every file is read or named (a file holding an mbox gives `path#N` items); a Maildir
    # without mail is one Problem naming the folder
    origins = {o.rsplit("#", 1)[0] if "#" in o and not Path(o).exists() else o
               for o in (getattr(i, "origin", "") for i in items)} - {str(root)}
    read = {Path(o).relative_to(root).parts for o in origins}
    assert read == set(written), (read, set(written))
    for item in items:
        if hasattr(item, "data"):
            _named_errors_only(parse_message_small, item.data)


def parse_message_small(data: bytes):
    from analyze.mail.message import parse_message

    return parse_message(data, "fuzz", SMALL)


@settings(FUZZ, max_examples=max(10, settings().max_examples // 10))  # each example runs git
@given(st.lists(st.tuples(st.sampled_from(["m", "m", "d", "m/x"]), valid_mails() | st.binary(max_size=128)),
                min_size=1, max_size=5))
def test_fuzz_git_epoch(tmp_path_factory, commits) -> None:
    """A real epoch of arbitrary blobs (a deletion, `m` a folder rather than a blob): every
    `m` blob comes back byte for byte, in commit order, deletions counted."""
    from epoch_repo import fast_import

    from ingest.epochs import read_epoch

    repo = tmp_path_factory.mktemp("epoch") / "0.git"
    fast_import(repo, [(kind, data) for kind, data in commits])
    read, items = read_epoch(repo, None, SMALL)
    got = _named_errors_only(lambda: list(items))
    if got is None:
        return
    # each commit holding `m` gives one item (a folder `m`: its tree object, which the
    # analysis then rejects as no mail); a blob comes back byte for byte
    kept = [(kind, data) for kind, data in commits if kind != "d"]
    assert len(got) == len(kept)
    for (kind, data), item in zip(kept, got, strict=True):
        assert kind == "m/x" or getattr(item, "data", None) == data
    assert read.deletions == sum(kind == "d" for kind, _ in commits)
    event(f"epoch: {len(got)} read, {read.deletions} deleted")


def _regressions() -> list[Path]:
    return sorted(p for p in FUZZ_DATA.glob("*") if p.is_file() and p.name != "README.md")


@pytest.mark.parametrize("path", _regressions(), ids=lambda p: p.name)
def test_fuzz_regressions(path: Path) -> None:
    """Each input a fuzzer once failed on, through every reader that takes bytes or text."""
    from analyze.claims.extract import extract_claims
    from analyze.mail.message import parse_message
    from analyze.mail.subject import parse_subject
    from analyze.sim.scenario import parse_scenario
    from ingest.lore import parse_atom
    from ingest.mboxrd import iter_mboxrd
    from ingest.openwall import attachment_links, day_messages, month_days
    from ingest.pages import page_to_mail
    from ingest.patchwork import parse_events

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
    _named_errors_only(parse_atom, data, path.name, "netdev")
    _named_errors_only(parse_events, data, path.name)
    for read in (month_days, day_messages):
        _named_errors_only(read, data)
    _named_errors_only(attachment_links, data, "https://www.openwall.com/lists/netdev/2024/09/02/3")
