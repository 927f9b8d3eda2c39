"""What the words around a table say: which column or caption is the baseline, the patched
run, a stated change or noise, and which unit a header, caption or note names.

Shared by `analyze/claims/tables/read.py` and `analyze/claims/lists/read.py` (and the perf stat and robot readers).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from analyze.claims.lexer.first_chars import Gated, compile_words
from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Quantity

_MAX_HEADER = 400  # longer lines are prose or junk, not a header

BASELINE, PATCHED, STATED, NOISE = "baseline", "patched", "stated", "noise"

_NOISE_WORDS = r"std-?dev|\bstdev\b|\bstd\b|\bsd\b|±|\+-|\bvariance\b|\bvar\b"
# `with changes` / `this change` name the patched side, not a change column.
_STATED_WORDS = (
    r"improv|\bimpr\b|delta|\bdiff\b|difference|(?<!with )(?<!this )(?<!the )\bchanges?\b"
    r"|%\s*change|\bgain|speed-?up|\bratio\b|\bpercent|Δ|regress|\bincrease\b|\bdecrease\b"
    r"|^\s*[(\[]?%[)\]]?\s*$"
)
_BASELINE_WORDS = (
    r"\bbefore\b|\bbase(?:line)?\b|\bvanilla\b|\bunpatched\b|\bw/o\b|\bwithout\b|\bold\b"
    r"|\borig(?:inal)?\b|\bstock\b|\bpre-?patch\b|\bno[- ]?patch\b|\bprior\b|\breference\b"
    # `current` of the words, not C's `current->files`, `task_lock(current)`
    r"|(?<![(>.\w])\bcurrent\b(?!\s*(?:->|[().;,=\[]))"
)
_PATCHED_WORDS = (
    r"\bafter\b|\bpatched\b|\bpatch(?:es|set)?\b|\bw/\s?[a-z]|\bnew\b|\bpost-?patch\b"
    r"|\bwith\s+(?:the\s+|this\s+|my\s+|your\s+|these\s+|that\s+|all\s+)?"
    r"(?:patch|patches|series|fix|fixes|change|changes|set)\b"
    # (`5.11 + patch`: a `+` after a name; a line that starts with one is a shell's trace
    # of a command, `+ git log -4`, or a diff's)
    r"|\bseries\b|\bfix(?:ed|es)?\b|\bapplied\b|(?<=[\w)\]])\s*\+\s*[A-Za-z]|\badding\b"
    r"|\benabling\b"
    r"|\bwith\s+(?:this|these|it)\s*(?=[):,]|$)"  # `nvme io (with this):`
)
# Searched in every line of a block: compiled behind a look-ahead on their first letters
_NOISE = compile_words(_NOISE_WORDS, re.I)
_STATED = compile_words(_STATED_WORDS, re.I)
_BASELINE = compile_words(_BASELINE_WORDS, re.I)
_PATCHED = compile_words(_PATCHED_WORDS, re.I)
_DIGIT = re.compile(r"\d")
# what a `+` adds to a baseline's name: a word or a patch's number, not a change or a spread
_ADDED = re.compile(r"\s*(?:\([^()]{0,40}\)\s*)?\+\s*(?:[A-Za-z]|\d[\d-]*(?![\d.%])(?!\s*%))")
_BRACKETED = re.compile(r"[(\[]([^()\[\]]{1,40})[)\]]")
_WORD = re.compile(r"[^\s,;:()\[\]]+")
# `packets per second`, `figures in Mpps`: the word before names what the unit is of.
_SPACED_SLASH = re.compile(r"(?<=[A-Za-z])\s+/\s+(?=[A-Za-z])")
_PER = re.compile(r"(?:\bper|/)\s*$", re.I)


# One search that finds any of the four: most lines name no role at all (and most hold
# none of the literals its words need: gated on them before the search).
_ANY_ROLE = Gated("|".join(f"(?:{p})" for p in (
    _NOISE_WORDS, _STATED_WORDS, _BASELINE_WORDS, _PATCHED_WORDS)), re.I)
_SIDE = Gated(f"(?:{_BASELINE_WORDS})|(?:{_PATCHED_WORDS})", re.I)


def role_of(text: str) -> str | None:
    """What a header cell or a caption says its figures are: baseline, patched, stated
    (a change column), noise (stddev), or None."""
    if len(text) <= _MAX_KEPT_ROLE:
        return _kept_role(text)
    return _role(text)


_MAX_KEPT_ROLE = 200


@lru_cache(maxsize=8192)
def _kept_role(text: str) -> str | None:
    # A table's header cells come back in every reply that quotes it, and each row label
    # and caption is asked by the table, list and side-row readers alike.
    return _role(text)


# a link names no side, whatever words its path holds (`.../project/netdevbpf/patch/...`)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]{1,9}://\S+", re.I)


def _role(text: str) -> str | None:
    if "://" in text:
        text = _URL.sub(" ", text)
    if not _ANY_ROLE.search(text):
        return None
    if _NOISE.search(text):
        return NOISE
    if _STATED.search(text):
        return STATED
    if _BASELINE.search(text):
        return BASELINE
    if _PATCHED.search(text):
        return PATCHED
    return None


def names_a_side(text: str) -> bool:
    """True when `text` has a word naming the baseline or the patched run."""
    if len(text) <= _MAX_HEADER:
        return _names_a_side(text)
    return _SIDE.search(text) is not None


@lru_cache(maxsize=32768)
def _names_a_side(text: str) -> bool:
    # Kept per line: the table and list readers both ask it of every line of a block.
    if "://" in text:
        text = _URL.sub(" ", text)
    return _SIDE.search(text) is not None


def _tokens(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"[a-z0-9_.]+", text.lower()))


# A tree or release named alone: `net-next`, `bpf`, `mainline`, `v6.12`, `6.13-rc2`.
_TREE = re.compile(r"\s*(?:net|net-next|bpf|bpf-next|mainline|upstream|linus|master|main|tip"
                   r"|v?[0-9]+\.[0-9]+(?:\.[0-9]+)?(?:-rc[0-9]+)?)\s*$", re.I)


def resolve_roles(texts: Sequence[str]) -> list[str | None]:
    """Roles of sibling headers or captions, with the relative form: of `net-next` and
    `net-next + series` (or `3.17` and `3.17 + macvlan patch`), the bare one is the baseline;
    so is a tree named alone beside a `patched` column (`net-next  patched  gain`)."""
    roles = [role_of(t) for t in texts]
    if roles.count(BASELINE) > 1:
        # the baseline with something added, beside the baseline alone, is a patched run:
        # `baseline (patches 1-10)` and `base + 11 (+ inline completion infra)`, `vanilla`
        # and `vanilla + patch` (where `base (+/- 2%)` and `baseline +5%` add nothing)
        added = [r == BASELINE and (m := _BASELINE.search(t)) is not None
                 and _ADDED.match(t, m.end()) is not None for r, t in zip(roles, texts, strict=True)]
        if any(added) and any(r == BASELINE and not a for r, a in zip(roles, added, strict=True)):
            roles = [PATCHED if a else r for r, a in zip(roles, added, strict=True)]
    if PATCHED in roles and BASELINE not in roles:
        trees = [i for i, t in enumerate(texts) if roles[i] is None and _TREE.match(t)]
        if len(trees) == 1:
            roles[trees[0]] = BASELINE
    for i, text in enumerate(texts):
        if roles[i] != PATCHED or "+" not in text:
            continue
        stem = _tokens(text.split("+", 1)[0])
        if not stem:
            continue
        for j, other in enumerate(texts):
            if roles[j] is None and _tokens(other) == stem:
                roles[j] = BASELINE
    return roles


# The words that set two labels of the same thing apart as a switch does: what is off,
# default or plain on one side, on or added on the other (`QUEUE_FLAG_NOWAIT disabled` and
# `... enabled`, `default-nowait-off` and `nowait-on`, `coalesce 0` and `coalesce 1`).
_OFF = frozenset({"off", "disabled", "disable", "no", "none", "false", "0", "default",
                  "without", "w/o", "vanilla", "base", "baseline", "before", "old", "orig",
                  "original", "unpatched", "stock", "legacy", "nopatch", "unmodified",
                  "unoptimized", "noopt"})
_ON = frozenset({"on", "enabled", "enable", "yes", "true", "1", "with", "w/", "new", "after",
                 "patched", "patch", "patches", "opt", "optimized", "optimised", "fixed", "fix"})
def off_word(label: str) -> bool:
    """A label that is one word a switch has off: `default`, `stock`, `legacy`, `vanilla`."""
    return label.strip().lower() in _OFF and not label.strip().isdigit()


_SWITCH_TOKEN = re.compile(r"w/o|w/|[a-z][a-z0-9_]*|\d+(?:\.\d+)?")


def _switch_tokens(text: str) -> list[str]:
    return _SWITCH_TOKEN.findall(text.lower())


def contrast_roles(first: str, second: str) -> tuple[str, str] | None:
    """The roles of two labels of one thing by what tells them apart, when their words do
    not name the sides themselves: the words one has and the other has not, one set of
    them off (or plain: `default`, `0`, `without`) and the other on (`enabled`, `1`,
    `with`). None when nothing tells."""
    roles = resolve_roles([first, second])
    if set(roles) == {BASELINE, PATCHED}:
        return roles[0], roles[1]  # type: ignore[return-value]
    a, b = _switch_tokens(first), _switch_tokens(second)
    only_a = [t for t in a if t not in b]
    only_b = [t for t in b if t not in a]
    if not only_a and not only_b:
        return None
    a_off, a_on = any(t in _OFF for t in only_a), any(t in _ON for t in only_a)
    b_off, b_on = any(t in _OFF for t in only_b), any(t in _ON for t in only_b)
    if (a_off or (not only_a and b_on)) and not a_on and not b_off:
        return BASELINE, PATCHED
    if (b_off or (not only_b and a_on)) and not b_on and not a_off:
        return PATCHED, BASELINE
    return None


def switch_roles(first: str, second: str) -> tuple[str, str] | None:
    """The roles of two labels that differ only as a switch does: every word one has and
    the other has not is a word of a switch, off (or plain) on one side and on on the other
    (`coalesce 0` and `coalesce 1`, `nowait-off` and `nowait-on`; not `proto 0` and `proto
    17`, nor `no snoop` and `snoop`). Stricter than `contrast_roles`, for labels nothing else says are two sides."""
    a, b = _switch_tokens(first), _switch_tokens(second)
    only_a = {t for t in a if t not in b}
    only_b = {t for t in b if t not in a}
    if not only_a or not only_b:
        return None  # (`no snoop` and `snoop` are two things, not a switch's two settings)
    if only_a <= _OFF and only_b <= _ON:
        return BASELINE, PATCHED
    if only_a <= _ON and only_b <= _OFF:
        return PATCHED, BASELINE
    return None


def probe_unit(word: str) -> Quantity | None:
    """The lexer's reading of `1 <word>` when `word` is a unit (`Mpps`, `pps/thread`, `usec`)."""
    word = word.strip(" :,;()[]")
    if not word or len(word) > 40 or _DIGIT.match(word):
        return None
    probe = "1 " + word
    found = find_quantities(probe)
    # (a ratio's word is no unit of a column: `times are in nanoseconds`)
    if found and found[0].start == 0 and found[0].unit and found[0].kind not in ("percent", "ratio"):
        return found[0]
    return None


