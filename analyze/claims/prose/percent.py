"""Percentages of change written without their figures, however the sentence is built:

    with this series I observe the improvement of performance by around 30%.
    increases throughput with above 20% for Tx
    an improvement in throughput of 2% for zero copy mode and 1% for copy mode
    (+17% on skb XDP_DROP :>)
    XDP_PASS -1,2%
    performance reduction:
      read 0.92% write 0.92% randread 1.61% randwrite 0%

The rule-matched reader (read.py) knows the sentence shapes it was written for; this one
asks less of the sentence and more of the percentage. A percentage is a change when a word
of change stands near it in its clause (improves, regression, drop, faster, gain, impact...),
or in a short caption ending in `:` above its line, or when it is signed on a short line
that names what it is of. It is not one when it is a share (`70% of full speed`, `12% in
memcpy`, `%CPU`), a setting (`nr_threads: 50%`), a range (`35% to 40%`, `+5-8%`: no figure
to score) or a level with no word of change. Several percentages of one sentence (`2% for
zero copy mode and 1% for copy mode`) are one change each.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from analyze.claims.lexer.first_chars import compile_words
from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Quantity
from analyze.claims.lexer.units import lower_is_better, metric_of

from .no_change import is_no_change
from .read import StatedChange, in_range
from .rules import HEDGES
from .sentences import MAX_SENTENCE, _paragraphs, _sentences
from .shape import clause_around, stated_metric, words_by

_MAX_LINE = 400
_WINDOW = 60  # characters either side of a percentage its change word may stand in
# Words of movement say which way the figure went; words of judgement which way is better,
# so the figure's way depends on the metric (a better latency went down).
_RISE = (r"increas\w*|higher|\braise[sd]?|\brises?|\brose\b|\bgrew\b|\bgrows?\b|jump\w*"
         r"|\bmore\b")
_FALL = (r"\bdrops?\b|dropped|decreas\w*|reduc\w*|\blower\b|\bfell\b|\bfalls?\b|\bless\b"
         r"|\bcut\b|eliminat\w*|sav(?:es?|ed|ing)\b")
_GOOD = r"improv\w*|\bgains?\b|boost\w*|faster|speed-?ups?|better|\bbump\w*|\buplift"
_BAD = (r"regress\w*|slower|worse|degrad\w*|penalt\w*|overhead|\bcosts?\b|\bloss(?:es)?\b"
        r"|slow-?down|\bhit\b")
_EITHER = r"\bimpact|difference|\bdelta\b|\bvariation"
_CHANGE = compile_words(f"{_RISE}|{_FALL}|{_GOOD}|{_BAD}|{_EITHER}", re.I)
_RISE_WORD = compile_words(_RISE, re.I)
_FALL_WORD = compile_words(_FALL, re.I)
_GOOD_WORD = compile_words(_GOOD, re.I)
_BAD_WORD = compile_words(_BAD, re.I)
# what a percentage of change must be about: the run's performance, not a ratio of things
_PERF = compile_words(
    r"perf\w*|throughput|latency|bandwidth|\brates?\b|pps|iops|speed|\btps\b|\bops\b|cpu|cycles"
    r"|\bxdp_\w+|tx\b|rx\b|transactions?|requests?|benchmark|score|\bbw\b|time|fast|slow"
    r"|read|write|tcp_\w+|udp_\w+|mode|regress\w*|improv\w*|gain|overhead|penalt\w*|\bcost",
    re.I)
# a share, not a change: `70% of full speed`, `12% in memcpy`, `%CPU`, `95% idle` (but
# `2% of perf bump` is a change)
_SHARE_AFTER = re.compile(
    r"\s*(?:of\b(?!\s+(?:\w+\s+)?(?:perf\w*\s+)?(?:bump|gain|improvement|boost|uplift|speed-?up"
    r"|regression|drop|loss|penalty|overhead))|in\s+(?!\w+\s+mode)[\w_.:]+\(?\)?\s*$|cpu\b|idle\b|busy\b|util|usage\b|load\b"
    r"|packet loss|loss\b|reproduction|\(\d+/\d+\)"
    # (a level of how right or how complete something is: `100% accuracy`, `90% coverage`)
    r"|accura\w*|coverage\b|success\w*|correct\w*|certain\w*|sure\b|hit rate\b)", re.I)
_SHARE_BEFORE = compile_words(r"(?:utili[sz]ation|usage|util|idle|busy|load|profile|samples"
                              r"|perf top|perf report|overhead of|share|loss(?:\s+(?:is|was|rate))?)"
                              r"\W*\s*$", re.I)
_SETTING = re.compile(r"[\w.\-]+\s*[:=]\s*$")  # `nr_threads: 50%`, `thresh=90%`
_BOUND_BEFORE = re.compile(r"\b(?:less|more|fewer|lower|higher|greater)\s+than\s*[~≈]?\s*$", re.I)
# a level that sets something off, not a change: `grows when the load increases 2+ times
# (above 12.5%)`, `shrinks once it falls below 0.78%`
_THRESHOLD_BEFORE = re.compile(r"\b(?:above|below|over|under|exceeds?|reach(?:es)?)\s*[~≈]?\s*$", re.I)
_HEDGED = re.compile(r"\b(?:" + "|".join(sorted(HEDGES)) + r")\b", re.I)
_CONDITIONAL = re.compile(r"\b(?:when|whenever|once|until|if)\b", re.I)
_CAPTION = re.compile(r"^\s*(?:[-*•]\s+)?[A-Za-z][\w ./\-()]{0,60}:\s*$")
_A_PERCENT = re.compile(r"\d\s*%")
_SIGNED_PERCENT = re.compile(r"[+\-−]\s*\d[\d.,]*\s*%")
_NAMED_WORDS = 8
_NAMED_SHORT = 80  # a signed percentage on a line this short names its test: `XDP_TX -0,5%`
# a profile's shares: `perf report shows ... 1.98% ksoftirqd [kernel.vmlinux] [k] ...`
_PROFILE = compile_words(r"perf (?:report|top|record|annotate)|\[k\]|\[kernel", re.I)
# between two percentages of one change: `2% for zero copy mode and 1%`
_AND = re.compile(r"[^%.;:()]{0,80}(?:\b(?:and|or)\b|,)[^%.;:()]{0,20}", re.I)


def _is_change(text: str, q: Quantity, caption: str, line: str) -> bool:
    """Whether the percentage `q` of the sentence `text` states a change (see the module's
    rules); `line` is the body line it stands on."""
    before, after = text[max(0, q.start - _WINDOW):q.start], text[q.end:q.end + _WINDOW]
    if q.kind != "percent" or q.high is not None or _PROFILE.search(text):
        return False
    if _SHARE_AFTER.match(after) or _SHARE_BEFORE.search(before):
        return False
    if is_no_change(text, q):
        return False
    if before.endswith("-") or after.startswith("-"):
        return False  # perf's call graph: `|--76.60%--pipapo_insert`
    if _SETTING.search(before) and not _CHANGE.search(before):
        return False
    if _HEDGED.search(text):
        return False  # what is expected or would be, not what was measured (`should save ~5%`)
    if in_range(text, q):
        return False  # an end of a range (`100% ~ 200%`): rule 6, no figure of a change
    if _THRESHOLD_BEFORE.search(before):
        # (in the clause of the condition: `If we look at Tx, it increases throughput with
        # above 20%` states a change after its condition)
        clause_start = max(text.rfind(c, 0, q.start) for c in ",;.") + 1
        if _CONDITIONAL.search(text, clause_start, q.start):
            return False
    # (the words of a bound are no change: "usage will be less than 1%" is a level; "more
    # than 10% faster" still has its word of change)
    if _CHANGE.search(_clause(text, q, drop_bound=q.bound is not None)):
        return True
    if caption and _CHANGE.search(caption):
        return True  # `performance reduction:` above `read 0.92% write 0.92%`
    return q.sign is not None and _names_it(line, q)


def _names_it(line: str, q: Quantity) -> bool:
    """A short line that is a name and this signed percentage alone: `XDP_PASS -1,2%`,
    `(+17% on skb XDP_DROP :>)`; not a row of figures (`rx-frames = 0  0.91  +0%`)."""
    if len(line.strip()) > _NAMED_SHORT or len(line.split()) > _NAMED_WORDS or "?" in line \
            or ". " in line:
        return False  # a sentence (`This should cover +90%` ...), not a name and its change
    others = [o for o in find_quantities(line) if o.text != q.text]
    return not others and re.search(r"[A-Za-z_]{2,}", line) is not None


def _signed(q: Quantity, text: str, metric: str) -> Quantity:
    """The percentage with the sign its words give when it has none (`stated.sign` carries
    it): `reduces latency by 12%` went down; `a 3% regression` of throughput went down, of
    latency up; `~1% worse` latency went up."""
    if q.sign is not None:
        return q
    near = _clause(text, q)
    if _FALL_WORD.search(near):
        sign = -1
    elif _RISE_WORD.search(near):
        sign = 1
    else:
        better = _GOOD_WORD.search(near) is not None or _BAD_WORD.search(near) is None
        sign = (-1 if better else 1) if lower_is_better(metric, None) else (1 if better else -1)
    return Quantity(q.value, q.text, q.start, q.end, q.kind, q.unit, q.canonical_unit,
                    q.canonical_value, q.bound, sign, q.high)


def _clause(text: str, q: Quantity, drop_bound: bool = False) -> str:
    """The words around a percentage, within its clause: up to a comma, semicolon or bracket
    either side (`99% TX interrupts were eliminated` is not `increased 50%`'s clause)."""
    before = text[max(0, q.start - _WINDOW):q.start]
    after = text[q.end:q.end + _WINDOW // 2]
    # (an opening bracket right before leaves the words it elaborates: `improvement (~1%`)
    cut = max(before.rfind(c) for c in ",;)")
    before = before[cut + 1:] if cut >= 0 else before
    if drop_bound:
        before = _BOUND_BEFORE.sub("", before)
    stop = min((k for k in (after.find(c) for c in ",;()") if k > 0), default=len(after))
    return before + " " + after[:stop]


def find_percent_changes(lines: Sequence[str]) -> list[StatedChange]:
    """Each percentage of change in `lines` that no figure goes with (see the module's
    rules), with the sentence it stands in."""
    out: list[StatedChange] = []
    if not any("%" in line and _A_PERCENT.search(line) for line in lines):
        return out  # (most blocks: no percentage, nothing to read; `%d` is none)
    caption_of: dict[int, str] = {}
    caption = ""
    for i, line in enumerate(lines):  # a short caption ending in `:` reaches its list
        # (the ending first: most lines have none, and the pattern backtracks over each)
        is_caption = line.rstrip().endswith(":") and _CAPTION.match(line) is not None
        if is_caption:
            caption = line.strip()
        elif not line.strip():
            caption = ""
        caption_of[i] = "" if is_caption else caption
    for para in _paragraphs(lines):
        if "%" not in para.text:
            continue
        captioned = any(caption_of.get(i) for i in para.indexes)
        previous = ""
        for start, end in _sentences(para.text):
            text = para.text[start:end]
            if len(text) > MAX_SENTENCE or "%" not in text or not _A_PERCENT.search(text) \
                    or text.rstrip().endswith("?") or not (
                        captioned or _CHANGE.search(text) or _SIGNED_PERCENT.search(text)):
                # (a percentage is a change by a word of change, a caption or its sign:
                # a sentence with none is not lexed)
                previous = text
                continue
            accepted = -1  # where the last change of this sentence ended
            for q in find_quantities(text):
                if q.kind != "percent":
                    continue
                at = para.line_at(start + q.start)
                if len(lines[at]) > _MAX_LINE:
                    continue
                caption = caption_of.get(at, "")
                # `2% for zero copy mode and 1% for copy mode`: one change word, two changes
                joined = accepted >= 0 and _AND.fullmatch(text[accepted:q.start]) is not None
                if not (joined and not is_no_change(text, q)
                        or _is_change(text, q, caption, lines[at])):
                    continue
                if not (_PERF.search(text) or _PERF.search(caption) or _PERF.search(previous)):
                    continue
                # its metric is the one its own clause names, when it names one ("IOPS from
                # 7.15M to 7.65M and 5% less CPU utilization": the 5% is of CPU)
                clause = clause_around(text, q.start, q.end)
                metric = stated_metric(text, q.start, q.end)
                far = metric == "other" and metric_of(None, text) != "other"
                near = words_by(text, q.start, q.end) if far else text
                context = (clause if metric_of(None, clause) == metric != "other"
                           else " ".join(t for t in (caption, near) if t))
                metric = "other" if far else metric_of(None, context)
                out.append(StatedChange(stated=_signed(q, text, metric), line=at,
                                        quote=text.strip(), context=context,
                                        metric="other" if far else None))
                accepted = q.end
            previous = text
    # a test's name and its signed change alone on a line (`XDP_PASS      -1,2%`), in an
    # aligned list the paragraphs above leave out
    said = {(c.line, c.stated.value) for c in out}
    for i, line in enumerate(lines):
        if "%" not in line or len(line) > _NAMED_SHORT or not _SIGNED_PERCENT.search(line):
            continue
        qs = [q for q in find_quantities(line) if q.kind == "percent"]
        if len(qs) == 1 and qs[0].sign is not None and (i, qs[0].value) not in said \
                and _names_it(line, qs[0]) and not _PROFILE.search(line) \
                and not line[:qs[0].start].rstrip().endswith("-"):
            context = " ".join(t for t in (caption_of.get(i, ""), line.strip()) if t)
            out.append(StatedChange(stated=qs[0], line=i, quote=line.strip(), context=context))
    said.update((c.line, c.stated.value) for c in out)
    out.extend(c for c in _captioned_rows(lines, caption_of) if (c.line, c.stated.value) not in said)
    return sorted(out, key=lambda c: (c.line, c.stated.start))


# a name before each percentage of an aligned row: `read  0.92%     write  0.92%`
_ROW_NAME = re.compile(r"\s*([A-Za-z][\w()./,+-]*(?: [\w()./,+-]+){0,3}?)\s+$")


def _captioned_rows(lines: Sequence[str], caption_of: dict[int, str]) -> list[StatedChange]:
    """The changes of an aligned row under a caption of change, one per name:

        performance reduction:
            read  0.92%     write  0.92%    randread  1.61%    randwrite  0%

    (the paragraphs above leave aligned rows out as a table's). Every figure of the row is a
    percentage with a name before it, and the caption says what changed and which way."""
    out: list[StatedChange] = []
    for i, line in enumerate(lines):
        caption = caption_of.get(i, "")
        if not caption or "%" not in line or len(line) > _MAX_LINE or _PROFILE.search(line) \
                or not _CHANGE.search(caption) or not _PERF.search(caption) \
                or _SHARE_BEFORE.search(caption.rstrip(": ")):
            continue
        qs = find_quantities(line)
        if not qs or any(q.kind != "percent" or q.high is not None for q in qs):
            continue
        named, start = [], 0
        for q in qs:
            m = _ROW_NAME.fullmatch(line, start, q.start)
            if m is None:
                break
            named.append((m.group(1), q))
            start = q.end
        if len(named) != len(qs) or line[start:].strip():
            continue
        metric = metric_of(None, caption)
        for name, q in named:
            if q.sign is None:  # the caption's words give it: read the percentage after them
                text = f"{caption} {q.text}"
                sign = _signed(replace(q, start=len(caption) + 1, end=len(text)), text, metric).sign
                q = replace(q, sign=sign)
            out.append(StatedChange(stated=q, line=i, quote=line.strip(),
                                    context=f"{caption} {name}", condition=(("test", name),)))
    return out
