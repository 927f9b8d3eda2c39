"""Performance claims written as sentences, read with spaCy rule matching.

"My host with 8 RX queues was handling 5 Mpps before the patch, and more than 10 Mpps after
patch." (seed 000) is a before/after pair; "improves throughput by 12%" and "a 3% regression"
state only a change; "with this change the box now forwards more than 1.2 Mpps" gives the
patched figure alone. `analyze/sentences.py` picks the sentences holding a figure and a change
cue; each goes to spaCy: a blank English pipeline with the sentencizer, whose tokens are
re-cut so each figure is one token labelled VAL / PCT / RATIO (or COND / SETUP / SPREAD when it
says what was run, or how noisy, rather than what was measured), then the `Matcher` rules of
`analyze/prose_rules.py` over those tokens. spaCy is imported on the first such sentence only,
so reading mail without one never pays its start-up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from .commands import condition_from_header
from .prose_rules import (
    BYTE_WORDS,
    COMPARATIVES,
    CONDITION_NOUNS,
    HARDWARE_COUNTS,
    HEDGES,
    MACHINE_NOUNS,
    MAX_SPAN,
    METRIC_WORD,
    MODIFIERS,
    NOISE,
    NOT_A_CHANGE_AFTER,
    PACKET_NOUNS,
    RANGE_WORDS,
    RESULT_WORDS,
    SETUP_AFTER,
    SETUP_BEFORE,
    SETUP_OBJECTS,
    SPEED_WORDS,
    SPREAD_BEFORE,
    WORD_VALUES,
    add_rules,
    rule_words,
)
from .quantity import Measurement, Quantity
from .sentences import MAX_SENTENCE, Candidate, candidates
from .units import lower_is_better, metric_of

__all__ = ["MAX_SENTENCE", "LoneResult", "StatedChange", "find_prose_changes",
           "find_prose_claims", "find_prose_measurements", "find_prose_results"]


@dataclass(frozen=True)
class StatedChange:
    """A change a sentence states without the figures it came from: "improves throughput by
    12%", "a 3% regression", "2x faster". `stated.sign` says which way the measured value went
    (+1 up, -1 down) when the words tell; a ratio for a value that went down is below 1."""

    stated: Quantity
    line: int  # index of the line holding the stated figure (0-based, in the lines given)
    quote: str  # the sentence
    # The words that tell the metric: the sentence; with the sentence before it when the
    # sentence names none; led by "throughput" when the change is one of speed ("2x faster").
    context: str
    condition: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class LoneResult:
    """A patched figure given without the one before it: "With this change the box now
    forwards more than 1.2 Mpps" (the bound is the figure's own)."""

    patched: Quantity
    line: int
    quote: str
    context: str
    condition: tuple[tuple[str, str], ...] = ()


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
        add_rules(matcher)
        strings = nlp.vocab.strings
        _RULE_HASHES.update(strings.add(w) for w in rule_words())
        _HEDGE_HASHES.update(strings.add(w) for w in HEDGES)
        _RESULT_HASHES.update(strings.add(w) for w in RESULT_WORDS)
        _PIPELINE = (nlp, matcher)
        LOADS += 1
    return _PIPELINE


# Hashes (spaCy's string ids) of the words the rules compare with, of HEDGES and of
# RESULT_WORDS: a sentence's tokens are read as one array of ids (`_Tokens`), not token by
# token, which costs more than the matching on the short sentences mail holds.
_RULE_HASHES: set[int] = set()
_HEDGE_HASHES: set[int] = set()
_RESULT_HASHES: set[int] = set()


# --- what a figure is: measured, a condition, setup or a spread ---------------------------

_HARDWARE = ("SETUP", "")  # a condition-looking count that describes the machine


def _condition_key(noun: str) -> str | None:
    key = condition_from_header(noun)  # the names tables use: "RX queues" -> queues
    if key and key != "device":  # "2 NICs" is hardware, not a load that varies
        return key
    return CONDITION_NOUNS.get(noun)


def _value_text(q: Quantity) -> str:
    if abs(q.value) < 1e15 and q.value == int(q.value):
        return str(int(q.value))
    return repr(q.value)


def _glued(doc: Any, span: Any) -> bool:
    """The figure is joined to the next word by a hyphen: "2-socket", "64-byte"."""
    end = span.end
    return end + 1 < len(doc) and doc[end].text == "-" and not doc[end - 1].whitespace_ \
        and not doc[end].whitespace_


