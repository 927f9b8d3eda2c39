"""Birth–death chains solved for their stationary distribution, and the model the verdicts
build on them: a closed station of m servers for N customers.

The closed station (request–response load, netperf TCP_RR with N instances): a customer
thinks for an exponential time of mean Z, then is served at one of m servers (exponential,
mean S). Solved as a chain rather than with the MVA recursion, which is numerically
unstable for multi-server stations.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .errors import ModelError


def stationary(n: int, up: Callable[[int], float], down: Callable[[int], float]) -> list[float]:
    """P_0..P_n of a birth–death chain on 0..n with rates up(k) (k → k+1), down(k) (k → k−1).
    Computed with logarithms: the products of rates overflow for a few hundred states."""
    if n < 0:
        raise ModelError(f"a chain needs at least one state, got n={n}")
    logs = [0.0]
    for k in range(n):
        u, d = up(k), down(k + 1)
        if u <= 0:
            logs += [-math.inf] * (n - k)
            break
        if not d > 0:
            raise ModelError(f"the chain has no way down from state {k + 1}")
        logs.append(logs[-1] + math.log(u) - math.log(d))
    top = max(logs)
    weights = [math.exp(x - top) for x in logs]
    total = sum(weights)
    return [w / total for w in weights]


def closed_station_throughput(customers: int, servers: int, think_ns: float,
                              service_ns: float) -> float:
    """Completions per second of a closed M/M/m//N station (machine-repairman model)."""
    _check(customers=customers, servers=servers, think_ns=think_ns, service_ns=service_ns)
    if servers < 1:
        raise ModelError(f"a station needs at least one server, got {servers}")

    def down(k: int) -> float:
        return min(k, servers) / service_ns

    p = stationary(customers, lambda k: (customers - k) / think_ns, down)
    return 1e9 * sum(p[k] * down(k) for k in range(1, customers + 1))


def _check(**values: float) -> None:
    for name, value in values.items():
        if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
            raise ModelError(f"{name} must be a finite number ≥ 0, got {value!r}")
    for name in ("customers",):
        if name in values and values[name] < 1:
            raise ModelError(f"{name} must be at least 1, got {values[name]!r}")
    for name in ("think_ns", "service_ns"):
        if name in values and values[name] <= 0:
            raise ModelError(f"{name} must be above 0, got {values[name]!r}")
