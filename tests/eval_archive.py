"""`make eval-archive`: what must hold of the claims of a whole archive, with no gold to
score against (issue 31). Reads one or more patchperf stores (each a real list's epoch,
synced with `patchperf sync lore:LIST --git ...`) and counts, per store:

- **self-pairs**: claims whose two sides were read from one line or one run written twice
  (every fragment of the quote the same text);
- **timestamps and line numbers**: a side that is a dmesg timestamp (`[  203.716208]`), a
  time of day, or a source line number (`foo.c:123`, `line 123`, a numbered listing's
  `  1265\t *` beside `1259`);
- **counters and settings** beside the figures by the rules of docs/claims.md: perf events,
  fio's `issued rwts`/`ctx=`/`per=`, limits, timeouts, sizes named by the words on the line;
- **over 10x**: |change| above 900 % or below -90 %, each listed with its quote, to be judged;
- **metric `other` with a named metric**: the quote names IOPS, pps, latency, bandwidth...;
- **scale-only units**: `K`, `M`, `G` with nothing after.

    .venv/bin/python tests/eval_archive.py STORE.db [STORE.db ...] [--list-large N]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from corpus.store import Store  # noqa: E402

_FRAGMENTS = re.compile(r"\n| \[\.\.\.\] ")
_STAMP = re.compile(r"\[\s*(\d+\.\d+)(?:,\d+)?\s*\]")
_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2}):(\d{2})(?:\.\d+)?\b")
_LINE_NO = re.compile(r"(?:\.[ch]|\.py|\.S|\.rs):(\d+)\b|\bline\s+(\d+)\b", re.I)
# a numbered listing's line: its number, then a tab or a diff's marker (`  1265\t *`, `311 +`)
_LISTED = re.compile(r"^[\s>@]*(\d{1,6})(?:\t|\s[+*-](?![\d.])|\s*$)", re.M)
_MARKED = re.compile(r"^[\s>@]*\d{1,6}(?:\t|\s[+*-](?![\d.]))", re.M)
_COUNTER_WORDS = re.compile(
    r"issued rwts|\bctx=|\bper=|\bmajf=|\bminf=|\blimit\b|\btimeout\b|\bmax(?:imum)?\b|"
    r"\bentries\b|\bsize\b|\bbytes? of code\b|\bdepth=|\bsamples=", re.I)
_PERF_EVENT = re.compile(r"\b(?:[a-z_]+:[a-z_]\w+|cycles|instructions|branch-misses|"
                         r"cache-misses|context-switches|cpu-migrations|page-faults)\b")
_NAMED_METRIC = re.compile(r"\b(?:IOPS|iops|[KMG]?pps|Mpps|latency|lat\b|bandwidth|BW\b|"
                           r"throughput|trans(?:actions)?/s|req/s|[KMG]i?B/s|[KMG]b(?:it)?/s|"
                           r"usec|msec|nsec|\bus\b|\bms\b)")
_SCALES = frozenset({"K", "k", "M", "G"})


def _figures(claim: dict[str, Any]) -> list[float]:
    return [v for v in (claim.get("baseline"), claim.get("patched")) if isinstance(v, (int, float))]


def self_pair(claim: dict[str, Any]) -> bool:
    parts = [p.strip() for p in _FRAGMENTS.split(claim.get("quote") or "") if p.strip()]
    return len(parts) >= 2 and len(set(parts)) == 1


def _same(value: float, text: str) -> bool:
    try:
        return abs(float(text) - value) <= 1e-9 * max(1.0, abs(value))
    except ValueError:
        return False


def stamp_or_line(claim: dict[str, Any]) -> bool:
    quote = claim.get("quote") or ""
    figures = _figures(claim)
    for m in _STAMP.finditer(quote):
        if any(_same(v, m.group(1)) for v in figures):
            return True
    for m in _CLOCK.finditer(quote):
        if any(_same(v, g) for v in figures for g in m.groups()):
            return True
    for m in _LINE_NO.finditer(quote):
        number = m.group(1) or m.group(2)
        if any(_same(v, number) for v in figures):
            return True
    listed = [m.group(1) for m in _LISTED.finditer(quote)]
    # (one of them numbered as a listing numbers code, with a tab or a diff's marker: two
    # bare counts, `wc -l`'s `112` over `99`, are no line numbers)
    return len(listed) >= 2 and bool(_MARKED.search(quote)) and all(
        any(_same(v, n) for n in listed) for v in figures)


def counter(claim: dict[str, Any]) -> bool:
    quote = claim.get("quote") or ""
    label = " ".join(str(v) for v in (claim.get("condition") or {}).values())
    return bool(_COUNTER_WORDS.search(quote) or _PERF_EVENT.search(label))


def over_10x(claim: dict[str, Any]) -> bool:
    change = claim.get("change_pct")
    return isinstance(change, (int, float)) and (change > 900 or change < -90)


def other_named(claim: dict[str, Any]) -> bool:
    return claim.get("metric") == "other" and bool(_NAMED_METRIC.search(claim.get("quote") or ""))


def scale_only(claim: dict[str, Any]) -> bool:
    return claim.get("unit") in _SCALES


CHECKS = {
    "self-pairs": self_pair,
    "timestamps or line numbers": stamp_or_line,
    "counters or settings": counter,
    "|change| over 10x": over_10x,
    "metric other with a named metric": other_named,
    "unit a bare scale (K, M, G)": scale_only,
}


def count(claims: Iterable[dict[str, Any]]) -> tuple[int, Counter[str], list[dict[str, Any]]]:
    total = 0
    found: Counter[str] = Counter()
    large = []
    for claim in claims:
        total += 1
        for name, check in CHECKS.items():
            if check(claim):
                found[name] += 1
                if name == "|change| over 10x":
                    large.append(claim)
    return total, found, large


def _one_line(text: str, width: int = 110) -> str:
    return " ".join(text.split())[:width]


def report(stores: Sequence[Path], list_large: int) -> str:
    out = ["| store | claims | " + " | ".join(CHECKS) + " |",
           "|---|---|" + "---|" * len(CHECKS)]
    listed: list[str] = []
    for db in stores:
        with Store.open(db, readonly=True) as store:
            claims = store.claim_docs()
        total, found, large = count(claims)
        out.append(f"| {db.name} | {total} | " + " | ".join(str(found[n]) for n in CHECKS) + " |")
        for claim in sorted(large, key=lambda c: -abs(c.get("change_pct") or 0))[:list_large]:
            listed.append(f"- {db.name} `{claim['id']}` {claim.get('baseline')} → "
                          f"{claim.get('patched')} {claim.get('unit') or ''} "
                          f"({claim.get('change_pct'):+.0f} %): {_one_line(claim.get('quote') or '')}")
    if listed:
        out += ["", "Claims over 10x (largest first):", "", *listed]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stores", nargs="+", type=Path)
    parser.add_argument("--list-large", type=int, default=50, metavar="N",
                        help="list at most N claims over 10x per store (default 50)")
    args = parser.parse_args(argv)
    missing = [s for s in args.stores if not s.is_file()]
    if missing:
        print(f"eval-archive: no store {missing[0]}", file=sys.stderr)
        return 2
    print(report(args.stores, args.list_large))
    return 0


if __name__ == "__main__":
    sys.exit(main())
