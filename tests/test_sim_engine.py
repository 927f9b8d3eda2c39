"""The simulator's models against closed forms (issue 4, acceptance 4): the bound and the
chain worked by hand, the closed station against mean value analysis, USL on a synthetic
series."""

from __future__ import annotations

import math

import pytest

from analyze.sim.chains import closed_station_throughput, stationary
from analyze.sim.errors import ModelError
from analyze.sim.predict import Constants, throughput
from analyze.sim.scenario import Stage
from analyze.sim.usl import fit_usl


def test_stationary_two_states() -> None:
    p = stationary(1, lambda k: 3.0, lambda k: 1.0)
    assert p == pytest.approx([0.25, 0.75])


def test_stationary_survives_many_states() -> None:
    p = stationary(2000, lambda k: 1e6, lambda k: 1e-6)  # products far beyond a float
    assert sum(p) == pytest.approx(1.0) and p[-1] == pytest.approx(1.0)


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


def test_the_bound_by_hand() -> None:
    """150 ns alone, 80 ns under a lock and a 20 ns counter written under it, transfers of
    40 ns: one core runs 1e9/250 pps; two share the hold (80 + 20 + 40 = 140 ns), which
    caps them at 1e9/140 while 2/(150 + 140) would allow more."""
    stages = [Stage(name="alone", cost_ns=150.0, kind="private"),
              Stage(name="held", cost_ns=80.0, kind="lock", resource="l"),
              Stage(name="counter", cost_ns=20.0, kind="shared_line", resource="l")]
    consts = Constants(c_same_ns=40.0, c_cross_ns=120.0, cores_per_socket=8)
    assert throughput(stages, 1, consts) == pytest.approx(1e9 / 250)
    assert throughput(stages, 2, consts) == pytest.approx(2e9 / 290)
    assert throughput(stages, 4, consts) == pytest.approx(1e9 / 140)
    assert throughput(stages, 16, consts) == pytest.approx(1e9 / 220)  # across sockets


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
    lambda: closed_station_throughput(3, 0, 1.0, 1.0),
    lambda: closed_station_throughput(0, 2, 1.0, 1.0),
    lambda: closed_station_throughput(3, 2, math.nan, 1.0),
    lambda: closed_station_throughput(3, 2, 1.0, -1.0),
    lambda: fit_usl([1], [1.0]),
    lambda: fit_usl([1, 2], [1.0, -2.0]),
])
def test_nonsense_is_a_model_error(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ModelError):
        call()


