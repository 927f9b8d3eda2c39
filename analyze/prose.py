"""Performance claims written as sentences, read with spaCy rule matching.

"My host with 8 RX queues was handling 5 Mpps before the patch, and more than 10 Mpps after
patch." (seed 000) is a before/after pair; "improves throughput by 12%" and "a 3% regression"
state only a change. Wrapped lines are joined into paragraphs, paragraphs cut into sentences,
and only a sentence holding a figure (`find_quantities`) and a change cue goes to spaCy: a blank
English pipeline with the sentencizer, whose tokens are re-cut so each figure is one token
labelled VAL / PCT / RATIO (or COND / SETUP when it says what was run rather than what was
measured), then `Matcher` rules over those tokens. spaCy is imported on the first such sentence
only, so reading mail without one never pays its start-up.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from .commands import condition_from_header
from .numbers import find_quantities
from .quantity import Measurement, Quantity
from .units import lower_is_better, metric_of

# A claim sentence is short; a longer "sentence" is a run of lines with no full stop (command
# output, a pasted log). Skipping it keeps spaCy's cost bounded on hostile input.
MAX_SENTENCE = 1200


@dataclass(frozen=True)
class StatedChange:
    """A change a sentence states without the figures it came from: "improves throughput by
    12%", "a 3% regression", "2x faster". `stated.sign` says which way the measured value went
    (+1 up, -1 down) when the words tell; a ratio for a value that went down is below 1."""

    stated: Quantity
    line: int  # index of the line holding the stated figure (0-based, in the lines given)
    quote: str  # the sentence
    context: str  # the sentence: the words that tell the metric
    condition: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class _Paragraph:
    text: str
    starts: tuple[int, ...]  # offset in `text` where each line begins
    indexes: tuple[int, ...]  # the line index of each of those lines

    def line_at(self, offset: int) -> int:
        return self.indexes[max(0, bisect.bisect_right(self.starts, offset) - 1)]


@dataclass(frozen=True)
class _Candidate:
    text: str
    offset: int  # where the sentence starts in its paragraph
    paragraph: _Paragraph
    quantities: tuple[Quantity, ...]


# --- paragraphs and sentences -------------------------------------------------------------

_LIST_ITEM = re.compile(r"\s*(?:[-*+•]|\d{1,3}[.)]|\(\d{1,3}\)|[a-z][.)])\s+\S")
# pipes, tabs or wide gaps: a table row or aligned output, which tables.py reads
_TABLE_LIKE = re.compile(r"\|[^|]*\||\t|\S {3,}\S")
_COMMAND = re.compile(r"\s*(?:[$#] |\[.{0,40}\][$#] |diff --git |@@ |--- |\+\+\+ )")
_TRAILER = re.compile(r"[A-Z][A-Za-z-]{1,40}-by: ")
_INDENTED = re.compile(r"(?: {4,}|\t)\S")


def _paragraphs(lines: Sequence[str]) -> list[_Paragraph]:
    """Wrapped lines joined: blank lines, list items, table rows, commands and indented
    lines break paragraphs. Table rows and commands are left to the other readers."""
    out: list[_Paragraph] = []
    parts: list[str] = []
    starts: list[int] = []
    indexes: list[int] = []
    size = 0

    def flush() -> None:
        nonlocal size
        if parts:
            out.append(_Paragraph(" ".join(parts), tuple(starts), tuple(indexes)))
        parts.clear()
        starts.clear()
        indexes.clear()
        size = 0

    for i, raw in enumerate(lines):
        line = raw.strip()
        if not line or line.startswith(">") or _COMMAND.match(raw) or _TRAILER.match(line) \
                or _TABLE_LIKE.search(line):
            flush()
            continue
        if _LIST_ITEM.match(raw) or _INDENTED.match(raw):
            flush()
        parts.append(line)
        starts.append(size)
        indexes.append(i)
        size += len(line) + 1
        if _INDENTED.match(raw):  # indented output: one line is one paragraph
            flush()
    flush()
    return out


_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*\s+")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "vs", "etc", "approx", "fig", "cf", "resp", "ca", "v.s",
                            "mr", "dr", "no", "nr", "al"})


def _sentences(text: str) -> list[tuple[int, int]]:
    """Cheap sentence bounds: a full stop, ! or ? before a space, unless it ends an
    abbreviation or an initial (`vs. 5 Mpps`, `e.g. 64-byte`, `J. Doe`). Mail often starts a
    sentence in lower case, so case is no hint."""
    bounds: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        word = text[max(start, m.start() - 8):m.start()].rsplit(" ", 1)[-1].lower()
        if text[m.start()] == "." and (word in _ABBREVIATIONS or len(word) == 1):
            continue
        bounds.append((start, m.end()))
        start = m.end()
    if start < len(text):
        bounds.append((start, len(text)))
    return bounds


_HAS_FIGURE = re.compile(r"\d|\b(?:twice|thrice|doubl|tripl|halv)", re.IGNORECASE)
_CUE = re.compile(
    r"%|×|\d\s*x\b|\b(?:improv|regress|increas|decreas|reduc|lower|rais|boost|speed|degrad"
    r"|doubl|tripl|halv|accelerat|penalt|compar|shrink|slow|fast|quick|gain|drop)"
    r"|\b(?:before|after|from|without|w/o|vs|versus|instead|rather|relative|against|now|more"
    r"|less|higher|better|worse|twice|thrice|times|up|down|cut|cuts|save[sd]?|saving|hurts?"
    r"|grows?|grew|rise|rises|rose|fell|falls?|wins?|hit|lose|loses)\b|\((?:was|previously)\b",
    re.IGNORECASE,
)


def _candidates(lines: Sequence[str]) -> list[_Candidate]:
    out: list[_Candidate] = []
    for para in _paragraphs(lines):
        for start, end in _sentences(para.text):
            raw = para.text[start:end]
            text = raw.strip()
            if not text or len(text) > MAX_SENTENCE or text.endswith("?"):
                continue  # a question asks for figures, it does not claim them
            if not _HAS_FIGURE.search(text) or not _CUE.search(text):
                continue
            quantities = tuple(find_quantities(text))
            if not quantities and not _WORD_RATIO.search(text):
                continue
            offset = start + (len(raw) - len(raw.lstrip()))
            out.append(_Candidate(text, offset, para, quantities))
    return out


_WORD_RATIO = re.compile(r"\b(?:twice|thrice|doubl\w*|tripl\w*|halv\w*)\b", re.IGNORECASE)

# --- the spaCy pipeline, loaded once on first need ----------------------------------------

_PIPELINE: tuple[Any, Any] | None = None
LOADS = 0  # how many times the pipeline was built (tests check it stays 0 without figures)


def _pipeline() -> tuple[Any, Any]:
    """spaCy's blank English pipeline with the sentencizer, and the Matcher with our rules."""
    global _PIPELINE, LOADS
    if _PIPELINE is None:
        import spacy
        from spacy.matcher import Matcher

        nlp = spacy.blank("en")
        nlp.add_pipe("sentencizer")
        matcher = Matcher(nlp.vocab)
        _add_rules(matcher)
        _PIPELINE = (nlp, matcher)
        LOADS += 1
    return _PIPELINE