def _condition_of(doc: Any, span: Any, q: Quantity) -> tuple[str, str] | None:
    """("queues", "8") for "8 RX queues", ("packet_size", "64") for "64-byte packets";
    `_HARDWARE` for "2-socket box" and "64-core server" (what the machine is)."""
    if q.kind != "number" or q.canonical_unit not in (None, "B"):
        return None
    bytes_seen = q.canonical_unit == "B"
    glued = _glued(doc, span)
    window = doc[span.end:span.end + 4]
    for k, tok in enumerate(window):
        word = tok.lower_
        if word in PACKET_NOUNS:
            return ("packet_size", _value_text(q)) if bytes_seen else None
        key = _condition_key(word) if q.canonical_unit is None else None
        if key:
            after = doc[tok.i + 1].lower_ if tok.i + 1 < len(doc) else ""
            if glued and k == 1 and (word in HARDWARE_COUNTS or after in MACHINE_NOUNS):
                return _HARDWARE
            return (key, _value_text(q))
        if word not in MODIFIERS:
            return None
        bytes_seen = bytes_seen or word in BYTE_WORDS - {"-"}
    return None


def _is_setup(doc: Any, span: Any) -> bool:
    before = {t.lower_ for t in doc[max(0, span.start - 3):span.start]}
    after = {t.lower_ for t in doc[span.end:span.end + 2]}
    return bool(before & SETUP_BEFORE or after & SETUP_AFTER)


def _is_spread(doc: Any, span: Any, q: Quantity, text: str) -> bool:
    """"±1%", "+-0.4%", "run-to-run variance of 2%": how noisy a result is, not a change.
    `text` is the doc's text (`doc.text` is rebuilt from the tokens on each call)."""
    if span.start_char > 0 and text[max(0, span.start_char - 3):span.start_char].rstrip() \
            .endswith(("±", "+-", "+/-")):
        return True
    if q.text.lstrip().startswith(("±", "+-", "+/-")):
        return True
    return bool({t.lower_ for t in doc[max(0, span.start - 3):span.start]} & SPREAD_BEFORE)


def _label(doc: Any, span: Any, q: Quantity, text: str) -> tuple[str, tuple[str, str] | None]:
    if q.kind in ("percent", "ratio") and _is_spread(doc, span, q, text):
        return "SPREAD", None
    if q.kind == "percent":
        return "PCT", None
    if q.kind == "ratio":
        return "RATIO", None
    condition = _condition_of(doc, span, q)
    if condition == _HARDWARE:
        return "SETUP", None
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
    speed: bool = False  # "faster", "slower": a change of speed, hence of throughput


def _compatible(a: Quantity, b: Quantity, sentence: str) -> bool:
    """Two figures of one measure: same canonical unit, or one borrowing the other's
    ("from 40 to 25us"); two bare numbers only when the sentence names what they measure."""
    if (a.kind == "percent") != (b.kind == "percent"):
        return False
    if a.canonical_unit and b.canonical_unit:
        return a.canonical_unit == b.canonical_unit
    if a.canonical_unit or b.canonical_unit:
        return True
    return bool(METRIC_WORD.search(sentence))


def _signed(q: Quantity, direction: str, lib: bool) -> Quantity:
    """The stated change with the sign of what happened to the measured value. The value
    stays as written (a written sign is in it); `sign` carries what the words say."""
    up = {"UP": True, "DOWN": False, "GOOD": not lib, "BAD": lib}[direction]
    sign = 1 if up else -1
    if q.kind == "ratio":
        if not up and q.value > 1:
            inverse = 1.0 / q.value
            return replace(q, value=inverse, canonical_value=inverse, sign=sign)
        return replace(q, sign=sign)
    return q if q.sign is not None else replace(q, sign=sign)


