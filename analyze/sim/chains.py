"""Birth–death chains solved for their stationary distribution, and the two models built on
them: a spinlock shared by n cores, and a closed station of m servers for N customers.

The lock (Boyd-Wickizer, Kaashoek, Morris, Zeldovich, "Non-scalable locks are dangerous",
Linux Symposium 2012): state k is the number of cores holding or waiting for the lock. A core
outside the lock asks for it after an exponential time of mean `a` (its private work), so
the chain moves up at (n − k)/a. The holder leaves after the critical section `s` plus the
hand-off: a ticket lock's waiters all watch one line, so passing it costs c·k/2 (c: one
cache-line transfer); a queued lock (MCS, Linux's qspinlock since 4.2) passes it in a
constant c. Every acquisition is one packet: throughput = Σ P_k · service rate_k.

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


def lock_throughput(n: int, private_ns: float, critical_ns: float, transfer_ns: float,
                    queued: bool = True) -> float:
    """Acquisitions (packets) per second of n cores sharing one spinlock; exponential times.

    `private_ns`: work outside the lock between acquisitions; `critical_ns`: inside it;
    `transfer_ns`: one cache-line transfer (hand-off cost: constant for a queued lock, c·k/2
    for a ticket lock with k cores waiting or holding)."""
    _check(n=n, private_ns=private_ns, critical_ns=critical_ns, transfer_ns=transfer_ns)

    if critical_ns + transfer_ns <= 0:
        raise ModelError("a lock held for no time at all is no lock: critical_ns + transfer_ns is 0")

    def hold(k: int) -> float:
        return critical_ns + (transfer_ns if queued else transfer_ns * k / 2.0)

    p = stationary(n, lambda k: (n - k) / private_ns, lambda k: 1.0 / hold(k))
    return 1e9 * sum(p[k] / hold(k) for k in range(1, n + 1))


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
    for name in ("n", "customers"):
        if name in values and values[name] < 1:
            raise ModelError(f"{name} must be at least 1, got {values[name]!r}")
    for name in ("private_ns", "think_ns", "service_ns"):
        if name in values and values[name] <= 0:
            raise ModelError(f"{name} must be above 0, got {values[name]!r}")


def bottleneck_bound(n: int, private_ns: float, serial_ns: float) -> float:
    """The deterministic bound of n workers that each spend `private_ns` alone and then
    `serial_ns` in a section one at a time: min(n/(private+serial), 1/serial), per second."""
    _check(n=n, private_ns=private_ns, serial_ns=serial_ns)
    rate = n / (private_ns + serial_ns)
    if serial_ns > 0:
        rate = min(rate, 1.0 / serial_ns)
    return 1e9 * rate
