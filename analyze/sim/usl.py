"""Gunther's Universal Scalability Law, C(N) = N / (1 + σ(N−1) + κN(N−1)), fitted to a
series: descriptive only (it fits a curve, it cannot turn a patch into a parameter change),
reported beside the model for any series (docs/simulator.md)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import ModelError


@dataclass(frozen=True, slots=True)
class USL:
    sigma: float  # contention
    kappa: float  # coherency (crosstalk)
    lam: float  # throughput of one unit (X(1))
    rms_pct: float  # of the fit, in percent of each point

    def throughput(self, n: float) -> float:
        return self.lam * n / (1 + self.sigma * (n - 1) + self.kappa * n * (n - 1))


def fit_usl(n: Sequence[float], x: Sequence[float]) -> USL:
    """σ, κ ≥ 0 and λ by least squares on relative errors. For fixed λ the USL is linear in
    σ and κ once inverted (λN/X − 1 = σ(N−1) + κN(N−1)); λ is searched around the best
    single-unit estimate (golden section), σ and κ solved in closed form for each λ."""
    if len(n) != len(x) or len(n) < 2:
        raise ModelError("a USL fit needs at least two (N, X) points")
    if any(not (math.isfinite(v) and v > 0) for v in (*n, *x)):
        raise ModelError("USL points must be finite and above 0")

    def solve(lam: float) -> USL:
        # minimise Σ ((λN/X − 1) − σa − κb)² over σ, κ ≥ 0
        rows = [(nn - 1.0, nn * (nn - 1.0), lam * nn / xx - 1.0) for nn, xx in zip(n, x, strict=True)]
        best: tuple[float, float, float] | None = None
        for sigma, kappa in _candidates(rows):
            err = _rms(lam, sigma, kappa, n, x)
            if best is None or err < best[0]:
                best = (err, sigma, kappa)
        assert best is not None
        return USL(best[1], best[2], lam, best[0])

    first = min(range(len(n)), key=lambda i: n[i])
    guess = x[first] / n[first]
    lo, hi = guess * 0.5, guess * 2.0
    ratio = (math.sqrt(5) - 1) / 2
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = solve(a), solve(b)
    for _ in range(80):
        if fa.rms_pct <= fb.rms_pct:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = solve(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = solve(b)
    return fa if fa.rms_pct <= fb.rms_pct else fb


def _candidates(rows: list[tuple[float, float, float]]) -> list[tuple[float, float]]:
    """Non-negative least-squares solutions of y = σa + κb: the free optimum if both are
    ≥ 0, else the best with one of them at 0."""
    saa = sum(a * a for a, _, _ in rows)
    sbb = sum(b * b for _, b, _ in rows)
    sab = sum(a * b for a, b, _ in rows)
    say = sum(a * y for a, _, y in rows)
    sby = sum(b * y for _, b, y in rows)
    out = [(0.0, 0.0)]
    if saa > 0:
        out.append((max(0.0, say / saa), 0.0))
    if sbb > 0:
        out.append((0.0, max(0.0, sby / sbb)))
    det = saa * sbb - sab * sab
    if det > 1e-12 * max(1.0, saa * sbb):
        sigma = (say * sbb - sby * sab) / det
        kappa = (sby * saa - say * sab) / det
        if sigma >= 0 and kappa >= 0:
            out.append((sigma, kappa))
    return out


def _rms(lam: float, sigma: float, kappa: float, n: Sequence[float], x: Sequence[float]) -> float:
    errs = [(lam * nn / (1 + sigma * (nn - 1) + kappa * nn * (nn - 1)) - xx) / xx
            for nn, xx in zip(n, x, strict=True)]
    return 100.0 * math.sqrt(sum(e * e for e in errs) / len(errs))
