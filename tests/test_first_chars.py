"""The look-ahead put in front of word-list regexes changes no match, only the speed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import _require_shared
from hypothesis import given, settings
from hypothesis import strategies as st

import analyze.claims.lexer.number_spans as number_spans
import analyze.claims.lexer.numbers as numbers
import analyze.claims.lexer.units as units
import analyze.claims.lists.read as lists
import analyze.claims.tables.roles as table_roles
from analyze.claims.lexer.first_chars import Gated, compile_words, first_chars, required_literals


def test_first_characters_of_a_word_list():
    assert first_chars(r"\bbefore\b|\bbase(?:line)?\b|\+\s*[A-Za-z]", re.I) == {"b", "+"}
    assert first_chars(r"(?:^|\.)time\.|page_faults") == {".", "t", "p"}
    assert first_chars(r"(?:no )?(?:more|less) than") == {"n", "m", "l"}


@pytest.mark.parametrize("pattern", [
    r"\w+", r"x*", r"(?:a|)", r".foo", r"(?i)before|after", r"[^a]b", r"\d+",
])
def test_unknown_first_characters_leave_the_pattern_alone(pattern):
    assert first_chars(pattern) is None
    assert compile_words(pattern).pattern == pattern


# Every regex the readers compile with compile_words, with the pattern it stands for.
_CONVERTED = [
    table_roles._NOISE, table_roles._STATED, table_roles._BASELINE, table_roles._PATCHED,
    table_roles._ANY_ROLE.pattern, table_roles._SIDE.pattern, lists._NOISE_KEY, lists._MEASURE,
    numbers._SYMBOL_BEFORE, numbers._FILLER, numbers._BOUND_WORDS, numbers._FACTOR,
    numbers._RANGE_VERBS, units._CPU_TIME, units._CPU_PERCENT,
    *(p for _, p in units._CONTEXT_WORDS), *(p for _, p in units._TEST_NAMES),
    numbers._START, numbers._DOT_THOUSANDS, numbers._COMMA_DECIMAL_ANYWHERE,
    *(p for _, p, _ in number_spans._EXCLUDED), number_spans._ADDRESS,
]


def _plain(fast: re.Pattern[str]) -> re.Pattern[str]:
    """The pattern as written, without the look-ahead compile_words put in front."""
    text = fast.pattern
    if text.startswith("(?=["):
        text = text[text.index("])(?:") + 5:-1]
    return re.compile(text, fast.flags)


def test_the_readers_regexes_have_a_look_ahead():
    fast = [p for p in _CONVERTED if p.pattern.startswith("(?=[")]
    assert len(fast) >= len(_CONVERTED) - 3  # each but a few gains the look-ahead


# The patterns searched behind a gate of literals (first_chars.Gated).
_GATED = [table_roles._ANY_ROLE, table_roles._SIDE]


def _same_matches(line: str) -> None:
    for fast in _CONVERTED:
        plain = _plain(fast)
        for pos in (0, len(line) // 2):
            a, b = fast.search(line, pos), plain.search(line, pos)
            assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups())), \
                (fast.pattern[:60], line)
    for gated in _GATED:
        a, b = gated.search(line), _plain(gated.pattern).search(line)
        assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups())), \
            (gated.pattern.pattern[:60], line)


def test_literals_every_match_holds():
    assert required_literals(r"\bbefore\b|\bbase(?:line)?\b|\+\s*[A-Za-z]", re.I) == {"before", "base", "+"}
    assert required_literals(r"\bno[- ]?patch\b") == {"patch"}  # the longest that must be there
    assert required_literals(r"x{0,3}yz|(?:ab)?c") == {"yz", "c"}
    assert required_literals(r"a(?:bc|de)+") == {"bc", "de"}
    for none in (r"a|\w+", r"x*", r"[0-9]+", r"(?i)abc", r"(?i:abc)d?"):
        assert required_literals(none) is None, none


def test_a_gate_keeps_only_what_decides():
    gate = Gated(r"\bpatch(?:ed)?\b|\bunpatched\b|±|\bW/O\b", re.I)
    assert gate.literals == ("patch", "w/o")  # (`unpatched` holds `patch`; `±` is no ASCII)
    assert gate.search("± 3") is not None and gate.search("w/o 3") is not None
    assert gate.search("The KKQ patch") is not None  # (not ASCII: searched as it is)
    assert Gated(r"[0-9]+").literals is None


def test_same_matches_on_the_evaluation_set():
    folder = Path(__file__).parent / "data" / "claims"
    lines = [x for p in sorted(folder.iterdir()) if p.suffix in (".eml", ".mbox")
             for x in p.read_text(errors="replace").splitlines()]
    assert len(lines) > 1000
    for line in lines:
        _same_matches(line)


def test_same_matches_on_the_real_corpus():
    folder = _require_shared("corpus") / "real"
    lines = [x for p in sorted(folder.glob("*.txt"))
             for x in p.read_text(errors="replace").splitlines()]
    assert len(lines) > 5000
    for line in lines:
        _same_matches(line)


# Letters that case folding matches beyond ASCII (ſ is s, K is k, ı and İ are i).
_PIECES = ["before", "BASE", "baſeline", "w/o", "w/ x", "+ a", "patched", "with the fix", "std",
           "±", "+-", "delta", "%", " % ", "  ( % ) ", "more than ", "no more than ", "about ",
           "approx. ", "factor of ", "from ", "went ", "~", "≈", ">= ", "cpu", "CPU-time",
           "utime", " user ", "sys", "trans.", "tps", "req/", "pps", "Mbits/", "latency", "µs",
           "memory", "tcp_rr", "_stream", "KB", "ıdle", "İdle", "K", "x", " ", "\t", "\n", "0",
           "12", ".", "-", "_", "é", ":", "07:07", "2015-07-02", "10.0.0.1", "a@b.org",
           "[1/2]", "x.c", "Jul 3", "Linux 3.17", "commit 1a2b3c4d", " | 12 +-", "twice"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_same_matches_on_generated_text(line):
    _same_matches(line)


# The sentence filters as single alternations, as they were first written: the split
# searches in sentences.py must say the same.
_CUE_AS_ONE = re.compile(
    r"%|×|\d\s*x\b|\b(?:improv|regress|increas|decreas|reduc|lower|rais|boost|speed|degrad"
    r"|doubl|tripl|halv|accelerat|penalt|compar|shrink|slow|fast|quick|gain|drop)"
    r"|\b(?:before|after|from|without|w/o|vs|versus|instead|rather|relative|against|now|more"
    r"|less|higher|better|worse|twice|thrice|times|up|down|cut|cuts|save[sd]?|saving|hurts?"
    r"|grows?|grew|rise|rises|rose|fell|falls?|wins?|hit|lose|loses)\b|\((?:was|previously)\b"
    r"|\bwith\s+(?:(?:the|this|these|my|his|her|their|your)\s+)?(?:patch|patches|fix|change"
    r"|series|patchset|commit)",
    re.IGNORECASE,
)
_FIGURE_AS_ONE = re.compile(r"\d|\b(?:twice|thrice|doubl|tripl|halv)", re.IGNORECASE)
_CUE_PIECES = ["2x", "3 X", "2xx", "%", "×", "improves", "UP", "set_up", "(was", "( was",
               "with the patch", "with  my  fix", "withthe patch", "twice", "Twice", "ſlow",
               "ſtwice", "K", "up-", "a", " ", "0", "_", "é", "\n"]


def _sentence_filters_agree(text: str) -> None:
    import analyze.claims.prose.sentences as sentences

    assert sentences._has_cue(text) == bool(_CUE_AS_ONE.search(text)), text
    assert sentences._has_figure(text) == bool(_FIGURE_AS_ONE.search(text)), text


def test_sentence_filters_on_the_evaluation_set():
    folder = Path(__file__).parent / "data" / "claims"
    for p in sorted(folder.iterdir()):
        if p.suffix in (".eml", ".mbox"):
            for line in p.read_text(errors="replace").splitlines():
                _sentence_filters_agree(line)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_CUE_PIECES), max_size=10).map("".join))
def test_sentence_filters_on_generated_text(text):
    _sentence_filters_agree(text)


_NETPERF_AS_ONE = re.compile(r"TEST from|^\s*Recv\s+Send|^\s*Local\s*/Remote|Socket\s+Size", re.I)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["TEST from", "test FROM", " ", "\t", "Recv", "Send",
                                 "Local", "/Remote", "Socket", "Size", "x", "\n", "ſ"]),
                max_size=8).map("".join))
def test_netperf_banner_split_as_one(text):
    assert lists._netperf_start(text) == bool(_NETPERF_AS_ONE.search(text)), text
