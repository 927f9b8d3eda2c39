"""Reading one sentence's shape with spaCy: which figures pair up, which change is stated.

`read.py` hands over a sentence's *shape*: its text with every digit run of a figure written
`0` (`from 0.0 Mpps to 0.0 Mpps`) and the figures' kinds and units, never their
values. This module tokenizes it with a blank English pipeline and the sentencizer, merges
each figure into one token labelled VAL / PCT / RATIO (or COND / SETUP / SPREAD when it says
what was run, or how noisy, rather than what was measured), runs the `Matcher` rules of
`rules.py`, and returns a `Reading` that names figures by their position in the
sentence. Values never enter a reading, so sentences that differ only in their figures share
one (read.py caches it), and read.py puts the figures back.

spaCy is imported on the first sentence read, so mail without a candidate never pays for it.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from analyze.claims.lexer.quantity import Quantity
from analyze.claims.lexer.units import lower_is_better, metric_of
from analyze.claims.shell.conditions import condition_from_header
from analyze.interrupt import interrupts_deferred

from .rules import (
    BYTE_WORDS,
    COMPARATIVES,
    CONDITION_NOUNS,
    HARDWARE_COUNTS,
    HEDGES,
    MACHINE_NOUNS,
    MAX_SPAN,
    METRIC_WORD,
    MODALS,
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

# --- what a reading is --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StatedRef:
    """A stated change: the figure it is (by position), or a word ("doubles", "halves"),
    and which way the words say the measured value went."""

    token: int  # the token it sits on (orders the changes of a sentence)
    figure: int | None  # position of the figure among the sentence's figures
    word: tuple[int, int, str, float] | None  # a word ratio: start, end (in the shape), text, value
    direction: str | None  # UP / DOWN / GOOD / BAD; None: as written ("from 5 to 7 Mpps (+40%)")
    lower_is_better: bool
    speed: bool  # "faster", "slower": a change of speed, hence of throughput


Conditions = tuple[tuple[str, int], ...]  # (name, position of the figure giving the value)


@dataclass(frozen=True, slots=True)
class PairRef:
    baseline: int
    patched: int
    stated: StatedRef | None
    conditions: Conditions


@dataclass(frozen=True, slots=True)
class ChangeRef:
    stated: StatedRef
    conditions: Conditions


@dataclass(frozen=True, slots=True)
class LoneRef:
    figure: int
    conditions: Conditions


@dataclass(frozen=True, slots=True)
class Reading:
    pairs: tuple[PairRef, ...] = ()
    changes: tuple[ChangeRef, ...] = ()
    lone: tuple[LoneRef, ...] = ()


NOTHING = Reading()

# --- the spaCy pipeline, loaded once on first need ----------------------------------------

_PIPELINE: tuple[Any, Any] | None = None
LOADS = 0  # how many times the pipeline was built (tests check it stays 0 without figures)


def pipeline() -> tuple[Any, Any]:
    """spaCy's blank English pipeline with the sentencizer, and the Matcher with our rules."""
    global _PIPELINE
    if _PIPELINE is None:
        # a Ctrl-C inside spaCy's import would come out as pydantic's SchemaError
        with interrupts_deferred():
            _PIPELINE = _build_pipeline()
    return _PIPELINE


def _build_pipeline() -> tuple[Any, Any]:
    global LOADS
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
    LOADS += 1
    # spaCy's modules, registries and pipeline live as long as the process: out of the
    # cyclic collector's sight, each full collection has some 10^5 fewer objects to walk.
    gc.freeze()
    return nlp, matcher


# Hashes (spaCy's string ids) of the words the rules compare with, of HEDGES and of
# RESULT_WORDS: a sentence's tokens are read as one array of ids (`Tokens`), not token by
# token, which costs more than the matching on the short sentences mail holds.
_RULE_HASHES: set[int] = set()
_HEDGE_HASHES: set[int] = set()
_RESULT_HASHES: set[int] = set()


# --- what a figure is: measured, a condition, setup or a spread ---------------------------

_HARDWARE = "<hardware>"  # a condition-looking count that describes the machine


# A figure with a bare `G` or `T` is a link's speed ("went from 10G to 25G"), not a result:
# results name their unit (Gbit/s, Gbps).
_LINK_SPEED_UNITS = frozenset({"G", "T"})


def _condition_key(noun: str) -> str | None:
    key = condition_from_header(noun)  # the names tables use: "RX queues" -> queues
    if key and key != "device":  # "2 NICs" is hardware, not a load that varies
        return key
    return CONDITION_NOUNS.get(noun)