# --- the rules ----------------------------------------------------------------------------

_FIGURES = ["VAL", "PCT", "RATIO"]
_V: dict[str, Any] = {"ENT_TYPE": {"IN": ["VAL", "PCT"]}}  # a measured figure
_STATED: dict[str, Any] = {"ENT_TYPE": {"IN": ["PCT", "RATIO"]}}  # a change
# "more than 10 Mpps", "about 5 Mpps", "~5": the lexer reads the bound; these words may sit
# outside the figure's span
_BOUND_WORDS = ["more", "less", "than", "over", "under", "about", "around", "roughly", "approx",
                "approx.", "approximately", "almost", "nearly", "~", "at", "least", "most",
                "just", "only", "well", "even", "some", "close", "to", "above", "below", ">",
                "<", "a", "an", "the"]
_FILL: dict[str, Any] = {"LOWER": {"IN": _BOUND_WORDS}, "OP": "{0,3}"}


# Tokens that are not figures, so a pair never skips over another figure. Written as `*` and
# bounded after matching (`_MAX_SPAN`): spaCy expands `{0,n}` into n optional tokens whose
# states fork, 4x slower on a sentence like seed 000's.
_GAP: dict[str, Any] = {"ENT_TYPE": {"NOT_IN": _FIGURES}, "IS_SENT_START": False, "OP": "*"}


