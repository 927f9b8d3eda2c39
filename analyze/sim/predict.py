"""From a scenario to a verdict: the datapath as a lock model, its calibration on the
baseline alone, the patched side predicted from the mechanism transform, and the rules of
SIMULATOR.md for what counts as reproduced.

The model of a packet's path is the deterministic bottleneck bound (SIMULATOR.md: the
exponential chain under-predicts where the curve bends; the bound and a low-variance DES do
not): each core spends P alone, then holds each lock r for its critical section S_r plus,
when more than one core runs, one cache-line transfer c (the lock's line, which the lines
written under it follow); shared lines written outside any lock serialize a transfer each. Calibration scales the private costs (α) and the critical sections
(β) the stages give, on the baseline only; the patched side is the transformed stages with
the same α and β, never refitted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import ModelError
from .scenario import Scenario, Stage
from .usl import USL, fit_usl

REPRODUCED, NOT_REPRODUCED, WITHIN_NOISE = "reproduced", "not_reproduced", "within_noise"
CONSISTENT, OUTSIDE_BAND, NO_MODEL = "consistent", "outside_band", "no_model"
NOISE = 0.01  # relative run-to-run noise assumed when the mail gives none

_PRIVATE_KINDS = ("private", "percpu", "rcu_read")


@dataclass(frozen=True, slots=True)
class Constants:
    """The platform's costs the model takes from a profile, never from another claim."""

    c_same_ns: float
    c_cross_ns: float
    cores_per_socket: int
    profile: str = ""

    def transfer_ns(self, cores: int) -> float:
        return self.c_same_ns if cores <= self.cores_per_socket else self.c_cross_ns


@dataclass(frozen=True, slots=True)
class Verdict:
    verdict: str
    reason: str
    values: tuple[int, ...]  # the sweep
    predicted_before: tuple[float, ...] = ()
    predicted_after: tuple[float, ...] = ()
    predicted_ratio: tuple[float, ...] = ()
    claimed_ratio: tuple[float, ...] = ()
    fit_rms_pct: float | None = None
    private_scale: float | None = None
    critical_scale: float | None = None
    band: tuple[tuple[float, float], ...] = ()  # (low, high) ratio per point, band verdicts
    band_pct: float | None = None
    unexplained: tuple[int, ...] = ()  # sweep values the prediction misses
    usl_before: USL | None = None
    usl_after: USL | None = None
    profile: str = ""


def transform(stages: Sequence[Stage], mechanisms: Sequence[str]) -> list[Stage]:
    """The patched datapath: what each mechanism tag does to the stages."""
    out = list(stages)
    tags = set(mechanisms)

    def changed(s: Stage, **fields: object) -> Stage:
        return s.model_copy(update=fields)

    if "drop_lock" in tags or "rcu_config" in tags:
        kind = "rcu_read" if "rcu_config" in tags and "drop_lock" not in tags else "private"
        # the work stays, the serialization goes; lines written under it now stay local
        out = [changed(s, kind=kind, resource=None) if s.kind == "lock" else
               (changed(s, resource=None) if s.kind == "shared_line" else s) for s in out]
    if "percpu_stats" in tags:
        out = [changed(s, kind="percpu", resource=None) if s.kind == "shared_line" else s
               for s in out]
    if "lastuse_per_tick" in tags:
        out = [changed(s, frequency="per_tick") if s.kind == "shared_line" else s for s in out]
    if "skip_backlog" in tags:
        out = [s for s in out if "backlog" not in s.name.lower()]
    return out


def scaled(stages: Sequence[Stage], alpha: float, beta: float) -> list[Stage]:
    """The stages with calibrated costs: work done alone times α, work done under a lock
    (critical sections, lines written under it) times β. Scaled before the mechanism
    transform, so a critical section that becomes private keeps its calibrated cost."""
    return [s.model_copy(update={"cost_ns": s.cost_ns * (beta if s.resource else alpha)})
            for s in stages]