def _glued(doc: Any, span: Any) -> bool:
    """The figure is joined to the next word by a hyphen: "2-socket", "64-byte"."""
    end = span.end
    return end + 1 < len(doc) and doc[end].text == "-" and not doc[end - 1].whitespace_ \
        and not doc[end].whitespace_


def _condition_of(doc: Any, span: Any, q: Quantity) -> str | None:
    """"queues" for "8 RX queues", "packet_size" for "64-byte packets"; `_HARDWARE` for
    "2-socket box" and "64-core server" (what the machine is)."""
    if q.kind != "number" or q.canonical_unit not in (None, "B"):
        return None
    bytes_seen = q.canonical_unit == "B"
    glued = _glued(doc, span)
    window = doc[span.end:span.end + 4]
    for k, tok in enumerate(window):
        word = tok.lower_
        if word in PACKET_NOUNS:
            return "packet_size" if bytes_seen else None
        key = _condition_key(word) if q.canonical_unit is None else None
        if key:
            after = doc[tok.i + 1].lower_ if tok.i + 1 < len(doc) else ""
            if glued and k == 1 and (word in HARDWARE_COUNTS or after in MACHINE_NOUNS):
                return _HARDWARE
            return key
        if word not in MODIFIERS:
            return None
        bytes_seen = bytes_seen or word in BYTE_WORDS - {"-"}
    return None


def _is_setup(doc: Any, span: Any) -> bool:
    words = [t.lower_ for t in doc[max(0, span.start - 3):span.start]]
    if "from" in words:
        # (the words before "from" name what moved, not how the figure was set: "our IO
        # limit from 3.2M IOPS to 3.5M IOPS")
        words = words[len(words) - words[::-1].index("from"):]
    before = set(words)
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


def _label(doc: Any, span: Any, q: Quantity, text: str) -> tuple[str, str | None]:
    if q.kind in ("percent", "ratio") and _is_spread(doc, span, q, text):
        return "SPREAD", None
    if q.kind == "percent":
        return "PCT", None
    if q.kind == "ratio":
        return "RATIO", None
    condition = _condition_of(doc, span, q)
    if condition == _HARDWARE or q.unit in _LINK_SPEED_UNITS:
        return "SETUP", None
    if condition is not None:
        return "COND", condition
    return ("SETUP" if _is_setup(doc, span) else "VAL"), None


# the words a condition follows: "with 8 RX queues", "at 4 threads"
_CONDITION_BEFORE = frozenset({"with", "at", "using", "on", "for", "across"})


def _elided(doc: Any, span: Any, q: Quantity,
            before: Sequence[tuple[Any, int, Quantity, str, str | None]]) -> tuple[str, str] | None:
    """A bare count that repeats an earlier condition with its noun left out: "... with 8
    RX queues, and from 9.6 Mpps to 11.0 Mpps with 16." — the 16 is queues too. Only a
    number with no unit, after the same word as the earlier condition ("with"), and closing
    its clause."""
    if q.kind != "number" or q.unit or span.start == 0:
        return None
    word = doc[span.start - 1].lower_
    if word not in _CONDITION_BEFORE:
        return None
    if span.end < len(doc) and not (doc[span.end].is_punct or doc[span.end].lower_ in ("and", "or")):
        return None
    for other, _, _, label, condition in reversed(before):
        if label == "COND" and condition and other.start > 0 \
                and doc[other.start - 1].lower_ == word:
            return "COND", condition
    return None


# --- reading one sentence -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Figure:
    token: int  # index of the merged token
    position: int  # index among the sentence's figures
    quantity: Quantity
    label: str
    condition: str | None


@dataclass
class _Stated:
    ref: StatedRef
    used: bool = False

    @property
    def token(self) -> int:
        return self.ref.token


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