def _figures(nlp: Any, c: Candidate) -> tuple[Any, dict[int, _Figure]]:
    """The sentence as spaCy tokens, each figure merged into one labelled token."""
    from spacy.tokens import Span

    doc = nlp.make_doc(c.text)
    chosen: list[tuple[Any, Quantity, str, tuple[str, str] | None]] = []
    taken = 0
    for q in sorted(c.quantities, key=lambda x: x.start):
        span = doc.char_span(q.start, q.end, alignment_mode="expand")
        if span is None or len(span) == 0 or span.start < taken:
            continue  # figures that share a token: keep the first
        taken = span.end
        label, condition = _label(doc, span, q, c.text)
        chosen.append((span, q, label, condition))
    doc.ents = [Span(doc, span.start, span.end, label=label) for span, _, label, _ in chosen]
    # The spans are disjoint and in order, so a figure's merged token sits where its span
    # began, less the tokens the merges before it removed: no walk over the merged tokens.
    figures: dict[int, _Figure] = {}
    removed = 0
    with doc.retokenize() as retokenizer:
        for span, q, label, condition in chosen:
            i = span.start - removed
            figures[i] = _Figure(i, q, label, condition)
            removed += len(span) - 1
            if len(span) > 1:
                retokenizer.merge(span)
    for _, proc in nlp.pipeline:
        doc = proc(doc)
    return doc, figures


@dataclass
class _Reading:
    pairs: list[tuple[int, int, int, int]]  # baseline token, patched token, match start, end
    stated: list[_Stated]
    lone: list[tuple[int, int]]  # LONE match spans
    used: set[int]


# The rules test a token's LOWER and ORTH text, IS_PUNCT, ENT_TYPE and IS_SENT_START, and
# nothing else; the Matcher compares string ids. So a sentence's matches are a function of
# those ids with every LOWER/ORTH id the rules never name reduced to 0: sentences that differ
# only in their figures ("from 7.4 Mpps to 8.1 Mpps") or in words no rule reads ("in skbuff",
# "in ice_main") are matched once. The Matcher is the costliest step of claim extraction.
_MATCH_CACHE: dict[bytes, list[tuple[int, int, int]]] = {}
_MATCH_CACHE_SIZE = 20_000


@dataclass(frozen=True)
class _Tokens:
    """What the rules and the checks read of a sentence's tokens, as spaCy string ids."""

    lower: list[int]
    key: bytes  # the match cache key (see above)


def _tokens(doc: Any) -> _Tokens:
    from spacy.attrs import ENT_TYPE, IS_PUNCT, LOWER, ORTH, SENT_START

    rows = doc.to_array([LOWER, ORTH, ENT_TYPE, IS_PUNCT, SENT_START])
    lower = rows[:, 0].tolist()
    words = _RULE_HASHES
    key = rows.copy()
    key[:, 0] = [h if h in words else 0 for h in lower]
    key[:, 1] = [h if h in words else 0 for h in rows[:, 1].tolist()]
    return _Tokens(lower, key.tobytes())


def _has_word(toks: _Tokens, hashes: set[int], words: frozenset[str], doc: Any) -> bool:
    """Whether a token's lower-case text is one of `words` (ids found, then the strings)."""
    strings = doc.vocab.strings
    return any(h in hashes and strings[h] in words for h in toks.lower)


def _matches(matcher: Any, doc: Any, toks: _Tokens) -> list[tuple[int, int, int]]:
    found = _MATCH_CACHE.get(toks.key)
    if found is None:
        if len(_MATCH_CACHE) >= _MATCH_CACHE_SIZE:
            _MATCH_CACHE.clear()
        found = _MATCH_CACHE[toks.key] = [tuple(m) for m in matcher(doc)]
    return found


def _match(doc: Any, matcher: Any, figures: dict[int, _Figure], text: str, ids: _Tokens
           ) -> _Reading:
    matches = sorted(_matches(matcher, doc, ids), key=lambda m: (m[2] - m[1], m[1]))
    vocab = doc.vocab.strings
    reading = _Reading([], [], [], set())
    used = reading.used
    lib: bool | None = None
    for match_id, start, end in matches:
        label = vocab[match_id]
        if end - start > MAX_SPAN.get(label, MAX_SPAN["STATED"]):
            continue
        if label == "LONE":
            reading.lone.append((start, end))
        elif label in ("BP", "PB"):
            toks = [i for i in range(start, end) if i in figures and figures[i].label in
                    ("VAL", "PCT")]
            if len(toks) != 2 or used & set(toks):
                continue
            first, second = (figures[i].quantity for i in toks)
            if not _compatible(first, second, text):
                continue
            if doc[start].lower_ == "from" and {t.lower_ for t in doc[max(0, start - 3):start]} \
                    & (RANGE_WORDS | SETUP_OBJECTS):
                continue
            used.update(toks)
            base, patched = (toks[0], toks[1]) if label == "BP" else (toks[1], toks[0])
            reading.pairs.append((base, patched, start, end))
        else:
            if lib is None:  # only a stated change needs it: metric_of is not cheap
                lib = lower_is_better(metric_of(None, text), None)
            reading.stated.extend(_stated_of(doc, figures, label, start, end, lib, used))
    for s in reading.stated:
        used.add(s.token)
    return reading