def _words(*words: str) -> dict[str, Any]:
    return {"LOWER": {"IN": list(words)}}


_DETS = ("the", "this", "that", "these", "my", "your", "his", "her", "our", "their", "eric's",
         "a", "all")
_PATCH_NOUNS = ("patch", "patches", "patched", "patchset", "patch-set", "series", "change",
                "changes", "fix", "fixes", "commit", "commits", "it", "them", "modification",
                "modifications", "optimization", "optimisation", "optimizations", "rework",
                "applied", "patching", "v2", "v3", "set")
_BEFORE = ("before", "previously", "originally", "unpatched", "vanilla", "pre-patch", "baseline",
           "base", "prior")
_AFTER = ("after", "now", "patched", "post-patch")
_VS = (["vs"], ["vs."], ["versus"], ["v.s."], ["against"], ["compared", "to"],
       ["compared", "with"], ["instead", "of"], ["rather", "than"], ["relative", "to"])
_WITHOUT: list[dict[str, Any]] = [_words("without", "w/o"), {"LOWER": {"IN": list(_DETS)}, "OP": "?"},
            _words(*_PATCH_NOUNS)]
_WITH: list[dict[str, Any]] = [_words("with", "w/"), {"LOWER": {"IN": list(_DETS)}, "OP": "?"},
         _words(*_PATCH_NOUNS)]

# Words of change, by what they say happened to the measured value, and where they sit:
# BY before "by N%" ("cuts latency by 30%"), BARE right before the figure ("gains 10%"),
# OF before "of N%" ("an improvement of 12%"), AFTER right after it ("a 3% regression").
_CHANGE_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "UP": {
        "BY": ("increase", "increases", "increased", "increasing", "raise", "raises", "raised",
               "boost", "boosts", "boosted", "grow", "grows", "grew", "rise", "rises", "rose",
               "jump", "jumps", "jumped", "higher", "more", "bigger", "larger", "up"),
        "BARE": ("increases", "increased", "boosts", "boosted", "grows", "grew", "rises", "rose",
                 "jumps", "jumped"),
        "OF": ("increase", "boost", "jump", "rise"),
        "AFTER": ("increase", "boost", "jump", "rise", "more", "higher", "bigger", "larger",
                  "up"),
    },
    "DOWN": {
        "BY": ("reduce", "reduces", "reduced", "reducing", "cut", "cuts", "lower", "lowers",
               "lowered", "decrease", "decreases", "decreased", "decreasing", "drop", "drops",
               "dropped", "shrink", "shrinks", "shrank", "decline", "declines", "declined",
               "fall", "falls", "fell", "less", "smaller", "fewer", "down"),
        "BARE": ("reduces", "reduced", "cuts", "lowers", "lowered", "decreases", "decreased",
                 "drops", "dropped", "shrinks", "shrank", "declines", "declined", "falls",
                 "fell", "saves", "saved"),
        "OF": ("reduction", "decrease", "drop", "decline", "fall", "saving", "savings"),
        "AFTER": ("reduction", "decrease", "drop", "decline", "less", "lower", "fewer",
                  "smaller", "saving", "savings", "down"),
    },
    "GOOD": {
        "BY": ("improve", "improves", "improved", "improving", "speeds", "sped", "accelerate",
               "accelerates", "accelerated", "faster", "better", "quicker"),
        "BARE": ("improves", "improved", "gain", "gains", "gained"),
        "OF": ("improvement", "gain", "speedup", "speed-up", "win"),
        "AFTER": ("improvement", "gain", "speedup", "speed-up", "win", "faster", "quicker",
                  "better"),
    },
    "BAD": {
        "BY": ("regress", "regresses", "regressed", "degrade", "degrades", "degraded", "slows",
               "slowed", "slower", "worse"),
        "BARE": ("regresses", "regressed", "degrades", "degraded", "lose", "loses"),
        "OF": ("regression", "degradation", "slowdown", "slow-down", "penalty"),
        "AFTER": ("regression", "degradation", "slowdown", "slow-down", "slower", "worse",
                  "penalty", "hit"),
    },
}