def figures_of(nlp: Any, text: str, quantities: Sequence[Quantity]
               ) -> tuple[Any, dict[int, _Figure]]:
    """The sentence as spaCy tokens, each figure merged into one labelled token."""
    from spacy.tokens import Span

    doc = nlp.make_doc(text)
    chosen: list[tuple[Any, int, Quantity, str, str | None]] = []
    taken = 0
    for position, q in enumerate(quantities):
        span = doc.char_span(q.start, q.end, alignment_mode="expand")
        if span is None or len(span) == 0 or span.start < taken:
            continue  # figures that share a token: keep the first
        taken = span.end
        label, condition = _label(doc, span, q, text)
        if label == "VAL":
            label, condition = _elided(doc, span, q, chosen) or (label, condition)
        chosen.append((span, position, q, label, condition))
    doc.ents = [Span(doc, span.start, span.end, label=label) for span, _, _, label, _ in chosen]
    # The spans are disjoint and in order, so a figure's merged token sits where its span
    # began, less the tokens the merges before it removed: no walk over the merged tokens.
    figures: dict[int, _Figure] = {}
    removed = 0
    with doc.retokenize() as retokenizer:
        for span, position, q, label, condition in chosen:
            i = span.start - removed
            figures[i] = _Figure(i, position, q, label, condition)
            removed += len(span) - 1
            if len(span) > 1:
                retokenizer.merge(span)
    for _, proc in nlp.pipeline:
        doc = proc(doc)
    return doc, figures


# The rules test a token's LOWER and ORTH text, IS_PUNCT, ENT_TYPE and IS_SENT_START, and
# nothing else; the Matcher compares string ids. So a sentence's matches are a function of
# those ids with every LOWER/ORTH id the rules never name reduced to 0: sentences that differ
# only in words no rule reads ("in skbuff", "in ice_main") are matched once.
MATCH_CACHE: dict[bytes, list[tuple[int, int, int]]] = {}
_MATCH_CACHE_SIZE = 20_000


@dataclass(frozen=True, slots=True)
class Tokens:
    """What the rules and the checks read of a sentence's tokens, as spaCy string ids."""

    lower: list[int]
    key: bytes  # the match cache key (see above)


def tokens_of(doc: Any) -> Tokens:
    from spacy.attrs import ENT_TYPE, IS_PUNCT, LOWER, ORTH, SENT_START

    rows = doc.to_array([LOWER, ORTH, ENT_TYPE, IS_PUNCT, SENT_START])
    lower = rows[:, 0].tolist()
    words = _RULE_HASHES
    key = rows.copy()
    key[:, 0] = [h if h in words else 0 for h in lower]
    key[:, 1] = [h if h in words else 0 for h in rows[:, 1].tolist()]
    return Tokens(lower, key.tobytes())


def _has_word(toks: Tokens, hashes: set[int], words: frozenset[str], doc: Any) -> bool:
    """Whether a token's lower-case text is one of `words` (ids found, then the strings)."""
    strings = doc.vocab.strings
    return any(h in hashes and strings[h] in words for h in toks.lower)


def matches_of(matcher: Any, doc: Any, toks: Tokens) -> list[tuple[int, int, int]]:
    found = MATCH_CACHE.get(toks.key)
    if found is None:
        if len(MATCH_CACHE) >= _MATCH_CACHE_SIZE:
            MATCH_CACHE.clear()
        found = MATCH_CACHE[toks.key] = [tuple(m) for m in matcher(doc)]
    return found


@dataclass
class _Match:
    pairs: list[tuple[int, int, int, int]]  # baseline token, patched token, match start, end
    stated: list[_Stated]
    lone: list[tuple[int, int]]  # LONE match spans
    used: set[int]


def _match(doc: Any, matcher: Any, figures: dict[int, _Figure], text: str, ids: Tokens
           ) -> _Match:
    matches = sorted(matches_of(matcher, doc, ids), key=lambda m: (m[2] - m[1], m[1]))
    vocab = doc.vocab.strings
    found = _Match([], [], [], set())
    used = found.used
    for match_id, start, end in matches:
        label = vocab[match_id]
        if end - start > MAX_SPAN.get(label, MAX_SPAN["STATED"]):
            continue
        if label == "LONE":
            found.lone.append((start, end))
        elif label in ("BP", "PB"):
            toks = [i for i in range(start, end) if i in figures and figures[i].label in
                    ("VAL", "PCT")]
            if len(toks) != 2 or used & set(toks):
                continue
            first, second = (figures[i].quantity for i in toks)
            if not _compatible(first, second, text):
                continue
            if doc[start].lower_ == "from" and _not_a_change(
                    {t.lower_ for t in doc[max(0, start - 3):start]}, first, second):
                continue
            used.update(toks)
            if label == "PB" and _counterfactual(doc, toks[0], toks[1]):
                label = "BP"
            base, patched = (toks[0], toks[1]) if label == "BP" else (toks[1], toks[0])
            found.pairs.append((base, patched, start, end))
        else:
            last = doc[end - 1]
            lib = lower_is_better(stated_metric(text, doc[start].idx, last.idx + len(last)), None)
            found.stated.extend(_stated_of(doc, figures, label, start, end, lib, used))
    for s in found.stated:
        used.add(s.token)
    return found


