"""The simulator's engine against closed forms (issue 4, acceptance 4): the chains against
formulas worked by hand, the DES against M/M/1, M/D/1 and the lock chain, USL on a synthetic
series."""

from __future__ import annotations

import math

import pytest

from analyze.sim.chains import (
    bottleneck_bound,
    closed_station_throughput,
    lock_throughput,
    stationary,
)
from analyze.sim.des import Dist, simulate_lock, simulate_open_queue
from analyze.sim.errors import ModelError
from analyze.sim.usl import fit_usl


def test_stationary_two_states() -> None:
    p = stationary(1, lambda k: 3.0, lambda k: 1.0)
    assert p == pytest.approx([0.25, 0.75])


def test_stationary_survives_many_states() -> None:
    p = stationary(2000, lambda k: 1e6, lambda k: 1e-6)  # products far beyond a float
    assert sum(p) == pytest.approx(1.0) and p[-1] == pytest.approx(1.0)


@pytest.mark.parametrize("queued, handoff", [(True, 30.0), (False, 15.0)])
def test_one_core_takes_the_lock_each_round(queued: bool, handoff: float) -> None:
    # private 100 ns, critical 50 ns, hand-off c (queued) or c/2 (ticket, one core)
    x = lock_throughput(1, 100.0, 50.0, 30.0, queued=queued)
    assert x == pytest.approx(1e9 / (100.0 + 50.0 + handoff))


def test_two_core_queued_lock_by_hand() -> None:
    # a = 100, h = s + c = 50: P1/P0 = (2/a)·h = 1, P2/P1 = (1/a)·h = 0.5
    # P = (1, 1, 0.5)/2.5; X = (P1 + P2)/h = 0.6/50 per ns
    assert lock_throughput(2, 100.0, 40.0, 10.0) == pytest.approx(0.6 / 50 * 1e9)


def test_two_core_ticket_lock_by_hand() -> None:
    # h1 = s + c/2 = 45, h2 = s + c = 50: P1/P0 = 2·45/100, P2/P1 = 50/100
    p0, p1 = 1.0, 0.9
    p2 = p1 * 0.5
    total = p0 + p1 + p2
    expected = (p1 / 45 + p2 / 50) / total * 1e9
    assert lock_throughput(2, 100.0, 40.0, 10.0, queued=False) == pytest.approx(expected)


def test_a_ticket_lock_collapses_where_a_queued_one_holds() -> None:
    queued = [lock_throughput(n, 200.0, 20.0, 60.0) for n in (4, 16, 48)]
    ticket = [lock_throughput(n, 200.0, 20.0, 60.0, queued=False) for n in (4, 16, 48)]
    assert queued[2] >= queued[1] * 0.99  # a plateau
    assert ticket[2] < ticket[1] < ticket[0] * 1.5  # hand-off cost grows with waiters
    assert ticket[2] < 0.5 * queued[2]


def _mva_single_server(customers: int, think: float, service: float) -> float:
    """Exact mean value analysis for one server (stable in that case)."""
    queue = 0.0
    x = 0.0
    for n in range(1, customers + 1):
        response = service * (1 + queue)
        x = n / (think + response)
        queue = x * response
    return x


@pytest.mark.parametrize("customers", [1, 2, 7, 40])
def test_closed_station_one_server_is_mva(customers: int) -> None:
    got = closed_station_throughput(customers, 1, 1000.0, 150.0)
    assert got == pytest.approx(_mva_single_server(customers, 1000.0, 150.0) * 1e9, rel=1e-9)


def test_closed_station_limits() -> None:
    assert closed_station_throughput(1, 4, 900.0, 100.0) == pytest.approx(1e9 / 1000.0)
    assert closed_station_throughput(5000, 4, 900.0, 100.0) == pytest.approx(4e9 / 100.0, rel=1e-6)


def test_bottleneck_bound() -> None:
    assert bottleneck_bound(2, 100.0, 50.0) == pytest.approx(2e9 / 150.0)
    assert bottleneck_bound(8, 100.0, 50.0) == pytest.approx(1e9 / 50.0)


def test_mm1_response_time() -> None:
    # λ = 1/100 ns, μ = 1/70 ns: W = 1/(μ − λ) = 233.3 ns
    run = simulate_open_queue(100.0, Dist(70.0, cv=1.0), customers=200_000, seed=3)
    assert run.mean_response_ns == pytest.approx(1 / (1 / 70.0 - 1 / 100.0), rel=0.02)


