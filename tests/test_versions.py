"""Claims followed across the versions of a series, on hand-built JSON-contract dicts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from analyze.versions import (
    NOISE_DEFAULT_PCT,
    Point,
    Track,
    follow_versions,
    moved_pct,
    noise_pct,
    track_to_dict,
)

Changelog = dict[str, list[tuple[int | None, str]]]


def _series(version: int, previous: str | None = None, name: str = "s") -> dict[str, Any]:
    sid = f"{name}{version}"
    return {"id": sid, "version": version, "previous_version": previous,
            "cover": f"{sid}-cover@example.org",
            "patches": [f"{sid}-1@example.org", f"{sid}-2@example.org"]}


def _chain(n: int = 3, name: str = "s") -> list[dict[str, Any]]:
    return [_series(v, f"{name}{v - 1}" if v > 1 else None, name) for v in range(1, n + 1)]


def _claim(cid: str, baseline: float | None, patched: float | None, *, metric: str = "throughput",
           unit: str = "Mpps", condition: dict[str, str] | None = None, quote: str = "",
           quoted: bool = False, **more: Any) -> dict[str, Any]:
    change = None if baseline is None or patched is None else 100 * (patched - baseline) / baseline
    return {"id": cid, "metric": metric, "condition": condition or {}, "baseline": baseline,
            "patched": patched, "unit": unit, "change_pct": change, "stated_change_pct": None,
            "quote": quote or f"{baseline} {unit} -> {patched} {unit}", "found_in": "m",
            "message_id": "m", "quoted": quoted, "direction": "improvement", **more}


def _one_track(series: list[dict[str, Any]], claims: dict[str, list[dict[str, Any]]],
               changelog: Changelog | None = None) -> Track:
    out = follow_versions(series, claims, changelog or {})
    (tracks,) = out.values()
    (track,) = tracks
    return track


def test_moves_within_noise_are_not_flagged() -> None:
    claims = {"s1": [_claim("a", 10.0, 12.0)], "s2": [_claim("b", 10.1, 12.1)],
              "s3": [_claim("c", 10.2, 12.3)]}
    out = follow_versions(_chain(), claims, {})
    assert list(out) == ["s3"]
    (track,) = out["s3"]
    assert [p.version for p in track.points] == [1, 2, 3]
    assert [p.claim_id for p in track.points] == ["a", "b", "c"]
    assert track.points[0].moved_pct is None
    assert track.points[1].moved_pct == pytest.approx(1.0)
    assert track.points[2].moved_pct == pytest.approx(100 * 0.2 / 12.1, abs=1e-3)
    assert not any(p.flagged for p in track.points)


def test_move_beyond_default_noise_without_changelog_is_flagged() -> None:
    claims = {"s1": [_claim("a", 10.0, 12.0)], "s2": [_claim("b", 10.0, 13.0)],
              "s3": [_claim("c", 10.0, 13.1)]}
    track = _one_track(_chain(), claims,
                       {"s2-cover@example.org": [(None, "fixed a typo in the kdoc")]})
    assert track.points[1].moved_pct == pytest.approx(100 / 12, abs=1e-3)
    assert [p.flagged for p in track.points] == [False, True, False]
    assert track.points[1].explained_by is None


def test_changelog_naming_the_metric_explains_the_move() -> None:
    claims = {"s1": [_claim("a", 10.0, 12.0)], "s2": [_claim("b", 10.0, 13.0)]}
    note = "throughput went up once the lock was gone"
    changelog: Changelog = {"s2-2@example.org": [(None, "renamed a helper"), (None, note)]}
    track = _one_track(_chain(2), claims, changelog)
    assert track.points[1].explained_by == note
    assert not track.points[1].flagged
    # the same note in the v1 mail (its own version) says nothing of v2
    track = _one_track(_chain(2), claims, {"s1-cover@example.org": [(None, note)]})
    assert track.points[1].flagged and track.points[1].explained_by is None
    # a later mail keeping v2's notes under `Changes in v2:` explains v2
    chain = _chain(3)
    track = _one_track(chain, claims, {"s3-cover@example.org": [(2, note)]})
    assert track.points[1].explained_by == note
    # ... and only v2: in its own mail, v3's older notes do not speak for v3
    claims["s3"] = [_claim("c", 10.0, 14.0)]
    track = _one_track(chain, claims, {"s3-cover@example.org": [(None, "renamed"), (2, note)]})
    assert [(p.version, p.flagged, p.explained_by) for p in track.points] == [
        (1, False, None), (2, False, note), (3, True, None)]


@pytest.mark.parametrize(("line", "named"), [
    ("re-measured on the new machine", False),  # says it measured again, not what
    ("updated the benchmark results", True),
    ("figures now in Mpps", True),
    ("ran iperf3 with more flows", True),
    ("numbers for TCP_RR added", True),
    ("use more threads in the test", True),
    ("replaced magic numbers with defines", False),
    ("fixed per-cpu stats", False),
    ("let us know if it breaks", False),
    ("Link to v1: https://lore.kernel.org/r/20240101-throughput-v1@example.org", False),
    ("set it with ethtool -L", False),
    ("set the MTU with ip link", False),
])
def test_what_names_the_benchmark_or_metric(line: str, named: bool) -> None:
    claims = {"s1": [_claim("a", 10.0, 12.0, condition={"test": "TCP_RR", "threads": "8"})],
              "s2": [_claim("b", 10.0, 13.0, condition={"test": "TCP_RR", "threads": "8"})]}
    track = _one_track(_chain(2), claims, {"s2-cover@example.org": [(2, line)]})
    assert (track.points[1].explained_by == line) is named
    assert track.points[1].flagged is not named


@pytest.mark.parametrize(("metric", "unit", "line"), [
    ("latency", "usec", "lower latency after the rework"),
    ("cpu", "%", "CPU usage went down"),
    ("transactions", "trans/s", "now counts 12 Ktps more"),
    ("throughput", "Gbit/s", "link now reaches 25 Gbps"),
])
def test_metric_words(metric: str, unit: str, line: str) -> None:
    claims = {"s1": [_claim("a", 100.0, 80.0, metric=metric, unit=unit)],
              "s2": [_claim("b", 100.0, 70.0, metric=metric, unit=unit)]}
    track = _one_track(_chain(2), claims, {"s2-cover@example.org": [(2, line)]})
    assert track.points[1].explained_by == line
    # the same line does not explain another metric's figure
    other = "memory" if metric != "memory" else "latency"
    claims = {"s1": [_claim("a", 100.0, 80.0, metric=other, unit="MB")],
              "s2": [_claim("b", 100.0, 70.0, metric=other, unit="MB")]}
    track = _one_track(_chain(2), claims, {"s2-cover@example.org": [(2, line)]})
    assert track.points[1].flagged


@pytest.mark.parametrize(("metric", "unit", "line"), [
    ("cpu", "%", "fixed per-cpu stats"),
    ("cpu", "%", "moved to the cpu_map helper"),
    ("latency", "us", "let us know if it breaks"),
    ("memory", "MB", "fixed a memory leak on the error path"),
])
def test_words_that_name_no_metric(metric: str, unit: str, line: str) -> None:
    claims = {"s1": [_claim("a", 100.0, 80.0, metric=metric, unit=unit)],
              "s2": [_claim("b", 100.0, 70.0, metric=metric, unit=unit)]}
    track = _one_track(_chain(2), claims, {"s2-cover@example.org": [(2, line)]})
    assert track.points[1].flagged and track.points[1].explained_by is None


def test_stated_noise_larger_than_the_move() -> None:
    quote = "10.0 Mpps (± 5%) before, {} Mpps (± 5%) after"
    claims = {"s1": [_claim("a", 10.0, 12.0, quote=quote.format(12.0))],
              "s2": [_claim("b", 10.0, 12.4, quote=quote.format(12.4))]}
    track = _one_track(_chain(2), claims)
    assert track.points[1].moved_pct == pytest.approx(100 * 0.4 / 12, abs=1e-3)
    assert track.points[1].noise_pct == 5.0
    assert not track.points[1].flagged
    # the same move without a stated ± is beyond the default noise
    assert NOISE_DEFAULT_PCT < 100 * 0.4 / 12
    claims["s2"] = [_claim("b", 10.0, 12.4)]
    claims["s1"] = [_claim("a", 10.0, 12.0)]
    assert _one_track(_chain(2), claims).points[1].flagged
    # the larger ± of the two points counts: a stated ± on v1 alone still covers the move
    claims["s1"] = [_claim("a", 10.0, 12.0, quote=quote.format(12.0))]
    assert not _one_track(_chain(2), claims).points[1].flagged


def test_stated_noise_smaller_than_default_counts() -> None:
    quote = "{} ± 0.5% Mpps"
    claims = {"s1": [_claim("a", 10.0, 12.0, quote=quote.format(12.0))],
              "s2": [_claim("b", 10.0, 12.15, quote=quote.format(12.15))]}
    track = _one_track(_chain(2), claims)
    assert track.points[1].moved_pct == pytest.approx(1.25)
    assert track.points[1].flagged


def test_claim_in_v1_and_v3_only() -> None:
    claims = {"s1": [_claim("a", 10.0, 12.0)], "s2": [], "s3": [_claim("c", 10.0, 14.0)]}
    track = _one_track(_chain(), claims)
    assert [(p.version, p.series_id) for p in track.points] == [(1, "s1"), (3, "s3")]
    assert track.points[1].moved_pct == pytest.approx(100 * 2 / 12, abs=1e-3)
    assert track.points[1].flagged
    # v2's changelog speaks for the move as well: the figures moved somewhere after v1
    track = _one_track(_chain(), claims, {"s2-1@example.org": [(None, "throughput retested on 6.9")]})
    assert track.points[1].explained_by == "throughput retested on 6.9"
    assert not track.points[1].flagged


def test_condition_differing_makes_two_tracks() -> None:
    def both(cid: str, small: float, large: float) -> list[dict[str, Any]]:
        return [_claim(cid + "64", 10.0, small, condition={"packet_size": "64"}),
                _claim(cid + "1500", 5.0, large, condition={"packet_size": "1500"})]

    out = follow_versions(_chain(2), {"s1": both("a", 12.0, 6.0), "s2": both("b", 12.0, 7.0)},
                          {})
    tracks = out["s2"]
    assert [t.condition for t in tracks] == [(("packet_size", "64"),), (("packet_size", "1500"),)]
    assert [[p.flagged for p in t.points] for t in tracks] == [[False, False], [False, True]]


def test_quoted_claims_are_ignored() -> None:
    claims = {"s1": [_claim("a", 10.0, 12.0)],
              "s2": [_claim("q", 10.0, 20.0, quoted=True), _claim("b", 10.0, 12.1)]}
    track = _one_track(_chain(2), claims)
    assert [p.claim_id for p in track.points] == ["a", "b"]
    assert not track.points[1].flagged
    # a version whose only figure is quoted has no point: no track remains
    out = follow_versions(_chain(2), {"s1": claims["s1"], "s2": claims["s2"][:1]}, {})
    assert out == {"s2": ()}


def test_claims_of_one_key_pair_by_their_order_and_their_units_kind() -> None:
    """Two tables of one shape in each version (no condition written in either) pair in order;
    an IOPS figure is never followed by a MB/s one."""
    claims = {"s1": [_claim("a", 10.0, 12.0, line=3), _claim("x", 300.0, 800.0, unit="MB/s", line=9),
                     _claim("a2", 20.0, 24.0, line=5)],
              "s2": [_claim("b2", 20.0, 30.0, line=7), _claim("b", 10.0, 12.1, line=4),
                     _claim("y", 310.0, 800.0, unit="MB/s", line=2)]}
    (tracks,) = follow_versions(_chain(2), claims, {}).values()
    assert [[p.claim_id for p in t.points] for t in tracks] == [["a", "b"], ["a2", "b2"], ["x", "y"]]
    assert [t.points[1].flagged for t in tracks] == [False, True, True]


def test_single_version_and_broken_chains() -> None:
    claims = {"x1": [_claim("a", 10.0, 12.0)]}
    assert follow_versions([_series(1, name="x")], claims, {}) == {}
    # a link to a series not given: a chain of one
    assert follow_versions([_series(2, "gone", name="x")], claims, {}) == {}
    # a cycle has no newest version
    a, b = _series(1, "x2", name="x"), _series(2, "x1", name="x")
    assert follow_versions([a, b], claims, {}) == {}
    # two chains side by side, keyed by their newest
    out = follow_versions(_chain(2, "p") + _chain(3, "q"), {}, {})
    assert out == {"p2": (), "q3": ()}


def test_unit_change_compares_canonical_figures() -> None:
    v1 = _claim("a", 10.0, 12.0, unit="Gbit/s", canonical_unit="bit/s",
                baseline_canonical=10e9, patched_canonical=12e9)
    v2 = _claim("b", 10000.0, 12100.0, unit="Mbit/s", canonical_unit="bit/s",
                baseline_canonical=10e9, patched_canonical=12.1e9)
    assert moved_pct(v1, v2) == pytest.approx(100 * 0.1 / 12, abs=1e-3)
    track = _one_track(_chain(2), {"s1": [v1], "s2": [v2]})
    assert (track.unit, track.points[1].unit) == ("Gbit/s", "Mbit/s")
    assert not track.points[1].flagged


def test_percentage_only_claims_move_by_their_change() -> None:
    v1 = _claim("a", None, None, stated_change_pct=10.0)
    v2 = _claim("b", None, None, stated_change_pct=20.0)
    v1["stated_change_pct"], v2["stated_change_pct"] = 10.0, 20.0
    assert moved_pct(v1, v2) == pytest.approx(100 * (1.2 / 1.1 - 1), abs=1e-3)
    assert moved_pct(v1, v1) == 0.0
    track = _one_track(_chain(2), {"s1": [v1], "s2": [v2]})
    assert track.points[1].flagged


@pytest.mark.parametrize(("quote", "pct"), [
    ("12.0 Mpps ± 3%", 3.0),
    ("throughput ±0.5%", 0.5),
    ("1.5 +-2% Gbit/s", 2.0),
    ("5.0 Mpps (stddev 1.2%)", 1.2),
    ("10.2 ± 0.3 Mpps", 100 * 0.3 / 10.2),
    ("10.2 Mpps ± 0.3 Mpps", 100 * 0.3 / 10.2),
    ("lat (usec): avg=99.81, stdev=3.38", 100 * 3.38 / 99.81),
    ("      16674 ±  4%  netperf.Throughput_Mbps", 4.0),
    ("5 Mpps -> 6 Mpps (+20%)", None),
])
def test_noise_read_from_the_quote(quote: str, pct: float | None) -> None:
    got = noise_pct(quote)
    if pct is None:
        assert got is None
    else:
        assert got == pytest.approx(pct, abs=1e-3)


def test_track_to_dict_is_json_ready() -> None:
    claims = {"s1": [_claim("a", 10.0, 12.0, condition={"threads": "8"})],
              "s2": [_claim("b", 10.0, 13.0, condition={"threads": "8"})]}
    track = _one_track(_chain(2), claims)
    data = json.loads(json.dumps(track_to_dict(track)))
    assert data["metric"] == "throughput" and data["condition"] == {"threads": "8"}
    assert data["unit"] == "Mpps"
    assert [p["version"] for p in data["points"]] == [1, 2]
    assert data["points"][1]["flagged"] is True
    assert set(data["points"][0]) >= {f for f in Point.__slots__}


@pytest.mark.parametrize(("line", "named"), [
    ("netperf runs redone on the new kernel", True),
    ("ran iperf3 with more flows", False),  # another benchmark than the claim's
])
def test_a_claim_with_a_benchmark_is_explained_by_that_benchmark_only(line: str, named: bool) -> None:
    claims = {"s1": [_claim("a", 10.0, 12.0, benchmark="netperf")],
              "s2": [_claim("b", 10.0, 13.0, benchmark="netperf")]}
    track = _one_track(_chain(2), claims, {"s2-cover@example.org": [(2, line)]})
    assert (track.points[1].explained_by == line) is named