def _add_rules(matcher: Any) -> None:
    """The token patterns. A label says which side comes first (BP: baseline first, PB:
    patched first) or which way a stated change goes."""
    v, fill = _V, _FILL
    bp: list[list[dict[str, Any]]] = [
        # "went from 5.1 Mpps to 7.9 Mpps", "drops from 40us down to 25us"
        [_words("from"), fill, v, _words("up", "down"), _words("to", "->"), fill, v],
        [_words("from"), fill, v, _words("to", "->"), fill, v],
        # "5 Mpps before the patch, and more than 10 Mpps after patch"
        [v, _words(*_BEFORE), _GAP, v, _words(*_AFTER)],
        [v, _words(*_BEFORE), _GAP, v, *_WITH],
        [v, *_WITHOUT, _GAP, v, *_WITH],
        [v, *_WITHOUT, _GAP, v, _words(*_AFTER)],
        # "5 Mpps before the patch, after it more than 10 Mpps"
        [v, _words(*_BEFORE), _GAP, _words(*_AFTER), _GAP, v],
        [v, *_WITHOUT, _GAP, *_WITH, _GAP, v],
        # "Before the patch I got 5 Mpps; after it, 10 Mpps"
        [_words("before"), _GAP, v, _GAP, _words("after"), _GAP, v],
        [*_WITHOUT, _GAP, v, _GAP, *_WITH, _GAP, v],
    ]
    pb: list[list[dict[str, Any]]] = [
        # "10 Mpps after the patch, 5 Mpps before"
        [v, _words(*_AFTER), _GAP, v, _words(*_BEFORE)],
        [v, *_WITH, _GAP, v, *_WITHOUT],
        # "now takes 1.2 s instead of 3 s"; "9.41 Gbits/sec (was 8.72 Gbits/sec)"
        [v, _GAP, _words("instead", "rather"), _words("of", "than"), fill, v],
        [v, {"IS_PUNCT": True, "OP": "?"}, _words("was", "previously", "originally", "before"),
         {"ORTH": ":", "OP": "?"}, fill, v],
        # "12,345 trans/s, 11,000 trans/s without the patch"
        [v, {"IS_PUNCT": True, "OP": "{1,2}"}, v, *_WITHOUT],
        # "10 Mpps, up from 5 Mpps"
        [v, {"IS_PUNCT": True, "OP": "{0,2}"}, _words("up", "down"), _words("from"), fill, v],
        # "with the patch: 10 Mpps vs 5 Mpps"; "now 10 Mpps compared to 5 Mpps before"
        *([*_WITH, _GAP, v, _GAP, *[_words(w) for w in vs], fill, v] for vs in _VS),
        *([_words("after", "now"), _GAP, v, _GAP, *[_words(w) for w in vs], fill, v]
          for vs in _VS),
        *([v, _GAP, *[_words(w) for w in vs], fill, v, {"ORTH": "(", "OP": "?"},
           _words(*_BEFORE, "without", "w/o")] for vs in _VS),
    ]
    matcher.add("BP", bp)
    matcher.add("PB", pb)
    for label, words in _CHANGE_WORDS.items():
        matcher.add(label, [
            [_words(*words["BY"]), _GAP, _words("by"), fill, _STATED],
            [_words(*words["BARE"]), fill, _STATED],
            [_words(*words["OF"]), _words("of", "is", "was", ":", "="), fill, _STATED],
            [_STATED, {"ORTH": "-", "OP": "?"}, _words(*words["AFTER"])],
            # "a 7% throughput improvement", "a 5% TCP_RR regression"
            [_STATED, {"ENT_TYPE": "", "IS_PUNCT": False, "OP": "?"},
             {"ENT_TYPE": "", "IS_PUNCT": False}, _words(*words["OF"])],
        ])
    # "twice as fast", "doubles the throughput", "halves the latency"
    matcher.add("WORD_UP", [[_words("twice", "thrice"), _words("as"),
                             _words("fast", "quick", "high", "much", "many", "good")],
                            [_words("doubles", "doubled", "doubling", "triples", "tripled")]])
    matcher.add("WORD_DOWN", [[_words("halves", "halved", "halving")],
                              [_words("twice", "thrice"), _words("as"),
                               _words("slow", "low", "little", "few")]])