def throughput(stages: Sequence[Stage], cores: int, consts: Constants) -> float:
    """Packets per second of `cores` cores through `stages` (the bound)."""
    c = consts.transfer_ns(cores) if cores > 1 else 0.0
    private = 0.0
    held: dict[str, float] = {}  # lock → critical ns
    free_lines = 0
    for s in stages:
        if s.frequency != "per_packet":
            continue  # per tick or per batch: nothing a packet waits for
        if s.kind in _PRIVATE_KINDS:
            private += s.cost_ns
        elif s.kind == "lock" or s.resource is not None:
            # a critical section, or a shared line written under a lock: both serialize
            held[s.resource or ""] = held.get(s.resource or "", 0.0) + s.cost_ns
        else:
            private += s.cost_ns
            free_lines += s.lines
    # a hand-off moves the lock's line to the next core; the lines written under the lock
    # follow it in the same transfer (their misses overlap), so one transfer per hand-off
    holds = [crit + c for crit in held.values()]
    if free_lines and c:
        holds.append(c * free_lines)
    per_packet = private + sum(holds)
    if per_packet <= 0:
        raise ModelError("the datapath costs nothing per packet: no throughput to predict")
    rate = cores / per_packet
    for h in holds:
        if h > 0:
            rate = min(rate, 1.0 / h)
    return rate * 1e9


def curve(scenario: Scenario, stages: Sequence[Stage], consts: Constants) -> list[float]:
    """The metric at each sweep value."""
    out = []
    for n in scenario.workload.values:
        x = throughput(stages, n, consts)
        out.append(x / n if scenario.metric.name == "pps_per_thread" else x)
    return out


def predict(scenario: Scenario, consts: Constants, alpha: float = 1.0, beta: float = 1.0
            ) -> tuple[list[float], list[float]]:
    """The metric before and after the patch, for calibrated costs (α, β)."""
    before = scaled(scenario.datapath, alpha, beta)
    after = transform(before, scenario.claim.mechanisms)
    return curve(scenario, before, consts), curve(scenario, after, consts)


def _rms(pred: Sequence[float], seen: Sequence[float]) -> float:
    return 100 * math.sqrt(sum(((p - s) / s) ** 2 for p, s in zip(pred, seen, strict=True))
                           / len(seen))


def _grid(free: set[str]) -> list[tuple[float, float]]:
    steps = [math.exp(math.log(0.05) + i * (math.log(20) - math.log(0.05)) / 60) for i in range(61)]
    alphas = steps if "private_ns" in free else [1.0]
    betas = steps if "critical_ns" in free else [1.0]
    return [(a, b) for a in alphas for b in betas]


def calibrate(scenario: Scenario, consts: Constants) -> tuple[float, float, float]:
    """(α, β, rms %) fitted on the baseline points only: a log grid, then two refinements."""
    assert scenario.claimed is not None
    values = scenario.workload.values
    points = scenario.calibration.points or values
    idx = [values.index(p) for p in points]
    seen = [scenario.claimed.before[i] for i in idx]
    free: set[str] = set(scenario.calibration.fit)

    def err(a: float, b: float) -> float:
        pred = curve(scenario, scaled(scenario.datapath, a, b), consts)
        return _rms([pred[i] for i in idx], seen)

    best = min(_grid(free), key=lambda ab: err(*ab))
    span = (20 / 0.05) ** (1 / 60)
    for _ in range(3):
        span = math.sqrt(span)
        around = [(best[0] * span ** i if "private_ns" in free else 1.0,
                   best[1] * span ** j if "critical_ns" in free else 1.0)
                  for i in range(-8, 9) for j in range(-8, 9)]
        best = min(around, key=lambda ab: err(*ab))
    return best[0], best[1], err(*best)


def judge(scenario: Scenario, consts: Constants) -> Verdict:
    """The verdict of SIMULATOR.md for a scenario with claimed figures."""
    values = tuple(scenario.workload.values)
    claimed = scenario.claimed
    if claimed is None:
        return Verdict(NO_MODEL, "the scenario holds no claimed figures to judge", values,
                       profile=consts.profile)
    if not scenario.claim.mechanisms:
        return Verdict(NO_MODEL, "no mechanism tag: nothing tells what the patch changes",
                       values, profile=consts.profile)
    if scenario.workload.tool in ("netperf", "super_netperf"):
        return Verdict(NO_MODEL, "request-response loads (netperf) are not modelled yet",
                       values, profile=consts.profile)
    ratio = tuple(a / b for a, b in zip(claimed.after, claimed.before, strict=True))
    # USL describes the whole system's throughput: a per-thread figure times the threads
    per = scenario.metric.name == "pps_per_thread"
    totals = [[x * n if per else x for x, n in zip(side, values, strict=True)]
              for side in (claimed.before, claimed.after)]
    usl_before = fit_usl(values, totals[0]) if len(values) >= 2 else None
    usl_after = fit_usl(values, totals[1]) if len(values) >= 2 else None
    points = scenario.calibration.points or list(values)
    free: set[str] = set(scenario.calibration.fit)
    if len(free) >= len(points):
        return _band(scenario, consts, ratio, usl_before, usl_after)
    alpha, beta, rms = calibrate(scenario, consts)
    before, after = predict(scenario, consts, alpha, beta)
    predicted = tuple(a / b for a, b in zip(after, before, strict=True))
    verdict, reason, missed = _compare(values, predicted, ratio)
    return Verdict(verdict, reason, values, tuple(before), tuple(after), predicted, ratio, rms,
                   alpha, beta, unexplained=missed, usl_before=usl_before,
                   usl_after=usl_after, profile=consts.profile)


