"""From a scenario to a verdict: the datapath as a lock model, its calibration on the
baseline alone, the patched side predicted from the mechanism transform, and the rules of
docs/simulator.md for what counts as reproduced.

The model of a packet's path is the deterministic bottleneck bound: each core spends P
alone, then holds each lock r for its critical section S_r plus, when more than one core
runs, one cache-line transfer c (the lock's line, which the lines written under it follow);
shared lines written outside any lock serialize a transfer each. (Exponential-time lock
chains and a discrete-event engine were tried beside it; no verdict used them, and they left
the package with issue 21.) Calibration scales the private costs (α) and the critical sections
(β) the stages give, on the baseline only; the patched side is the transformed stages with
the same α and β, never refitted.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .chains import closed_station_throughput
from .errors import ModelError
from .scenario import Claimed, Scenario, Stage
from .status import Status
from .usl import USL, fit_usl

NOISE = 0.01  # relative run-to-run noise assumed when the mail gives none
TOLERANCE = 0.10  # how far a predicted after/before ratio may be from the claimed one
_SMALL_POINTS = 0.02  # a small effect's points are said to fit within 2 points

_PRIVATE_KINDS = ("private", "percpu", "rcu_read")


@dataclass(frozen=True, slots=True)
class Constants:
    """The platform's costs the model takes from a profile, never from another claim."""

    c_same_ns: float
    c_cross_ns: float
    cores_per_socket: int
    profile: str = ""
    cores: int = 1  # the servers of a request-response station

    def transfer_ns(self, cores: int) -> float:
        return self.c_same_ns if cores <= self.cores_per_socket else self.c_cross_ns


@dataclass(frozen=True, slots=True)
class Verdict:
    verdict: Status
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

    def at(self, point: int | None) -> dict[str, Any]:
        """The JSON contract's verdict object at one point of the sweep (a claim's own, or
        the largest claimed effect): the status, the change predicted there, the band there
        and the reason."""
        predicted = (round(100 * (self.predicted_ratio[point] - 1), 3)
                     if point is not None and self.predicted_ratio else None)
        band = ([round(100 * (x - 1), 2) for x in self.band[point]]
                if point is not None and self.band else None)
        evidence: dict[str, Any] = {"profile": self.profile, "sweep": list(self.values)}
        if predicted is not None:
            evidence["predicted_change_pct"] = predicted
        if band is not None:
            evidence["band_pct"] = band
        return {"status": self.verdict, "predicted_change_pct": predicted, "band_pct": band,
                "checks": [{"name": "model", "evidence": evidence, "result": str(self.verdict)}],
                "reason": self.reason}


def no_model(reason: str) -> dict[str, Any]:
    """The contract's verdict object of a claim whose scenario the models cannot run: no
    check applied."""
    return {"status": Status.NO_MODEL, "predicted_change_pct": None, "band_pct": None,
            "checks": [], "reason": reason}


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
    # a stage the scenario marks as taken out by one of the tags (skip_backlog's re-queue)
    return [s for s in out if s.removed_by is None or s.removed_by not in tags]


def scaled(stages: Sequence[Stage], alpha: float, beta: float, delta: float = 1.0
           ) -> list[Stage]:
    """The stages with calibrated costs: work done alone times α, work done under a lock
    (critical sections, lines written under it) times β, time off the CPUs times δ. Scaled
    before the mechanism transform, so a critical section that becomes private keeps its
    calibrated cost."""
    def factor(s: Stage) -> float:
        return delta if s.kind == "delay" else (beta if s.resource else alpha)

    return [s.model_copy(update={"cost_ns": s.cost_ns * factor(s)}) for s in stages]


def throughput(stages: Sequence[Stage], cores: int, consts: Constants) -> float:
    """Packets per second of `cores` cores through `stages` (the bound)."""
    c = consts.transfer_ns(cores) if cores > 1 else 0.0
    private = 0.0
    held: dict[str, float] = {}  # lock → critical ns
    free_lines = 0
    for s in stages:
        if s.frequency != "per_packet" or s.kind == "delay":
            continue  # per tick or per batch, or off the CPUs: nothing a flood waits for
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