# --- what a figure is: measured, a condition, or setup ------------------------------------

# Nouns after a figure that make it what varies between runs ("with 8 RX queues", "on 4
# threads", "200 netperf instances"), used when analyze/commands.py does not name them.
_CONDITION_NOUNS = {
    "queue": "queues", "queues": "queues", "rings": "queues", "thread": "threads",
    "threads": "threads", "instance": "instances", "instances": "instances", "flow": "flows",
    "flows": "flows", "stream": "flows", "streams": "flows", "connections": "connections",
    "cpu": "cpus", "cpus": "cpus", "core": "cpus", "cores": "cpus", "clients": "clients",
    "sessions": "sessions", "sockets": "sockets", "processes": "processes", "jobs": "jobs",
}
_PACKET_NOUNS = frozenset({"packet", "packets", "pkt", "pkts", "frame", "frames", "datagrams",
                           "messages", "msgs", "payload", "payloads"})
_BYTE_WORDS = frozenset({"byte", "bytes", "b", "-"})
_MODIFIERS = frozenset({"rx", "tx", "parallel", "concurrent", "netperf", "iperf", "iperf3",
                        "udp", "tcp", "worker", "hardware", "hw", "sw", "combined", "active",
                        "physical", "logical", "napi", "receive", "transmit", "uperf", "neper",
                        "pktgen", "xdp", "ipv4", "ipv6", "small", "big", "large", "sized",
                        "-", "byte", "bytes", "b", "more"})
# Words near a figure that make it a setting of the test, not its result: "sending at 10 Mpps
# offered load", "a 25G link", "ring size 4096", "MTU 9000".
_SETUP_BEFORE = frozenset({"offered", "sending", "send", "sends", "sent", "blasting", "blast",
                           "generating", "generate", "inject", "injecting", "link", "mtu",
                           "ring", "burst", "budget", "timeout", "limit", "limited", "capped",
                           "configured", "set", "setting", "rate-limited", "shaped"})
_SETUP_AFTER = frozenset({"offered", "load", "link", "links", "nic", "nics", "port", "ports",
                          "ethernet", "card", "adapter", "interface", "mtu", "ring", "wire",
                          "line-rate", "burst"})
# The thing changed is a knob, not a result: "increase the ring size by 2x".
_SETUP_OBJECTS = frozenset({"ring", "mtu", "budget", "timeout", "limit", "default", "weight",
                            "quota", "interval", "coalescing", "rx-usecs", "sysctl", "backlog",
                            "burst", "size", "sizes", "buffer", "buffers",
                            "window", "version", "kernel"})
# Before "from X to Y": a sweep of conditions, not a change ("packet sizes from 64 to 1500").
_RANGE_WORDS = frozenset({"ranging", "range", "ranges", "varying", "varies", "vary", "varied",
                          "sweep", "sweeping", "swept", "scaling", "scale", "scales", "scaled",
                          "between", "values", "counts", "iterate", "iterating", "loop",
                          "increments", "steps", "sizes", "size"})
# Speculation is not a measurement: "I'd expect it to go from 5 to 10 Mpps".
_HEDGES = frozenset({"expect", "expected", "expecting", "hope", "hopefully", "would", "might",
                     "theoretically", "ideally", "hypothetically", "wonder", "guess", "assuming"})
_METRIC_WORD = re.compile(
    r"throughput|bandwidth|goodput|latenc|\bpps\b|\brate\b|performance|transactions|\btps\b"
    r"|requests|\bops\b|cpu|cycles|usage|utili[sz]ation|memory|footprint|overhead|speed",
    re.IGNORECASE)
_NOT_A_CHANGE_AFTER = frozenset({"rate", "ratio", "probability", "chance", "rule", "threshold",
                                 "limit"})


def _condition_key(noun: str) -> str | None:
    key = condition_from_header(noun)  # the names tables use: "RX queues" -> queues
    if key and key != "device":  # "2 NICs" is hardware, not a load that varies
        return key
    return _CONDITION_NOUNS.get(noun)