def unit_in_text(text: str) -> str | None:
    """A unit a header, caption or note names: `(Mpps)`, `[usec]`, `pps`, `avg. pps/thread`,
    `transactions per second`, `all figures in Mpps`.

    A unit word that follows a figure is that figure's (`median of five 30 second runs`,
    `at 1500 bytes`): setup, not the table's unit. `second` after `per` is the denominator of
    a rate (`packets per second`), never a unit of time on its own.
    """
    unit = _unit_in_text(text)
    return _scaled(text, unit) if unit is not None else None


# a scale written as a word of its own: `IOPS(K)`, `K IOPS`, `[M]`, `in K`
_SCALE_WORD = re.compile(r"(?<![\w.])[KkMG](?![\w.])")


def _scaled(text: str, unit: str) -> str:
    """The unit with the scale the same text writes apart from it (`IOPS(K)`, `K IOPS`:
    KIOPS), when the two make a unit; the unit as found otherwise."""
    m = _SCALE_WORD.search(text[:_MAX_HEADER])
    if m is None or unit[:1] in "KkMG" and len(unit) > 1 and unit[1:2].isupper():
        return unit  # (`Kpps` is scaled already)
    q = probe_unit(m.group(0) + unit)
    if q is None or not q.canonical_unit or q.unit is None or unit not in q.unit:
        return unit
    return q.unit