def request_response(stages: Sequence[Stage], customers: int, consts: Constants) -> float:
    """Transactions per second of `customers` request-response loops (netperf TCP_RR
    instances) on the platform's cores: a closed M/M/m//N station whose service is the CPU
    work per transaction and whose think time is the time off the CPUs."""
    cpu = sum(s.cost_ns for s in stages if s.kind != "delay" and s.frequency == "per_packet")
    think = sum(s.cost_ns for s in stages if s.kind == "delay")
    if cpu <= 0 or think <= 0:
        raise ModelError("a request-response load needs CPU work and time off the CPUs "
                         "(a `delay` stage) per transaction")
    return closed_station_throughput(customers, consts.cores, think, cpu)


def curve(scenario: Scenario, stages: Sequence[Stage], consts: Constants) -> list[float]:
    """The metric at each sweep value."""
    out = []
    rr = scenario.workload.tool in _RR_TOOLS
    name = scenario.metric.name
    for n in scenario.workload.values:
        x = request_response(stages, n, consts) if rr else throughput(stages, n, consts)
        if name == "pps_per_thread":
            x /= n
        elif name in ("latency", "cpu"):
            x = 1e9 * n / x  # ns per operation and core (Little's law): the ratio inverts
        out.append(x)
    return out


_RR_TOOLS = ("netperf", "super_netperf")


def predict(scenario: Scenario, consts: Constants, alpha: float = 1.0, beta: float = 1.0,
            delta: float = 1.0) -> tuple[list[float], list[float]]:
    """The metric before and after the patch, for calibrated costs (α, β, δ)."""
    before = scaled(scenario.datapath, alpha, beta, delta)
    after = transform(before, scenario.claim.mechanisms)
    return curve(scenario, before, consts), curve(scenario, after, consts)


def _rms(pred: Sequence[float], seen: Sequence[float], magnitude: bool = True) -> float:
    """The RMS relative error in %. Without `magnitude` the prediction is first scaled by the
    factor that fits best (in log terms): only the curve's shape is compared, since the
    figures' size is in a unit the model does not compute."""
    if not magnitude:
        scale = math.exp(sum(math.log(s / p) for p, s in zip(pred, seen, strict=True)) / len(seen))
        pred = [p * scale for p in pred]
    return 100 * math.sqrt(sum(((p - s) / s) ** 2 for p, s in zip(pred, seen, strict=True))
                           / len(seen))


def _grid(free: Sequence[str], bounds: tuple[float, float], steps: int = 61
          ) -> list[dict[str, float]]:
    """Scale factors for the free costs on a log grid within `bounds` (fewer steps when three
    are free)."""
    low, high = math.log(bounds[0]), math.log(bounds[1])
    count = steps if len(free) < 3 else 15
    axis = [math.exp(low + i * (high - low) / (count - 1)) for i in range(count)]
    return [dict(zip(free, combo, strict=True))
            for combo in itertools.product(axis, repeat=len(free))]


_PARAMS = ("private_ns", "critical_ns", "delay_ns")


