"""Claims followed across the versions of a series (issue 23).

A series replaced by a newer version (`previous_version`) forms a chain v1 … vN. Each claim,
known by its metric and condition, is followed along the chain: how its figures moved from one
version to the next, and whether a move larger than the figure's noise is explained by the
version's changelog. An unexplained move is flagged: the numbers changed and the author did not
say they measured again.

Pure: JSON-contract dicts in (docs/json.md), frozen records out; no store, no rendering.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analyze.claims.benchmark import families_named
from analyze.claims.lexer.units import lookup, metric_of
from analyze.claims.shell.commands import TOOLS

NOISE_DEFAULT_PCT = 2.0  # a figure's noise when the mail states none

Condition = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Point:
    """One version's figures of a followed claim."""

    version: int
    series_id: str
    claim_id: str
    baseline: float | None
    patched: float | None
    change_pct: float | None
    noise_pct: float | None  # the ± the quote states, in % of its figure; None when none
    moved_pct: float | None  # largest relative move against the previous point; None first
    flagged: bool  # moved beyond the noise and no changelog line of the version says why
    explained_by: str | None  # the changelog line naming the benchmark or the metric
    unit: str | None = None  # as written in this version (the track's unit may differ)


@dataclass(frozen=True, slots=True)
class Track:
    """One claim (same metric, same condition) across the versions it appears in."""

    metric: str
    condition: Condition
    unit: str | None  # the oldest point's
    points: tuple[Point, ...]  # oldest first, at least two


def follow_versions(
    series: Sequence[Mapping[str, Any]],
    claims_of: Mapping[str, Sequence[Mapping[str, Any]]],
    changelog: Mapping[str, Sequence[tuple[int | None, str]]],
) -> dict[str, tuple[Track, ...]]:
    """The tracks of every version chain, by the id of its newest series.

    Only chains of two versions or more have a key (their tuple may be empty); a claim seen
    in one version only makes no track.
    """
    by_id = {str(s["id"]): s for s in series}
    replaced = {str(s["previous_version"]) for s in series if s.get("previous_version")}
    out: dict[str, tuple[Track, ...]] = {}
    for sid in by_id:
        if sid in replaced:
            continue
        chain = _chain(sid, by_id)
        if len(chain) >= 2:
            out[sid] = _tracks(chain, claims_of, changelog)
    return out


def track_to_dict(track: Track) -> dict[str, Any]:
    """A JSON-ready form of a track."""
    return {
        "metric": track.metric,
        "condition": dict(track.condition),
        "unit": track.unit,
        "points": [
            {
                "version": p.version, "series_id": p.series_id, "claim_id": p.claim_id,
                "baseline": p.baseline, "patched": p.patched, "unit": p.unit,
                "change_pct": p.change_pct, "noise_pct": p.noise_pct,
                "moved_pct": p.moved_pct, "flagged": p.flagged, "explained_by": p.explained_by,
            }
            for p in track.points
        ],
    }


# --- chains and tracks ---------------------------------------------------------------------