def _compare(values: Sequence[int], predicted: Sequence[float], claimed: Sequence[float]
             ) -> tuple[str, str, tuple[int, ...]]:
    effect = max(abs(r - 1) for r in claimed)
    if effect >= 0.05:
        missed = tuple(v for v, q, r in zip(values, predicted, claimed, strict=True)
                       if abs(q / r - 1) > 0.10 or (abs(r - 1) > 2 * NOISE and (q - 1) * (r - 1) < 0))
        peak_c = max(range(len(claimed)), key=lambda i: claimed[i])
        peak_p = max(range(len(predicted)), key=lambda i: predicted[i])
        if not missed and peak_c == peak_p:
            return REPRODUCED, "predicted after/before within ±10 % at every point", ()
        if not missed:
            return NOT_REPRODUCED, (f"the predicted peak is at {values[peak_p]}, the "
                                    f"claimed one at {values[peak_c]}"), ()
        return NOT_REPRODUCED, ("predicted after/before more than 10 % from the claim at "
                                + ", ".join(str(v) for v in missed)), missed
    missed = tuple(v for v, q, r in zip(values, predicted, claimed, strict=True)
                   if abs(q - r) > 0.03 or (abs(r - 1) > 2 * NOISE and (q - 1) * (r - 1) < 0))
    if not missed:
        return REPRODUCED, "a small effect, right direction and within ±3 points", ()
    return WITHIN_NOISE, "a small effect the model does not resolve from noise", missed


def _band(scenario: Scenario, consts: Constants, ratio: Sequence[float], usl_before: USL | None, usl_after: USL | None) -> Verdict:
    """Too few baseline points for the free parameters: every (α, β) that fits the baseline
    within 5 % gives a predicted ratio; the claim is judged against their range."""
    assert scenario.claimed is not None
    values = tuple(scenario.workload.values)
    lows = [math.inf] * len(values)
    highs = [-math.inf] * len(values)
    found = False
    for a, b in _grid(set[str](scenario.calibration.fit)):
        before, after = predict(scenario, consts, a, b)
        if _rms(before, scenario.claimed.before) > 5.0:
            continue
        found = True
        for i, (x, y) in enumerate(zip(after, before, strict=True)):
            lows[i], highs[i] = min(lows[i], x / y), max(highs[i], x / y)
    if not found:
        return Verdict(NO_MODEL, "no cost of the stages fits the baseline within 5 %", values,
                       profile=consts.profile)
    band = tuple(zip(lows, highs, strict=True))
    inside = all(lo * 0.98 <= r <= hi * 1.02 for (lo, hi), r in zip(band, ratio, strict=True))
    centre = [(lo + hi) / 2 for lo, hi in band]
    band_pct = max(100 * (hi - lo) / 2 / c for (lo, hi), c in zip(band, centre, strict=True))
    words = ", ".join(f"{lo:.2f}–{hi:.2f}x" for lo, hi in band)
    if inside:
        return Verdict(CONSISTENT, f"the claim is inside the band the mechanism allows ({words})",
                       values, claimed_ratio=tuple(ratio), band=band, band_pct=band_pct,
                       usl_before=usl_before, usl_after=usl_after, profile=consts.profile)
    return Verdict(OUTSIDE_BAND, f"the claim is outside the band the mechanism allows ({words})",
                   values, claimed_ratio=tuple(ratio), band=band, band_pct=band_pct,
                   usl_before=usl_before, usl_after=usl_after, profile=consts.profile)