def test_md1_response_time() -> None:
    # Pollaczek–Khinchine, deterministic service: W = S + ρS/(2(1 − ρ))
    s, rho = 70.0, 0.7
    run = simulate_open_queue(100.0, Dist(s), customers=200_000, seed=3)
    assert run.mean_response_ns == pytest.approx(s + rho * s / (2 * (1 - rho)), rel=0.02)


@pytest.mark.parametrize("threads", [1, 2, 4, 8])
def test_des_lock_matches_the_chain_with_exponential_times(threads: int) -> None:
    run = simulate_lock(threads, Dist(300.0, cv=1.0), Dist(40.0, cv=1.0), 0.0,
                        packets=100_000, seed=threads)
    # the chain's hold time is exponential with mean s + c: c = 0 here, all of it random
    assert run.pps == pytest.approx(lock_throughput(threads, 300.0, 40.0, 0.0), rel=0.02)


def test_des_lock_deterministic_times() -> None:
    one = simulate_lock(1, Dist(100.0), Dist(50.0), 30.0, packets=1000)
    assert one.pps == pytest.approx(1e9 / 180.0)
    # saturated: the lock is always busy, each hold s + c
    many = simulate_lock(8, Dist(100.0), Dist(50.0), 30.0, packets=10_000)
    assert many.pps == pytest.approx(1e9 / 80.0)
    # below the bend a deterministic load sees no queueing at all; the exponential chain does
    two = simulate_lock(2, Dist(1000.0), Dist(50.0), 0.0, packets=10_000)
    assert two.pps == pytest.approx(2e9 / 1050.0, rel=1e-6)
    assert lock_throughput(2, 1000.0, 50.0, 0.0) < two.pps


def test_same_seed_same_numbers() -> None:
    a = simulate_lock(4, Dist(200.0, cv=0.5), Dist(30.0, cv=0.3), 40.0, packets=20_000, seed=9)
    b = simulate_lock(4, Dist(200.0, cv=0.5), Dist(30.0, cv=0.3), 40.0, packets=20_000, seed=9)
    c = simulate_lock(4, Dist(200.0, cv=0.5), Dist(30.0, cv=0.3), 40.0, packets=20_000, seed=10)
    assert a == b and a != c


def test_usl_recovers_its_parameters() -> None:
    sigma, kappa, lam = 0.05, 0.002, 1000.0
    n = [1, 2, 4, 8, 16, 32]
    x = [lam * k / (1 + sigma * (k - 1) + kappa * k * (k - 1)) for k in n]
    fit = fit_usl(n, x)
    assert fit.sigma == pytest.approx(sigma, rel=0.02)
    assert fit.kappa == pytest.approx(kappa, rel=0.02)
    assert fit.lam == pytest.approx(lam, rel=0.01)
    assert fit.rms_pct < 0.1


def test_usl_of_linear_scaling() -> None:
    fit = fit_usl([1, 2, 4], [10.0, 20.0, 40.0])
    assert fit.sigma == pytest.approx(0.0, abs=1e-6) and fit.kappa == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("call", [
    lambda: lock_throughput(0, 1.0, 1.0, 1.0),
    lambda: lock_throughput(2, -1.0, 1.0, 1.0),
    lambda: lock_throughput(2, 1.0, math.nan, 1.0),
    lambda: closed_station_throughput(3, 0, 1.0, 1.0),
    lambda: simulate_lock(2, Dist(1.0), Dist(1.0), 0.0, packets=10**12),
    lambda: simulate_lock(2, Dist(0.0), Dist(0.0), 0.0),
    lambda: simulate_open_queue(50.0, Dist(80.0)),
    lambda: Dist(-5.0),
    lambda: Dist(5.0, cv=math.inf),
    lambda: fit_usl([1], [1.0]),
    lambda: fit_usl([1, 2], [1.0, -2.0]),
])
def test_nonsense_is_a_model_error(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ModelError):
        call()


def test_a_lock_held_for_no_time_is_refused() -> None:
    with pytest.raises(ModelError):
        lock_throughput(2, 10.0, 0.0, 0.0)


def test_des_ticket_lock_hand_off_grows_with_waiters() -> None:
    # saturated and deterministic: a hold starts as its predecessor leaves for its private
    # work, so n − 1 threads hold or wait: a ticket lock's hand-off is c·(n − 1)/2, a queued
    # lock's c
    s, c, n = 50.0, 20.0, 8
    ticket = simulate_lock(n, Dist(10.0), Dist(s), c, queued=False, packets=20_000)
    queued = simulate_lock(n, Dist(10.0), Dist(s), c, queued=True, packets=20_000)
    assert ticket.pps == pytest.approx(1e9 / (s + c * (n - 1) / 2), rel=1e-3)
    assert queued.pps == pytest.approx(1e9 / (s + c), rel=1e-3)