def _unit_in_text(text: str) -> str | None:
    # (`requests / second`: a rate spelled with blanks round its slash)
    text = _SPACED_SLASH.sub("/", text[:_MAX_HEADER])
    for m in _BRACKETED.finditer(text):
        inside = m.group(1)
        q = probe_unit(inside)
        if q is not None:
            return q.unit
        for w in _WORD.finditer(inside):
            if _PER.search(inside[:w.start()]):
                continue  # `(requests / second)`: the second is what the requests are per
            q = probe_unit(w.group(0))
            if q is not None:
                return q.unit
    taken = [(q.start, q.end) for q in find_quantities(text)]
    for k, m in enumerate(_WORD.finditer(text)):
        if k >= 24:
            break
        if any(a <= m.start() < b for a, b in taken) or _PER.search(text[:m.start()]):
            continue
        # probed with what follows: a spelled-out rate (`transactions per second`) is three words
        q = probe_unit(text[m.start():m.start() + 40])
        if q is not None:
            return q.unit
    return None


def with_unit(q: Quantity, unit: str | None) -> Quantity:
    """A bare figure given the unit its header or caption names (so `3518448` under
    `pps` gets its canonical value: the lexer's reading of `1 pps`, scaled)."""
    if q.unit or not unit or q.kind in ("percent", "ratio"):
        return q
    probe = _unit_probe(unit)
    if probe is None:
        return q
    scale = probe.canonical_value
    # (built field by field: dataclasses.replace costs more than the rest of this function)
    return Quantity(q.value, q.text, q.start, q.end, q.kind, probe.unit, probe.canonical_unit,
                    None if scale is None else q.value * scale, q.bound, q.sign, q.high)