def _not_a_change(before: set[str], first: Quantity, second: Quantity) -> bool:
    """"from X to Y" after these words is a sweep ("sizes ranging from 64 to 1500"), a knob
    moved ("the ring size from 256 to 4096"), or what may happen ("may grow from 1 to 50"
    of a count); never when the figures are rates, which are results whatever they are of
    ("our per-core IO limit from 3.2M IOPS to 3.5M IOPS")."""
    if before & RANGE_WORDS:
        return True
    rate = metric_of(first.canonical_unit or second.canonical_unit) in ("throughput", "transactions")
    if before & SETUP_OBJECTS and not rate:
        return True
    return not (first.unit or second.unit) and bool(before & MODALS)


def _counterfactual(doc: Any, first: int, second: int) -> bool:
    """"X instead of Y" says X is the new figure, unless X is a condition's: "it takes 30s if
    I use the old walk instead of 3s" gives the figure of what would be used instead (the
    alternative, the baseline) first."""
    words = [doc[i].lower_ for i in range(first + 1, second)]
    turn = next((k for k, w in enumerate(words) if w in ("instead", "rather")), None)
    return turn is not None and any(w in ("if", "when", "had") for w in words[:turn])


# Where a clause ends: "QPS is up ~9% and tail latency is down 4%" states two changes of
# two metrics, each named in its own clause.
_CLAUSE_BREAK = re.compile(r"[,;:]\s|\s(?:and|but|while|whereas)\s")


def clause_around(text: str, start: int, end: int) -> str:
    """The clause of `text` holding the span start..end."""
    lo = 0
    for brk in _CLAUSE_BREAK.finditer(text, 0, start):
        lo = brk.end()
    after = _CLAUSE_BREAK.search(text, end)
    return text[lo:after.start() if after else len(text)]


# words that make a change one of CPU cost when they stand right by it
_CPU_WORD = re.compile(r"\bcpus?\b(?!\s*(?:pinning|affinity|cores?|bind\w*|bound|masks?|hotplug|sets?"
                       r"|isolation|numbers?|ids?|list)\b)|\butil|cycles|softirq|\bsys\b|\busr\b"
                       r"|\bidle\b|\bbusy\b|\bload\b|(?:\b|_)overhead\b", re.I)
_CPU_REACH = 30  # characters either side of the change


def words_by(text: str, start: int, end: int) -> str:
    """The words right by a change at start..end: what names its metric when its clause
    and sentence name only far-off things."""
    return text[max(0, start - _CPU_REACH):end + _CPU_REACH]


_SIZE_SETUP = re.compile(
    r"\b(?:with|for|at|using|on|of)\s+~?\d[\d.,]*\s*(?:[KMG]i?B|bytes?|B)\b(?:\s+bytes)?", re.I)


def without_size_setups(text: str) -> str:
    """The text less the sizes a run was set up with (`with 4KB bytes per send`): the words
    that tell what a stated change is of."""
    return _SIZE_SETUP.sub(" ", text) if "B" in text or "byte" in text else text


def stated_metric(text: str, start: int, end: int) -> str:
    """What a change stated at start..end of a sentence is a change of: the metric its own
    clause names, else the one the sentence names; CPU only when a CPU word stands by the
    change (">40% improvement for file creates, but ... thread/core utilization" is no
    change of CPU)."""
    clause = clause_around(text, start, end)
    # (a size the run was set up with is its condition, not what changed: "6 times
    # performance improvement for TCP with 4KB bytes per send")
    own = metric_of(None, _SIZE_SETUP.sub(" ", clause))
    if own == "other":
        own = metric_of(None, _SIZE_SETUP.sub(" ", text))
    if own == "cpu" and not (_CPU_WORD.search(clause) and _CPU_WORD.search(
            words_by(text, start, end))):
        return "other"
    return own