def _value_text(q: Quantity) -> str:
    if abs(q.value) < 1e15 and q.value == int(q.value):
        return str(int(q.value))
    return repr(q.value)


def _condition_of(doc: Any, span: Any, q: Quantity) -> tuple[str, str] | None:
    """("queues", "8") for "8 RX queues", ("packet_size", "64") for "64-byte packets"."""
    if q.kind != "number" or q.canonical_unit not in (None, "B"):
        return None
    bytes_seen = q.canonical_unit == "B"
    for tok in doc[span.end:span.end + 4]:
        word = tok.lower_
        if word in _PACKET_NOUNS:
            return ("packet_size", _value_text(q)) if bytes_seen else None
        key = _condition_key(word) if q.canonical_unit is None else None
        if key:
            return (key, _value_text(q))
        if word not in _MODIFIERS:
            return None
        bytes_seen = bytes_seen or word in _BYTE_WORDS - {"-"}
    return None


def _is_setup(doc: Any, span: Any) -> bool:
    before = {t.lower_ for t in doc[max(0, span.start - 3):span.start]}
    after = {t.lower_ for t in doc[span.end:span.end + 2]}
    return bool(before & _SETUP_BEFORE or after & _SETUP_AFTER)


def _label(doc: Any, span: Any, q: Quantity) -> tuple[str, tuple[str, str] | None]:
    if q.kind == "percent":
        return "PCT", None
    if q.kind == "ratio":
        return "RATIO", None
    condition = _condition_of(doc, span, q)
    if condition is not None:
        return "COND", condition
    return ("SETUP" if _is_setup(doc, span) else "VAL"), None


# --- reading one sentence -----------------------------------------------------------------


@dataclass(frozen=True)
class _Figure:
    token: int  # index of the merged token
    quantity: Quantity
    label: str
    condition: tuple[str, str] | None


@dataclass
class _Stated:
    token: int
    quantity: Quantity
    used: bool = False


# The longest match worth believing, in tokens: a pair across a long clause, a change verb a
# few words before its figure ("cuts the per-packet CPU cost by 20%").
_MAX_SPAN = {"BP": 28, "PB": 24, "STATED": 12}

_WORD_VALUES = {"twice": 2.0, "thrice": 3.0, "doubles": 2.0, "doubled": 2.0, "doubling": 2.0,
                "triples": 3.0, "tripled": 3.0, "halves": 2.0, "halved": 2.0, "halving": 2.0}


def _compatible(a: Quantity, b: Quantity, sentence: str) -> bool:
    """Two figures of one measure: same canonical unit, or one borrowing the other's
    ("from 40 to 25us"); two bare numbers only when the sentence names what they measure."""
    if (a.kind == "percent") != (b.kind == "percent"):
        return False
    if a.canonical_unit and b.canonical_unit:
        return a.canonical_unit == b.canonical_unit
    if a.canonical_unit or b.canonical_unit:
        return True
    return bool(_METRIC_WORD.search(sentence))


def _signed(q: Quantity, direction: str, lib: bool) -> Quantity:
    """The stated change with the sign of what happened to the measured value."""
    up = {"UP": True, "DOWN": False, "GOOD": not lib, "BAD": lib}[direction]
    sign = 1 if up else -1
    if q.kind == "ratio":
        if not up and q.value > 1:
            inverse = 1.0 / q.value
            return replace(q, value=inverse, canonical_value=inverse, sign=sign)
        return replace(q, sign=sign)
    return q if q.sign is not None else replace(q, sign=sign)