def _read(nlp: Any, matcher: Any, c: Candidate
          ) -> tuple[list[Measurement], list[StatedChange], list[LoneResult]]:
    doc, figures = _figures(nlp, c)
    toks = _tokens(doc)
    if _has_word(toks, _HEDGE_HASHES, HEDGES, doc):
        return [], [], []
    reading = _match(doc, matcher, figures, c.text, toks)
    measurements = []
    for base, patched, start, end in sorted(reading.pairs, key=lambda p: p[2]):
        note = _stated_near(doc, figures, reading.stated, start, end, reading.used)
        b, p = figures[base].quantity, figures[patched].quantity
        line = c.paragraph.line_at(c.offset + min(b.start, p.start))
        measurements.append(Measurement(
            baseline=b, patched=p, source="prose", line=line, quote=c.text,
            unit=p.unit or b.unit, stated=note, condition=_conditions(figures, start),
            context=c.text,
        ))
    # "~1% worse, which is in the noise": the mail says the change is none
    noise = bool(NOISE.search(c.text))
    changes = [
        StatedChange(stated=s.quantity, line=c.paragraph.line_at(c.offset + s.quantity.start),
                     quote=c.text, context=_stated_context(c, s),
                     condition=_conditions(figures, s.token))
        for s in sorted(reading.stated, key=lambda s: s.token) if not s.used and not noise
    ]
    lone = [] if measurements or changes or noise else _lone(doc, figures, reading, c, toks)
    return measurements, changes, lone


def _stated_context(c: Candidate, s: _Stated) -> str:
    """The words that tell a stated change's metric (see StatedChange.context)."""
    own = metric_of(None, c.text)
    if s.speed and own not in ("throughput", "transactions"):
        return "throughput " + c.text
    if own == "other" and c.previous:
        return c.previous + " " + c.text
    return c.text


def _lone(doc: Any, figures: dict[int, _Figure], reading: _Reading, c: Candidate,
          toks: _Tokens) -> list[LoneResult]:
    """The one measured figure of a sentence that names it the patch's result ("with this
    change ... now forwards more than 1.2 Mpps"), when the sentence has no other claim."""
    if not reading.lone or not _has_word(toks, _RESULT_HASHES, RESULT_WORDS, doc):
        return []
    measured = [f for f in figures.values() if f.label == "VAL" and f.token not in reading.used]
    if len(measured) != 1:
        return []  # two figures and no pair: which one is the patch's is not said
    fig = measured[0]
    q = fig.quantity
    if q.canonical_unit in (None, "%", "x") or q.kind not in ("number", "range", "duration"):
        return []  # a bare count is not a result ("now uses 4096 entries")
    if not any(start <= fig.token < end for start, end in reading.lone):
        return []
    if fig.token + 1 < len(doc) and doc[fig.token + 1].lower_ in COMPARATIVES:
        return []  # "64 MB less memory" is a difference
    return [LoneResult(patched=q, line=c.paragraph.line_at(c.offset + q.start), quote=c.text,
                       context=c.text, condition=_conditions(figures, fig.token))]