def _chain(newest: str, by_id: Mapping[str, Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The series from the oldest version to `newest`, following `previous_version`; a link
    to a series not given, or back into the chain (a cycle), ends it."""
    chain = [by_id[newest]]
    seen = {newest}
    while True:
        prev = chain[-1].get("previous_version")
        if not prev or str(prev) not in by_id or str(prev) in seen:
            break
        seen.add(str(prev))
        chain.append(by_id[str(prev)])
    chain.reverse()
    return chain


def _key(claim: Mapping[str, Any]) -> tuple[str, Condition]:
    condition = claim.get("condition") or {}
    return str(claim.get("metric") or "other"), tuple(
        sorted((str(k), str(v)) for k, v in condition.items())
    )


def _tracks(
    chain: Sequence[Mapping[str, Any]],
    claims_of: Mapping[str, Sequence[Mapping[str, Any]]],
    changelog: Mapping[str, Sequence[tuple[int | None, str]]],
) -> tuple[Track, ...]:
    # (key, ordinal) -> [(chain index, claim)], in order of first appearance
    found: dict[tuple[tuple[str, Condition], str, int],
                list[tuple[int, Mapping[str, Any]]]] = {}
    for index, member in enumerate(chain):
        here: dict[tuple[tuple[str, Condition], str], int] = {}
        for claim in _reading_order(member, claims_of.get(str(member["id"]), ())):
            if claim.get("quoted"):
                continue  # a quoted figure belongs to the mail it was first written in
            # A figure is known by its metric, its condition and its unit's kind (a cover with
            # an IOPS table and a MB/s table names no condition in either). Several claims of
            # one such key in one version (two tables of the same shape) are told apart by
            # their order, as a version that repeats its tables keeps it.
            unit = str(claim.get("canonical_unit") or claim.get("unit") or "")
            kind = (_key(claim), unit)
            ordinal = here.get(kind, 0)
            here[kind] = ordinal + 1
            found.setdefault((*kind, ordinal), []).append((index, claim))
    notes = _Notes(chain, changelog)
    tracks = []
    for ((metric, condition), _, _), seen in found.items():
        if len(seen) < 2:
            continue
        points = _points(seen, chain, notes, _Naming(metric, condition, seen))
        tracks.append(Track(metric, condition, points[0].unit, points))
    return tuple(tracks)


def _reading_order(series: Mapping[str, Any], claims: Iterable[Mapping[str, Any]]
                   ) -> list[Mapping[str, Any]]:
    """A version's claims as its mail reads: the cover, then the patches in order, each
    from its first line down."""
    place = {key: i for i, key in enumerate(_members(series))}

    def at(claim: Mapping[str, Any]) -> tuple[int, int]:
        where = place.get(str(claim.get("message_id")), place.get(str(claim.get("found_in")), 0))
        line = claim.get("line")
        return where, line if isinstance(line, int) else 0

    return sorted(claims, key=at)


def _points(
    seen: Sequence[tuple[int, Mapping[str, Any]]],
    chain: Sequence[Mapping[str, Any]],
    notes: _Notes,
    naming: _Naming,
) -> tuple[Point, ...]:
    points: list[Point] = []
    previous: tuple[int, Mapping[str, Any], float | None] | None = None
    for index, claim in seen:
        noise = noise_pct(str(claim.get("quote") or ""))
        moved: float | None = None
        explained: str | None = None
        flagged = False
        if previous is not None:
            before_index, before, before_noise = previous
            moved = moved_pct(before, claim)
            # The figures may have moved in any version since the previous point: a claim left
            # out of v2 and back in v3 is explained by v2's changelog as well as by v3's.
            explained = next((text for text in notes.between(before_index, index)
                              if naming.names(text)), None)
            stated = [n for n in (before_noise, noise) if n is not None]
            limit = max(stated) if stated else NOISE_DEFAULT_PCT
            flagged = moved is not None and moved > limit and explained is None
        member = chain[index]
        points.append(Point(
            version=int(member.get("version") or 1), series_id=str(member["id"]),
            claim_id=str(claim.get("id") or ""), baseline=_number(claim.get("baseline")),
            patched=_number(claim.get("patched")), change_pct=_number(claim.get("change_pct")),
            noise_pct=noise, moved_pct=moved, flagged=flagged, explained_by=explained,
            unit=_text(claim.get("unit")),
        ))
        previous = (index, claim, noise)
    return tuple(points)


class _Notes:
    """The changelog lines that apply to each version of a chain."""

    def __init__(self, chain: Sequence[Mapping[str, Any]],
                 changelog: Mapping[str, Sequence[tuple[int | None, str]]]) -> None:
        self._chain = chain
        self._members = [_members(s) for s in chain]
        self._changelog = changelog

    def between(self, after: int, upto: int) -> Iterator[str]:
        """Lines of the versions after chain index `after` up to `upto`, newest first: a
        version's own mails first (lines with its number, or with none: the mail's own
        version), then lines naming its number in any mail of the chain (a v4 cover keeps
        the notes of v3)."""
        for index in range(upto, after, -1):
            version = int(self._chain[index].get("version") or 1)
            for key in self._members[index]:
                for number, text in self._changelog.get(key, ()):
                    if number is None or number == version:
                        yield text
            for other, keys in enumerate(self._members):
                if other == index:
                    continue
                for key in keys:
                    for number, text in self._changelog.get(key, ()):
                        if number == version:
                            yield text


def _members(series: Mapping[str, Any]) -> list[str]:
    keys = [str(series["cover"])] if series.get("cover") else []
    keys.extend(str(k) for k in series.get("patches") or () if k)
    return keys


# --- figures --------------------------------------------------------------------------------


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def moved_pct(before: Mapping[str, Any], after: Mapping[str, Any]) -> float | None:
    """The largest relative move, in %, of the baseline or the patched figure from one claim
    to the next. Figures are compared as written when their units are; else in canonical units
    when both have them. A claim without comparable figures (a percentage alone) moves as its
    patched side would over an unchanged baseline: (1 + c2) / (1 + c1) - 1."""
    moves = []
    for side in ("baseline", "patched"):
        pair = _comparable(before, after, side)
        if pair is not None and pair[0] != 0:
            moves.append(abs(pair[1] - pair[0]) / abs(pair[0]) * 100)
    if not moves:
        c1, c2 = _change(before), _change(after)
        if c1 is None or c2 is None or c1 <= -100:
            return None
        moves.append(abs((100 + c2) / (100 + c1) - 1) * 100)
    return round(max(moves), 3)


def _comparable(before: Mapping[str, Any], after: Mapping[str, Any],
                side: str) -> tuple[float, float] | None:
    unit_key = "patched_unit" if side == "patched" else "unit"
    old, new = _number(before.get(side)), _number(after.get(side))
    old_unit = before.get(unit_key) or before.get("unit")
    new_unit = after.get(unit_key) or after.get("unit")
    if old is not None and new is not None and old_unit == new_unit:
        return old, new
    old, new = _number(before.get(f"{side}_canonical")), _number(after.get(f"{side}_canonical"))
    canonical = before.get("canonical_unit")
    if old is not None and new is not None and canonical and canonical == after.get("canonical_unit"):
        return old, new
    return None


def _change(claim: Mapping[str, Any]) -> float | None:
    change = _number(claim.get("change_pct"))
    return change if change is not None else _number(claim.get("stated_change_pct"))


_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_PM = r"(?:\u00b1|\+/-|\+-)"
_SD = r"(?:std\.?\s?dev\.?|stdev|stddev|standard\sdeviation|sd)"
# `± 3%`, `±0.5%`, `+-2%`, the kernel test robot's `16674 ±  4%`, `(stddev 1.2%)`, `(1.2% stddev)`
_PCT = re.compile(rf"{_PM}\s{{0,3}}({_NUM})\s?%|\b{_SD}\s{{0,3}}[:=]?\s{{0,3}}({_NUM})\s?%"
                  rf"|({_NUM})\s?%\s{{0,3}}{_SD}\b", re.I)
# `10.2 ± 0.3 Mpps`, `10.2 Mpps ± 0.3`, the bpf bench's `44.118 ± 0.052M/s`
_ABS = re.compile(rf"({_NUM})\s{{0,3}}(?:[^\W\d][\w/.]{{0,10}}\s{{0,3}})?{_PM}\s{{0,3}}({_NUM})"
                  r"(?!\s?%)(?![\d.])")
# fio's `avg=99.81, stdev=3.38`: a spread of the figure written before it
_ABS_SD = re.compile(rf"\b{_SD}\s{{0,3}}[:=]\s{{0,3}}({_NUM})(?!\s?%)(?![\d.])", re.I)
_FIGURE = re.compile(_NUM)
_MAX_QUOTE = 20_000


def noise_pct(quote: str) -> float | None:
    """The largest ± the quote states, in % of its figure (an absolute ± divided by the figure
    it follows); None when the quote states none."""
    quote = quote[:_MAX_QUOTE]
    found: list[float] = []
    for m in _PCT.finditer(quote):
        found.append(_float(m[1] or m[2] or m[3]))
    for m in _ABS.finditer(quote):
        figure = _float(m[1])
        if figure > 0:
            found.append(_float(m[2]) / figure * 100)
    for m in _ABS_SD.finditer(quote):
        figures = _FIGURE.findall(quote, 0, m.start())
        figure = _float(figures[-1]) if figures else 0.0
        if figure > 0:
            found.append(_float(m[1]) / figure * 100)
    return round(max(found), 3) if found else None


def _float(text: str) -> float:
    return float(text.replace(",", ""))


# --- does a changelog line name the benchmark or the metric? --------------------------------

# Words of each metric, stricter than metric_of's context words (written for table headers,
# where `us` is microseconds and `rate` a packet rate; in a changelog they are English).
_METRIC_WORDS = {
    "throughput": r"throughput|bandwidth|goodput|bw|[kmg]?pps|packet[\s-]rates?|line[\s-]rate",
    "latency": r"latenc(?:y|ies)|rtt|round[\s-]trips?|p(?:50|90|99|999)|jitter|response\stimes?",
    "transactions": r"transactions?|tps|rps|qps|iops|requests?\sper\ssecond|(?:tcp|udp)_c?rr",
    # not `per-cpu`, `cpu_map`, `cpu-hotplug`: data structures, not CPU time
    "cpu": r"(?<!per-)(?<!per_)(?<!per\s)cpus?(?![-_/])|cycles|utili[sz]ation|cpu%|%cpu",
    "memory": r"memory\s(?:usage|footprint|consumption|use|overhead)|footprint|rss",
}
_METRIC_PATTERNS = {m: re.compile(rf"\b(?:{w})\b", re.I) for m, w in _METRIC_WORDS.items()}
# A unit written in the line tells its metric (metric_of on the canonical unit); only rates and
# cycles: `s`, `B`, `%` are words or numbers of anything in a changelog.
_RATE_UNITS = frozenset({"pps", "bit/s", "B/s", "msg/s", "trans/s", "req/s", "ops/s", "conn/s",
                         "cycles"})
# Setting-up tools name no benchmark (`use ethtool -L`, `ip link`); `perf` is a word too often.
_SETUP_TOOLS = frozenset({"taskset", "numactl", "ethtool", "tc", "ip", "perf", "sysctl",
                          "bpftool", "devlink", "modprobe", "nstat", "mpstat", "sar", "ss"})
_TOOL_NAMES = sorted((TOOLS - _SETUP_TOOLS) | {"iperf", "wrk2", "xdp_bench", "hackbench",
                                                "will-it-scale", "sysbench", "xdp_redirect"},
                     key=len, reverse=True)
_TOOLS = re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(t) for t in _TOOL_NAMES) + r")(?![\w-])",
                    re.I)
# the words themselves name the benchmark or what it measures ("updated the benchmark
# results", "removing it costs performance"); words that only say something was measured
# again ("re-measured", "new numbers") do not say what, and the issue asks for a line that
# names the benchmark or the metric
_GENERIC = re.compile(r"\b(?:bench(?:mark\w*)?|performance)\b", re.I)
# `numbers` that are no measurement
_NOT_FIGURES = re.compile(
    r"\b(?:magic|line|version|port|sequence|serial|queue|page|error|major|minor|register|"
    r"revision|patch|commit|index|random|cpu|node)\s+numbers\b",
    re.I,
)
_URL = re.compile(r"\S+://\S+|<[^<>\s]+@[^<>\s]+>")
# Condition names too common in a changelog to say the benchmark changed.
_PLAIN_NAMES = frozenset({"test", "count", "device", "host", "destination", "port", "queue",
                          "batch", "rate", "delay", "window", "mode", "type", "size"})


class _Naming:
    """Whether a changelog line names a track's benchmark or metric."""

    def __init__(self, metric: str, condition: Condition,
                 seen: Sequence[tuple[int, Mapping[str, Any]]]) -> None:
        self._metric = metric
        self._benchmarks = {str(c["benchmark"]) for _, c in seen if c.get("benchmark")}
        words = [p for n, v in condition for p in (_name_pattern(n), _value_pattern(v)) if p]
        self._condition = re.compile("|".join(words), re.I) if words else None
        # units as written: case matters (Mb/s and MB/s); short ones (`us`, `ms`, `%`) are words
        units = {u for _, c in seen for u in (_text(c.get("unit")), _text(c.get("patched_unit")))
                 if u and (len(u) >= 3 or not u.isalpha())}
        units = {u for u in units if any(ch.isalpha() for ch in u)}
        self._units = (re.compile("|".join(rf"(?<![\w/]){re.escape(u)}(?![\w/])" for u in units))
                       if units else None)

    def names(self, line: str) -> bool:
        text = _NOT_FIGURES.sub(" ", _URL.sub(" ", line))
        pattern = _METRIC_PATTERNS.get(self._metric)
        return bool(
            (pattern is not None and pattern.search(text))
            or self._unit_metric(text)
            or (self._units is not None and self._units.search(text))
            or (self._condition is not None and self._condition.search(text))
            or self._tool(text)
            or _GENERIC.search(text)
        )

    def _tool(self, text: str) -> bool:
        """The claim's own benchmark, when its mail named one; else any benchmark tool."""
        if self._benchmarks:
            return bool(families_named(text) & self._benchmarks)
        return bool(_TOOLS.search(text))

    def _unit_metric(self, text: str) -> bool:
        for token in text.split():
            unit = lookup(token.strip(",;:()[]'\"."))
            if unit is not None and unit.canonical in _RATE_UNITS and \
                    metric_of(unit.canonical, text) == self._metric:
                return True
        return False


def _name_pattern(name: str) -> str | None:
    if len(name) <= 2 or name.lower() in _PLAIN_NAMES:
        return None
    stem = name[:-1] if name.endswith("s") and len(name) > 3 else name
    words = r"[\s_-]?".join(re.escape(part) for part in re.split(r"[\s_-]+", stem) if part)
    return rf"\b{words}s?\b"


def _value_pattern(value: str) -> str | None:
    # a figure (`8`, `1500`) is in too many changelog lines to name a benchmark; `TCP_RR` does
    if len(value) <= 2 or not any(ch.isalpha() for ch in value):
        return None
    return rf"(?<![\w-]){re.escape(value)}(?![\w-])"


# --- the documents' side -------------------------------------------------------------------


def own_claims(series: Mapping[str, Any], claims: Iterable[Mapping[str, Any]]
               ) -> list[Mapping[str, Any]]:
    """The claims a version makes itself: written in its cover or patches, not quoted (a
    reviewer's figures, or the robot's, are not the version's)."""
    keys = set(_members(series))
    return [c for c in claims if not c.get("quoted")
            and (c.get("message_id") in keys or c.get("found_in") in keys)]


def changelog_of(messages: Iterable[Mapping[str, Any]]) -> dict[str, list[tuple[int | None, str]]]:
    """The changelog lines of message documents (their `changelog`), by message key."""
    out: dict[str, list[tuple[int | None, str]]] = {}
    for m in messages:
        notes = m.get("changelog")
        if notes:
            out[str(m.get("key") or m.get("message_id"))] = [(v, str(t)) for v, t in notes]
    return out


def attach_tracks(series: Sequence[dict[str, Any]], chains: Sequence[Mapping[str, Any]],
                  claims: Sequence[Mapping[str, Any]],
                  changelog: Mapping[str, Sequence[tuple[int | None, str]]]) -> None:
    """Give each of `series` that no other of them replaces its chain's `version_tracks`
    (docs/json.md): `chains` holds every version of their chains (`series` among them),
    `claims` the versions' claims, `changelog` their members' notes."""
    replaced = {s.get("previous_version") for s in series}
    by_id = {str(s["id"]): s for s in chains}
    # the claims by the message they were written in: a report of a whole store follows
    # thousands of chains, each looking up its members' claims
    by_message: dict[str, list[Mapping[str, Any]]] = {}
    for claim in claims:
        if not claim.get("quoted") and claim.get("message_id"):
            by_message.setdefault(str(claim["message_id"]), []).append(claim)
    for doc in series:
        if doc["id"] in replaced or not doc.get("previous_version"):
            continue
        chain = _chain(str(doc["id"]), by_id)
        if len(chain) < 2:
            continue
        claims_of = {str(s["id"]): [c for k in _members(s) for c in by_message.get(k, ())]
                     for s in chain}
        tracks = follow_versions(chain, claims_of, changelog).get(str(doc["id"]), ())
        if tracks:
            doc["version_tracks"] = [track_to_dict(t) for t in tracks]