def _read(nlp: Any, matcher: Any, c: _Candidate) -> tuple[list[Measurement], list[StatedChange]]:
    doc = nlp.make_doc(c.text)
    chosen: list[tuple[Any, Quantity, str, tuple[str, str] | None]] = []
    taken = 0
    for q in sorted(c.quantities, key=lambda x: x.start):
        span = doc.char_span(q.start, q.end, alignment_mode="expand")
        if span is None or len(span) == 0 or span.start < taken:
            continue  # figures that share a token: keep the first
        taken = span.end
        label, condition = _label(doc, span, q)
        chosen.append((span, q, label, condition))
    by_char: dict[int, tuple[Quantity, str, tuple[str, str] | None]] = {}
    from spacy.tokens import Span

    doc.ents = [Span(doc, span.start, span.end, label=label) for span, _, label, _ in chosen]
    with doc.retokenize() as retokenizer:
        for span, q, label, condition in chosen:
            by_char[span.start_char] = (q, label, condition)
            if len(span) > 1:
                retokenizer.merge(span)
    for _, proc in nlp.pipeline:
        doc = proc(doc)
    figures: dict[int, _Figure] = {}
    for tok in doc:
        if tok.idx in by_char:
            q, label, condition = by_char[tok.idx]
            figures[tok.i] = _Figure(tok.i, q, label, condition)

    words = {t.lower_ for t in doc}
    if words & _HEDGES:
        return [], []
    lib = lower_is_better(metric_of(None, c.text), None)
    matches = sorted(matcher(doc), key=lambda m: (m[2] - m[1], m[1]))
    vocab = doc.vocab.strings
    pairs: list[tuple[int, int, int, int]] = []  # baseline token, patched token, start, end
    stated: list[_Stated] = []
    used: set[int] = set()
    for match_id, start, end in matches:
        label = vocab[match_id]
        if end - start > _MAX_SPAN.get(label, _MAX_SPAN["STATED"]):
            continue
        if label in ("BP", "PB"):
            toks = [i for i in range(start, end) if i in figures and figures[i].label in
                    ("VAL", "PCT")]
            if len(toks) != 2 or used & set(toks):
                continue
            first, second = (figures[i].quantity for i in toks)
            if not _compatible(first, second, c.text):
                continue
            if doc[start].lower_ == "from" and {t.lower_ for t in doc[max(0, start - 3):start]} \
                    & (_RANGE_WORDS | _SETUP_OBJECTS):
                continue
            used.update(toks)
            base, patched = (toks[0], toks[1]) if label == "BP" else (toks[1], toks[0])
            pairs.append((base, patched, start, end))
        else:
            stated.extend(_stated_of(doc, figures, label, start, end, lib, used))
    for s in stated:
        used.add(s.token)

    measurements = []
    for base, patched, start, end in sorted(pairs, key=lambda p: p[2]):
        note = _stated_near(doc, figures, stated, start, end, used)
        b, p = figures[base].quantity, figures[patched].quantity
        line = c.paragraph.line_at(c.offset + min(b.start, p.start))
        measurements.append(Measurement(
            baseline=b, patched=p, source="prose", line=line, quote=c.text,
            unit=p.unit or b.unit, stated=note, condition=_conditions(figures, start),
            context=c.text,
        ))
    changes = [
        StatedChange(stated=s.quantity, line=c.paragraph.line_at(c.offset + s.quantity.start),
                     quote=c.text, context=c.text, condition=_conditions(figures, s.token))
        for s in sorted(stated, key=lambda s: s.token) if not s.used
    ]
    return measurements, changes


def _stated_of(doc: Any, figures: dict[int, _Figure], label: str, start: int, end: int,
               lib: bool, used: set[int]) -> list[_Stated]:
    """The change a match of UP/DOWN/GOOD/BAD or a word ratio states, if it is one."""
    span_words = {t.lower_ for t in doc[start:end]}
    knob = any(doc[i].lower_ in _CONDITION_NOUNS and doc[i - 1].lower_ in ("of", "the", "more")
               for i in range(max(1, start), end))  # "increase the number of queues by 2x"
    if knob or span_words & _SETUP_OBJECTS or (end < len(doc) and doc[end].lower_ in _NOT_A_CHANGE_AFTER):
        return []
    if label in ("WORD_UP", "WORD_DOWN"):
        word = doc[start].lower_
        if word.startswith(("doubl", "tripl", "halv")):
            # "doubles the throughput" but not "doubles the ring size"
            following = doc[end:end + 4].text
            if not _METRIC_WORD.search(following) or {t.lower_ for t in doc[end:end + 4]} \
                    & _SETUP_OBJECTS:
                return []
        if start in used:
            return []
        used.add(start)
        fig = figures.get(start)
        if fig is not None and fig.label == "RATIO":
            q = fig.quantity  # the lexer reads "twice" itself
        else:
            value = _WORD_VALUES.get(word, 2.0)
            q = Quantity(value=value, text=doc[start].text, start=doc[start].idx,
                         end=doc[start].idx + len(doc[start].text), kind="ratio", unit="x",
                         canonical_unit="x", canonical_value=value)
        slow = doc[end - 1].lower_ in ("slow", "low", "little", "few") or word.startswith("halv")
        direction = ("BAD" if doc[end - 1].lower_ == "slow" else "DOWN") if slow else (
            "GOOD" if doc[end - 1].lower_ in ("fast", "quick", "good") else "UP")
        return [_Stated(start, _signed(q, direction, lib))]
    toks = [i for i in range(start, end) if i in figures and figures[i].label in ("PCT", "RATIO")]
    if len(toks) != 1 or toks[0] in used:
        return []
    used.add(toks[0])
    return [_Stated(toks[0], _signed(figures[toks[0]].quantity, label, lib))]