def calibrate(scenario: Scenario, consts: Constants) -> tuple[dict[str, float], float]:
    """The free scale factors (calibration.fit: α for private work, β for critical sections,
    δ for time off the CPUs) fitted on the baseline points only, and the fit's rms in %.
    A coarse log grid picks the start (the error surface has flat valleys where a bound
    switches), then Nelder–Mead refines it in log space."""
    assert scenario.claimed is not None
    values = scenario.workload.values
    idx = [values.index(p) for p in (scenario.calibration.points or values)]
    seen = [scenario.claimed.before[i] for i in idx]
    free = [p for p in _PARAMS if p in scenario.calibration.fit]

    def params(logs: Sequence[float]) -> dict[str, float]:
        return {name: math.exp(v) for name, v in zip(free, logs, strict=True)}

    def err(logs: Sequence[float]) -> float:
        pred = curve(scenario, _scaled(scenario, params(logs)), consts)
        return _rms([pred[i] for i in idx], seen, scenario.calibration.magnitude)

    if not free:
        return {}, err(())
    low, high = (math.log(b) for b in scenario.calibration.bounds)
    count = 9 if len(free) < 3 else 5
    steps = [low + i * (high - low) / (count - 1) for i in range(count)]
    start = min(itertools.product(steps, repeat=len(free)), key=err)

    def bounded(logs: Sequence[float]) -> float:  # the simplex stays within the bounds
        return err([min(high, max(low, v)) for v in logs])

    best = [min(high, max(low, v)) for v in _nelder_mead(bounded, list(start))]
    return params(best), err(best)


def _scaled(scenario: Scenario, params: dict[str, float]) -> list[Stage]:
    return scaled(scenario.datapath, params.get("private_ns", 1.0),
                  params.get("critical_ns", 1.0), params.get("delay_ns", 1.0))