@lru_cache(maxsize=4096)
def _unit_probe(unit: str) -> Quantity | None:
    """`1 <unit>` as the lexer reads it, when it reads a unit: a table's rows share their
    header's unit, so it is read once, not once per cell."""
    found = find_quantities("1 " + unit)
    if not found or found[0].start != 0 or not found[0].unit:
        return None
    return found[0]


def figure(qs: Sequence[Quantity]) -> Quantity | None:
    """The figure of a cell: its first non-percent quantity, else its first."""
    for q in qs:
        if q.kind != "percent":
            return q
    return qs[0] if qs else None


# which way is better, said of a table's figures: `lower is better`, `higher is better`
_BETTER = re.compile(r"\b(lower|higher|smaller|bigger|larger|less|more)\s+is\s+better\b", re.I)
_LOWER = frozenset({"lower", "smaller", "less"})
# what all of a table's figures are: `Numbers are times`
_OF_ALL = re.compile(r"\b(?:numbers|figures|results|values)\s+are\s+(?:\w+\s+)?"
                     r"(?:times|durations|latenc\w+|seconds)\b"
                     r"(?!\s+(?:faster|slower|more|less|higher|lower|better|worse))", re.I)


def said_of_all(text: str) -> tuple[str, bool | None]:
    """What a table's caption or the note under it says of all its figures: what they are
    (`Numbers are times`, words for `metric_of`, else "") and whether lower is better (None
    when it does not say)."""
    if len(text) > _MAX_HEADER * 2:
        return "", None
    better = _BETTER.search(text)
    of_all = _OF_ALL.search(text)
    return (of_all.group(0) if of_all else "",
            None if better is None else better.group(1).lower() in _LOWER)


def stated_in(qs: Sequence[Quantity]) -> Quantity | None:
    """A stated change among a cell's quantities: a percentage or a ratio."""
    for q in qs:
        if q.kind in ("percent", "ratio"):
            return q
    return None



# words of a subject's title that name no feature: what a patch does, not what it is
_FILLER_WORDS = """
add adds added adding allow allows avoid avoids based better change changes cleanup convert
drop drops enable enables fix fixes from further handle implement improve improves initial
into introduce introduces make makes more move must need only optimize optimise patch patches
remove removes rework series some support supports switch that their them then there these
this those under unify update updates using when where which while with without
"""
_TITLE_FILLER = frozenset(_FILLER_WORDS.split())
_TITLE_WORD = re.compile(r"[a-z][a-z0-9_\-]{3,}")


def series_words(subject_name: str) -> frozenset[str]:
    """The words a series' subject names it by: of `[RFC 00/19] uringlet` the word
    `uringlet`; of `net: fec: add page_pool recycling`, `page_pool` and `recycling` (the
    subsystem prefixes and the verbs are left out)."""
    title = subject_name.rsplit(": ", 1)[-1].lower()
    return frozenset(w.strip("-") for w in _TITLE_WORD.findall(title)
                     if w.strip("-") not in _TITLE_FILLER)