def _stated_near(doc: Any, figures: dict[int, _Figure], stated: list[_Stated], start: int,
                 end: int, used: set[int]) -> Quantity | None:
    """The change stated with a pair: a worded one in the same clause ("improves ... from 5
    to 10 Mpps, a 2x gain"), else a bare one right after it ("from 5 to 7 Mpps (+40%)")."""
    near = [s for s in stated if not s.used and start - 8 <= s.token < end + 8]
    if near:
        best = min(near, key=lambda s: min(abs(s.token - start), abs(s.token - end)))
        best.used = True
        return best.quantity
    for i in range(end, min(end + 3, len(doc))):
        fig = figures.get(i)
        if fig is not None:
            if fig.label in ("PCT", "RATIO") and i not in used:
                used.add(i)
                return fig.quantity
            break
    return None


def _conditions(figures: dict[int, _Figure], near: int) -> tuple[tuple[str, str], ...]:
    """What the figures were measured under: the condition of each kind nearest the claim."""
    best: dict[str, tuple[int, str]] = {}
    for fig in figures.values():
        if fig.condition is None:
            continue
        key, value = fig.condition
        distance = abs(fig.token - near)
        if key not in best or distance < best[key][0]:
            best[key] = (distance, value)
    return tuple((key, value) for key, (_, value) in best.items())


# --- the public functions -----------------------------------------------------------------


def find_prose_claims(lines: Sequence[str]) -> tuple[list[Measurement], list[StatedChange]]:
    """Before/after pairs and stated-only changes written in the sentences of `lines` (one
    block at one quote depth, markers stripped). spaCy is loaded only if a sentence holds a
    figure and a word of change."""
    global _LAST
    key = tuple(lines)
    if _LAST is not None and _LAST[0] == key:  # claims.py asks for both halves of one block
        return list(_LAST[1]), list(_LAST[2])
    measurements, changes = _find(key)
    _LAST = (key, tuple(measurements), tuple(changes))
    return measurements, changes


_LAST: tuple[tuple[str, ...], tuple[Measurement, ...], tuple[StatedChange, ...]] | None = None


def _find(lines: Sequence[str]) -> tuple[list[Measurement], list[StatedChange]]:
    candidates = _candidates(lines)
    if not candidates:
        return [], []
    nlp, matcher = _pipeline()
    measurements: list[Measurement] = []
    changes: list[StatedChange] = []
    for c in candidates:
        m, s = _read(nlp, matcher, c)
        measurements += m
        changes += s
    return measurements, changes


def find_prose_measurements(lines: Sequence[str]) -> list[Measurement]:
    """Before/after pairs written in sentences: "5 Mpps before the patch, and more than 10
    Mpps after patch", "went from 40us to 25us", "10 Mpps vs 5 Mpps without the patch"."""
    return find_prose_claims(lines)[0]


def find_prose_changes(lines: Sequence[str]) -> list[StatedChange]:
    """Changes stated without their figures: "improves throughput by 12%", "a 3% regression",
    "2x faster", "halves the latency"."""
    return find_prose_claims(lines)[1]