def _nelder_mead(f: Callable[[Sequence[float]], float], x0: list[float], step: float = 0.4,
                 iterations: int = 300, tolerance: float = 1e-9) -> list[float]:
    """Minimise f from x0 (Nelder and Mead, 1965: reflect, expand, contract, shrink)."""
    simplex = [x0] + [[v + (step if i == j else 0.0) for j, v in enumerate(x0)]
                      for i in range(len(x0))]
    scores = [f(x) for x in simplex]
    for _ in range(iterations):
        order = sorted(range(len(simplex)), key=scores.__getitem__)
        simplex, scores = [simplex[i] for i in order], [scores[i] for i in order]
        if scores[-1] - scores[0] < tolerance:
            break
        centre = [sum(x[j] for x in simplex[:-1]) / (len(simplex) - 1) for j in range(len(x0))]
        worst = simplex[-1]
        reflected = [c + (c - w) for c, w in zip(centre, worst, strict=True)]
        fr = f(reflected)
        if fr < scores[0]:
            expanded = [c + 2 * (c - w) for c, w in zip(centre, worst, strict=True)]
            fe = f(expanded)
            simplex[-1], scores[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < scores[-2]:
            simplex[-1], scores[-1] = reflected, fr
        else:
            contracted = [c + 0.5 * (w - c) for c, w in zip(centre, worst, strict=True)]
            fc = f(contracted)
            if fc < scores[-1]:
                simplex[-1], scores[-1] = contracted, fc
            else:
                best = simplex[0]
                simplex = [best] + [[b + 0.5 * (v - b) for b, v in zip(best, x, strict=True)]
                                    for x in simplex[1:]]
                scores = [scores[0]] + [f(x) for x in simplex[1:]]
    return simplex[min(range(len(simplex)), key=scores.__getitem__)]


def judge(scenario: Scenario, consts: Constants) -> Verdict:
    """The verdict (docs/simulator.md) for a scenario with claimed figures. Figures no model can
    compute with (an overflow in a fit) are a ModelError, as bad input is."""
    try:
        return _judge(scenario, consts)
    except (ArithmeticError, ValueError) as exc:
        if isinstance(exc, ModelError):
            raise
        raise ModelError(f"scenario {scenario.id}: the figures overflow the models ({exc})") from None


def _judge(scenario: Scenario, consts: Constants) -> Verdict:
    values = tuple(scenario.workload.values)
    claimed = scenario.claimed
    if claimed is None:
        return Verdict(Status.NO_MODEL, "the scenario holds no claimed figures to judge", values,
                       profile=consts.profile)
    if not scenario.claim.mechanisms:
        return Verdict(Status.NO_MODEL, "no mechanism found: neither a diff nor the words of the "
                       "mail name a change patchperf models (a lock dropped, per-cpu counters, "
                       "RCU, the netif_rx backlog skipped, lastuse once per tick)",
                       values, profile=consts.profile)
    rr = scenario.workload.tool in _RR_TOOLS
    if (scenario.metric.name == "trans_per_s" and not rr) or (
            rr and scenario.metric.name in ("pps", "pps_per_thread", "bps", "rate")):
        return Verdict(Status.NO_MODEL, f"a {scenario.metric.name} metric for a "
                       f"{scenario.workload.tool} load is not a model patchperf has", values,
                       profile=consts.profile)
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
    fitted, rms = _remembered(_FITS, scenario, consts, False, lambda: calibrate(scenario, consts))
    alpha, beta = fitted.get("private_ns", 1.0), fitted.get("critical_ns", 1.0)
    before, after = predict(scenario, consts, alpha, beta, fitted.get("delay_ns", 1.0))
    if not scenario.calibration.magnitude:
        # shown in the claim's unit: the scale the fit compared the shape at (ratios keep)
        scale = math.exp(sum(math.log(s / p) for p, s in zip(before, claimed.before, strict=True))
                         / len(before))
        before, after = [x * scale for x in before], [x * scale for x in after]
    predicted = tuple(a / b for a, b in zip(after, before, strict=True))
    verdict, reason, missed = _compare(values, predicted, ratio, noise_of(claimed, rms))
    return Verdict(verdict, reason, values, tuple(before), tuple(after), predicted, ratio, rms,
                   alpha, beta, unexplained=missed, usl_before=usl_before,
                   usl_after=usl_after, profile=consts.profile)


def noise_of(claimed: Claimed, rms_pct: float | None = None) -> float:
    """The relative noise of the claimed figures: the largest of the baseline fit's RMS error,
    the ± the mail states and the assumed NOISE."""
    return max(NOISE, (rms_pct or 0.0) / 100, (claimed.noise_pct or 0.0) / 100)


# A ratio this close to 1 is no change: a model that predicts none computes 1 give or take
# the last bit (0.9999999999999999 or 1.0000000000000002 as the constants round), and no
# verdict may turn on which.
_RATIO_EPS = 1e-9


def _direction(ratio: float) -> int:
    """+1 for a rise, -1 for a fall, 0 for no change (within _RATIO_EPS of 1)."""
    if abs(ratio - 1) <= _RATIO_EPS:
        return 0
    return 1 if ratio > 1 else -1


def _pct(ratio: float) -> str:
    return f"{100 * (ratio - 1):+.1f} %"


def _compare(values: Sequence[int], predicted: Sequence[float], claimed: Sequence[float],
             noise: float) -> tuple[Status, str, tuple[int, ...]]:
    """The verdict rules of docs/simulator.md, in their order. `noise` is the relative error
    the baseline carries (the fit's RMS error, a ± the mail states, at least NOISE): a
    claimed effect no larger than it cannot be told from no change. The points the
    prediction misses are named in the reason with both figures, not hidden in an average."""
    rows = list(zip(values, predicted, claimed, strict=True))
    top = max(range(len(claimed)), key=lambda i: abs(claimed[i] - 1))
    q_top, r_top = predicted[top], claimed[top]
    effect = abs(r_top - 1)

    def named(points: Sequence[int]) -> str:
        return ", ".join(f"{v} (claimed {_pct(r)}, predicted {_pct(q)})"
                         for v, q, r in rows if v in points)

    missed = tuple(v for v, q, r in rows if abs(q / r - 1) > TOLERANCE)
    # an effect the mechanism predicts (at least twice the tolerance) that the claim lacks
    unshown = tuple(v for v, q, r in rows
                    if abs(q - 1) >= 2 * TOLERANCE and abs(q / r - 1) > TOLERANCE)
    if effect <= noise:
        also = f"; the mechanism predicts {named(unshown)}" if unshown else ""
        return Status.WITHIN_NOISE, (f"the claimed effect (at most {100 * effect:.1f} %) is no "
                                     f"larger than the baseline's noise ({100 * noise:.1f} %)"
                                     f"{also}"), unshown
    if _direction(q_top) * _direction(r_top) < 0:
        return Status.NOT_REPRODUCED, (f"the model predicts the other way at {values[top]}: "
                                       f"claimed {_pct(r_top)}, predicted {_pct(q_top)}"
                                       ), (values[top],)
    if unshown:
        return Status.NOT_REPRODUCED, ("the model predicts an effect the claim does not show "
                                       f"at {named(unshown)}"), unshown
    if effect <= TOLERANCE:
        # no change is within the tolerance of every point: no model can beat it
        off = tuple(v for v, q, r in rows if abs(q - r) > _SMALL_POINTS)
        kept = [str(v) for v in values if v not in off]
        fits = (f"; predicted within 2 points at {', '.join(kept)}" if kept else "")
        miss = f"; not at {named(off)}" if off else ""
        return Status.WITHIN_NOISE, (f"the claimed effect (at most {100 * effect:.1f} %) is "
                                     f"within the ±{100 * TOLERANCE:.0f} % tolerance, where no "
                                     f"change fits as well{fits}{miss}"), off
    if missed:
        return Status.NOT_REPRODUCED, ("predicted after/before more than "
                                       f"{100 * TOLERANCE:.0f} % from the claim at "
                                       f"{named(missed)}"), missed
    if _direction(q_top) == 0:
        return Status.NOT_REPRODUCED, (f"the model predicts no change at {values[top]}, where "
                                       f"the claim is {_pct(r_top)}"), (values[top],)
    # the same peak: the point the prediction peaks at is also a claimed peak, within noise
    sign = 1 if r_top > 1 else -1
    peak_p = max(range(len(predicted)), key=lambda i: sign * (predicted[i] - 1))
    if sign * (claimed[peak_p] - 1) < sign * (r_top - 1) - 2 * NOISE:
        return Status.NOT_REPRODUCED, (f"the predicted peak is at {values[peak_p]}, the "
                                       f"claimed one at {values[top]}"), ()
    return Status.REPRODUCED, (f"predicted after/before within ±{100 * TOLERANCE:.0f} % at every "
                               f"point, and the claimed {_pct(r_top)} at {values[top]} is beyond "
                               f"both the tolerance and the baseline's noise "
                               f"({100 * noise:.1f} %)"), ()


# A band is tried against ratios drawn log-uniformly from this range (issue 21): one that
# takes in more than half of them says little whichever way a claim falls.
_CONTROL_LOW, _CONTROL_HIGH = 0.5, 10.0


def band_share(low: float, high: float) -> float:
    """The share of ratios log-uniform in [0.5x, 10x] that fall in [low, high]."""
    lo, hi = max(low, _CONTROL_LOW), min(high, _CONTROL_HIGH)
    if hi <= lo:
        return 0.0
    return math.log(hi / lo) / math.log(_CONTROL_HIGH / _CONTROL_LOW)


def _band_edges(scenario: Scenario, consts: Constants) -> tuple[tuple[float, float], ...] | None:
    """The lowest and highest predicted ratio at each point over every grid of costs that
    fits the baseline within 5 %; None when none does."""
    assert scenario.claimed is not None
    free = [p for p in _PARAMS if p in scenario.calibration.fit]
    lows = [math.inf] * len(scenario.workload.values)
    highs = [-math.inf] * len(scenario.workload.values)
    found = False
    for params in _grid(free, scenario.calibration.bounds):
        before, after = predict(scenario, consts, params.get("private_ns", 1.0),
                                params.get("critical_ns", 1.0), params.get("delay_ns", 1.0))
        if _rms(before, scenario.claimed.before, scenario.calibration.magnitude) > 5.0:
            continue
        found = True
        for i, (x, y) in enumerate(zip(after, before, strict=True)):
            lows[i], highs[i] = min(lows[i], x / y), max(highs[i], x / y)
    return tuple(zip(lows, highs, strict=True)) if found else None


# Calibrations and bands depend on the baseline, the datapath and the platform, never on the
# claimed after figures: the negative controls (controls.py) judge many after columns on one
# baseline, and each costs a fit (or a grid of 3,721 predictions) without these.
_FITS: dict[tuple[str, Constants], Any] = {}
_BANDS: dict[tuple[str, Constants], Any] = {}
_REMEMBERED = 64


def _remembered(cache: dict[tuple[str, Constants], Any], scenario: Scenario, consts: Constants,
                with_mechanisms: bool, compute: Callable[[], Any]) -> Any:
    exclude: dict[str, Any] = {"claimed": {"after"}, "commands": True, "title": True, "id": True}
    if not with_mechanisms:
        exclude["claim"] = True
    key = (scenario.model_dump_json(exclude=exclude), consts)
    if key not in cache:
        if len(cache) >= _REMEMBERED:
            cache.pop(next(iter(cache)))
        cache[key] = compute()
    return cache[key]


def _band(scenario: Scenario, consts: Constants, ratio: Sequence[float], usl_before: USL | None,
          usl_after: USL | None) -> Verdict:
    """No more baseline points than free costs: every set of costs within the calibration
    bounds that fits the baseline within 5 % gives a predicted ratio, and the claim is
    judged against their range (with the noise assumed, 2 %, as slack). The band's edges are
    what the bounds allow: the reason says which bounds."""
    assert scenario.claimed is not None
    values = tuple(scenario.workload.values)
    edges = _remembered(_BANDS, scenario, consts, True, lambda: _band_edges(scenario, consts))
    low_bound, high_bound = scenario.calibration.bounds
    if edges is None:
        return Verdict(Status.NO_MODEL, f"no costs within {low_bound:g}–{high_bound:g}x of the stages' "
                       "priors fit the baseline within 5 %", values, profile=consts.profile)
    band = edges
    slack = 2 * NOISE
    # what the band accepts: its edges widened by the noise assumed, and said so
    accepted = [(lo * (1 - slack), hi * (1 + slack)) for lo, hi in band]
    inside = all(lo <= r <= hi for (lo, hi), r in zip(accepted, ratio, strict=True))
    centre = [(lo + hi) / 2 for lo, hi in band]
    band_pct = max(100 * (hi - lo) / 2 / c for (lo, hi), c in zip(band, centre, strict=True))
    words = (", ".join(f"{lo:.2f}–{hi:.2f}x" for lo, hi in band)
             + f", {100 * slack:.0f} % either side for noise: "
             + ", ".join(f"{lo:.2f}–{hi:.2f}x" for lo, hi in accepted)
             + f"; costs within {low_bound:g}–{high_bound:g}x of the stages' priors"
             + ("" if scenario.calibration.magnitude else
                ", in any proportion: the baseline's size fixes none of them"))
    share = max(band_share(lo, hi) for lo, hi in accepted)
    if share > 0.5:
        words += (f"; too wide to discriminate: it takes in {100 * share:.0f} % of ratios "
                  f"between {_CONTROL_LOW:g}x and {_CONTROL_HIGH:g}x")
    top = max(range(len(ratio)), key=lambda i: abs(ratio[i] - 1))
    effect, noise = abs(ratio[top] - 1), noise_of(scenario.claimed)
    if effect <= max(noise, TOLERANCE):
        # no change fits such a claim within the tolerance: no band can tell it apart
        status, reason = Status.WITHIN_NOISE, (
            f"the claimed effect (at most {100 * effect:.1f} %) is within the "
            f"±{100 * TOLERANCE:.0f} % tolerance, where no change fits as well (the band: {words})")
    else:
        status = Status.CONSISTENT if inside else Status.OUTSIDE_BAND
        where = "inside" if inside else "outside"
        reason = f"the claim is {where} the band the mechanism allows ({words})"
    return Verdict(status, reason, values, claimed_ratio=tuple(ratio), band=band,
                   band_pct=band_pct, usl_before=usl_before, usl_after=usl_after,
                   profile=consts.profile)