def _stated_of(doc: Any, figures: dict[int, _Figure], label: str, start: int, end: int,
               lib: bool, used: set[int]) -> list[_Stated]:
    """The change a match of UP/DOWN/GOOD/BAD or a word ratio states, if it is one."""
    span_words = {t.lower_ for t in doc[start:end]}
    knob = any(doc[i].lower_ in CONDITION_NOUNS and doc[i - 1].lower_ in ("of", "the", "more")
               for i in range(max(1, start), end))  # "increase the number of queues by 2x"
    if knob or span_words & SETUP_OBJECTS or (end < len(doc) and doc[end].lower_ in NOT_A_CHANGE_AFTER):
        return []
    # "2x faster", "10% slower": the measured value is a speed, whatever the sentence names.
    # The word of change opens or closes the match ("faster by 2x", "2x faster").
    speed = label in ("GOOD", "BAD", "WORD_UP", "WORD_DOWN") and \
        bool({doc[start].lower_, doc[end - 1].lower_} & SPEED_WORDS)
    if label in ("WORD_UP", "WORD_DOWN"):
        return _word_ratio(doc, figures, start, end, lib, used, speed)
    toks = [i for i in range(start, end) if i in figures and figures[i].label in ("PCT", "RATIO")]
    if len(toks) != 1 or toks[0] in used:
        return []
    used.add(toks[0])
    direction = {"GOOD": "UP", "BAD": "DOWN"}[label] if speed else label
    return [_Stated(toks[0], _signed(figures[toks[0]].quantity, direction, lib), speed=speed)]


def _word_ratio(doc: Any, figures: dict[int, _Figure], start: int, end: int, lib: bool,
                used: set[int], speed: bool) -> list[_Stated]:
    """"twice as fast", "doubles the throughput", "halves the latency"."""
    word = doc[start].lower_
    if word.startswith(("doubl", "tripl", "halv")):
        # "doubles the throughput" but not "doubles the ring size"
        following = doc[end:end + 4].text
        if not METRIC_WORD.search(following) or {t.lower_ for t in doc[end:end + 4]} \
                & SETUP_OBJECTS:
            return []
    if start in used:
        return []
    used.add(start)
    fig = figures.get(start)
    if fig is not None and fig.label == "RATIO":
        q = fig.quantity  # the lexer reads "twice" itself
    else:
        value = WORD_VALUES.get(word, 2.0)
        q = Quantity(value=value, text=doc[start].text, start=doc[start].idx,
                     end=doc[start].idx + len(doc[start].text), kind="ratio", unit="x",
                     canonical_unit="x", canonical_value=value)
    last = doc[end - 1].lower_
    slow = last in ("slow", "low", "little", "few") or word.startswith("halv")
    if speed:
        direction = "DOWN" if slow else "UP"
    else:
        direction = "DOWN" if slow else ("GOOD" if last == "good" else "UP")
    return [_Stated(start, _signed(q, direction, lib), speed=speed)]


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

_Found = tuple[tuple[Measurement, ...], tuple[StatedChange, ...], tuple[LoneResult, ...]]
_LAST: tuple[tuple[str, ...], _Found] | None = None


def _found(lines: Sequence[str]) -> _Found:
    """Everything the sentences of one block give, read once: claims.py asks for each part."""
    global _LAST
    key = tuple(lines)
    if _LAST is not None and _LAST[0] == key:
        return _LAST[1]
    found = _find(key)
    _LAST = (key, found)
    return found


def _find(lines: Sequence[str]) -> _Found:
    found = candidates(lines)
    if not found:
        return (), (), ()
    nlp, matcher = _pipeline()
    measurements: list[Measurement] = []
    changes: list[StatedChange] = []
    lone: list[LoneResult] = []
    for c in found:
        m, s, r = _read(nlp, matcher, c)
        measurements += m
        changes += s
        lone += r
    return tuple(measurements), tuple(changes), tuple(lone)


def find_prose_claims(lines: Sequence[str]) -> tuple[list[Measurement], list[StatedChange]]:
    """Before/after pairs and stated-only changes written in the sentences of `lines` (one
    block at one quote depth, markers stripped). spaCy is loaded only if a sentence holds a
    figure and a word of change."""
    measurements, changes, _ = _found(lines)
    return list(measurements), list(changes)


def find_prose_measurements(lines: Sequence[str]) -> list[Measurement]:
    """Before/after pairs written in sentences: "5 Mpps before the patch, and more than 10
    Mpps after patch", "went from 40us to 25us", "10 Mpps vs 5 Mpps without the patch"."""
    return list(_found(lines)[0])


def find_prose_changes(lines: Sequence[str]) -> list[StatedChange]:
    """Changes stated without their figures: "improves throughput by 12%", "a 3% regression",
    "2x faster", "halves the latency"."""
    return list(_found(lines)[1])


def find_prose_results(lines: Sequence[str]) -> list[LoneResult]:
    """Patched figures given alone as the patch's result: "With this change the box now
    forwards more than 1.2 Mpps" (no baseline is written)."""
    return list(_found(lines)[2])
