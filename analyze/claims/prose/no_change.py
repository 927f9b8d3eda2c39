"""What a percentage in a sentence is never the change of, whichever prose reader found it
(the rule-matched one, read.py, and the percentage reader, percent.py): how far runs
scatter, one end of a range, a counter beside the result (docs/claims.md)."""

from __future__ import annotations

import re

from analyze.claims.lexer.first_chars import compile_words
from analyze.claims.lexer.quantity import Quantity

_WINDOW = 60  # characters either side of a percentage its context is read in
# how far runs scatter, not a change: `going up and down by 10%`, `run-to-run variance of 3%`
_SCATTER = compile_words(r"\bup (?:and|or|&) down\b|\bdown (?:and|or|&) up\b|fluctuat\w*"
                         r"|run[- ]to[- ]run|between (?:re)?runs|\bon reruns|std-?dev|\bstdev\b|deviation"
                         r"|\bvariance\b",
                         re.I)
# counters that support a result, not results: `12% fewer context switches`
_COUNTER_AFTER = re.compile(
    r"\s*(?:fewer|less|more|lower|higher)?\s*(?:context[- ]switch|cache[- ]miss|cache[- ]references"
    r"|page[- ]faults|instructions|branch(?:es|[- ]miss)|interrupts|irqs|ipis|wake-?ups"
    r"|syscalls|system calls|tlb[- ]miss|(?:sendto|recvfrom|sendmsg|recvmsg|\w+\(\))\s+(?:sys)?calls"
    # (things counted, not a rate of them: `3.7 times more packets were sent to queue 8`)
    r"|(?:packets|frames|timestamps)\b(?!\s*(?:per|/|a\s+second|each\s+second)))", re.I)


_SIZE_AFTER = re.compile(r"\s*(?:larger|bigger|smaller|wider|narrower|longer|shorter)\b"
                         r"(?!\s+(?:throughput|bandwidth|rate|latency|batch))", re.I)


_VERSUS_AFTER = re.compile(r"\s*(?:vs\.?|versus|->|→)\s*[~<>]?\s*\d[\d.,]*\s*%", re.I)
_VERSUS_BEFORE = re.compile(r"[~<>]?\d[\d.,]*\s*%\s*(?:vs\.?|versus|->|→)\s*[~<>]?\s*$", re.I)
# what a level is of: `CPU util (17% vs 8%)` (`gains (~30% vs ~14%)` are two changes)
_LEVEL_BEFORE = re.compile(r"\b(?:util\w*|usage|load|idle|busy|share)\b[^.;%]{0,12}$", re.I)
# the subject of another report or patch, quoted: `"[PATCH] ...` or `"[linux-next:master] ...`
_QUOTED_SUBJECT = re.compile(r"\"\s*\[[^\"\]]{1,60}\][^\"]*$")
_SHARE_OF = re.compile(r"\b(?:overhead|share|time spent|samples)\b[^.;()]{0,40}\(\s*[~<>]?\s*$", re.I)


# what a build weighs: code size, a section's text, a module's storage
_CODE_SIZE = re.compile(
    r"\bcode\s+size|\b(?:text|object|binary|module|image|kernel)\s+size|\bmore\s+text\b"
    r"|\btext\s+(?:grows|shrinks)|\b(?:module|disk)\s+storage|\bbloat-o-meter|\bvmlinux\s+size", re.I)


def is_no_change(text: str, q: Quantity) -> bool:
    """What a percentage in a sentence is never the change of, whichever reader found it:
    how far runs scatter, one end of a range (`35% to 40%`, `10%-23%`, `10%~30%`), a
    counter beside the result (`12% fewer context switches`), a size against another
    (`4x larger`), two levels set side by side (`17% vs 8%`), a profile's share (`tsc
    overhead (> 10%)`), a quoted title of another report (`"[linux-next] ...: 32.5%
    improvement"`)."""
    before, after = text[max(0, q.start - _WINDOW):q.start], text[q.end:q.end + _WINDOW]
    if _SCATTER.search(text) or _CODE_SIZE.search(text):
        return True  # (or a build's size: `~6% more text`, `code size reduced by 24.9%`)
    if re.match(r"\s*(?:to|-|–)\s*[+\-~]?\d", after) or re.search(r"\d%?\s*(?:to|-|–)\s*~?$",
                                                                     before):
        return True
    if re.match(r"~\d", after) or re.search(r"\d%?~$", before) or (
            q.text.startswith("~") and re.search(r"\d%?$", before)):
        return True  # (the lexer reads `~30%` of `10%~30%` as an approximate 30%)
    if _VERSUS_AFTER.match(after) and _LEVEL_BEFORE.search(before):
        return True  # `CPU util (17% vs 8%)`: two levels side by side, not changes
    versus = _VERSUS_BEFORE.search(before)
    if versus and _LEVEL_BEFORE.search(before[:versus.start()]):
        return True
    if '"' in text and _QUOTED_SUBJECT.search(text, max(0, q.start - 300), q.start):
        return True  # `we reported "[linux-next:master] ...: ... 32.5% improvement"`: a title
    if _SHARE_OF.search(before):
        return True  # `tsc overhead (> 10%)`: a profile's share
    if _SIZE_AFTER.match(after):
        return True  # `SQEs are 4x larger than CQEs`: one thing's size against another's
    return _COUNTER_AFTER.match(after) is not None