def read_shape(text: str, quantities: Sequence[Quantity]) -> Reading:
    """What a sentence's shape claims: its before/after pairs, the changes it states without
    their figures, and a patched figure given alone. `quantities` are the shape's figures in
    order (their values are not read)."""
    nlp, matcher = pipeline()
    doc, figures = figures_of(nlp, text, quantities)
    toks = tokens_of(doc)
    if _has_word(toks, _HEDGE_HASHES, HEDGES, doc):
        return NOTHING
    found = _match(doc, matcher, figures, text, toks)
    pairs = []
    for base, patched, start, end in sorted(found.pairs, key=lambda p: p[2]):
        note = _stated_near(doc, figures, found.stated, start, end, found.used)
        pairs.append(PairRef(figures[base].position, figures[patched].position, note,
                             _conditions(figures, start, end)))
    # "~1% worse, which is in the noise": the mail says the change is none
    noise = bool(NOISE.search(text))
    changes = tuple(
        ChangeRef(s.ref, _conditions(figures, s.token))
        for s in sorted(found.stated, key=lambda s: s.token) if not s.used and not noise
    )
    lone = () if pairs or changes or noise else _lone(doc, figures, found, toks)
    return Reading(tuple(pairs), changes, lone)


def _lone(doc: Any, figures: dict[int, _Figure], found: _Match, toks: Tokens
          ) -> tuple[LoneRef, ...]:
    """The one measured figure of a sentence that names it the patch's result ("with this
    change ... now forwards more than 1.2 Mpps"), when the sentence has no other claim."""
    if not found.lone or not _has_word(toks, _RESULT_HASHES, RESULT_WORDS, doc):
        return ()
    measured = [f for f in figures.values() if f.label == "VAL" and f.token not in found.used]
    if len(measured) != 1:
        return ()  # two figures and no pair: which one is the patch's is not said
    fig = measured[0]
    q = fig.quantity
    if q.canonical_unit in (None, "%", "x") or q.kind not in ("number", "range", "duration"):
        return ()  # a bare count is not a result ("now uses 4096 entries")
    if not any(start <= fig.token < end for start, end in found.lone):
        return ()
    if fig.token + 1 < len(doc) and doc[fig.token + 1].lower_ in COMPARATIVES:
        return ()  # "64 MB less memory" is a difference
    return (LoneRef(fig.position, _conditions(figures, fig.token)),)


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
    return [_Stated(StatedRef(toks[0], figures[toks[0]].position, None, direction, lib, speed))]


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
    last = doc[end - 1].lower_
    slow = last in ("slow", "low", "little", "few") or word.startswith("halv")
    if speed:
        direction = "DOWN" if slow else "UP"
    else:
        direction = "DOWN" if slow else ("GOOD" if last == "good" else "UP")
    fig = figures.get(start)
    if fig is not None and fig.label == "RATIO":  # the lexer reads "twice" itself
        return [_Stated(StatedRef(start, fig.position, None, direction, lib, speed))]
    tok = doc[start]
    written = (tok.idx, tok.idx + len(tok.text), tok.text, WORD_VALUES.get(word, 2.0))
    return [_Stated(StatedRef(start, None, written, direction, lib, speed))]


def _stated_near(doc: Any, figures: dict[int, _Figure], stated: list[_Stated], start: int,
                 end: int, used: set[int]) -> StatedRef | None:
    """The change stated with a pair: a worded one in the same clause ("improves ... from 5
    to 10 Mpps, a 2x gain"), else a bare one right after it ("from 5 to 7 Mpps (+40%)")."""
    near = [s for s in stated if not s.used and start - 8 <= s.token < end + 8]
    if near:
        best = min(near, key=lambda s: min(abs(s.token - start), abs(s.token - end)))
        best.used = True
        return best.ref
    for i in range(end, min(end + 3, len(doc))):
        fig = figures.get(i)
        if fig is not None:
            if fig.label in ("PCT", "RATIO") and i not in used:
                used.add(i)
                return StatedRef(i, fig.position, None, None, False, False)
            break
    return None


def _conditions(figures: dict[int, _Figure], near: int, end: int | None = None) -> Conditions:
    """What the figures were measured under: the condition of each kind nearest the claim
    (tokens near..end; a condition after it counts from its end, so "from 5.1 to 7.9 Mpps
    with 8 RX queues, and from 9.6 to 11.0 Mpps with 16" gives each pair its own)."""
    last = near if end is None else max(near, end - 1)
    best: dict[str, tuple[int, int]] = {}
    for fig in figures.values():
        if fig.condition is None:
            continue
        distance = near - fig.token if fig.token < near else max(0, fig.token - last)
        if fig.condition not in best or distance < best[fig.condition][0]:
            best[fig.condition] = (distance, fig.position)
    return tuple((key, position) for key, (_, position) in best.items())
