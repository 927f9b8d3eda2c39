"""Issue 4, acceptance 5: the simulator's discrete-event engine against SimPy on the same
lock model, and its convergence. Printed by `make bench` beside the other figures.

Both simulate n threads that each work alone, then take one FIFO lock for the critical
section plus a hand-off, with the same times and the same packet count; the figure compared
is simulated packets per second of wall time (events differ between engines, packets don't).
"""

from __future__ import annotations

import time

from analyze.sim.des import Dist, simulate_lock

THREADS = 4
PRIVATE, CRITICAL, TRANSFER = 300.0, 40.0, 50.0  # ns; cv 0.5 and 0.3 below
PACKETS = 200_000


def simpy_lock(packets: int, seed: int = 1) -> float:
    """The same model written the way SimPy is meant to be used; its packets per second."""
    import random

    import simpy

    rng = random.Random(seed)
    env = simpy.Environment()
    lock = simpy.Resource(env, capacity=1)
    done = [0]
    shape_p, scale_p = 1 / 0.25, PRIVATE * 0.25
    shape_c, scale_c = 1 / 0.09, CRITICAL * 0.09

    def thread(env: simpy.Environment):  # type: ignore[no-untyped-def]
        while done[0] < packets:
            yield env.timeout(rng.gammavariate(shape_p, scale_p))
            with lock.request() as req:
                yield req
                yield env.timeout(rng.gammavariate(shape_c, scale_c) + TRANSFER)
            done[0] += 1

    for _ in range(THREADS):
        env.process(thread(env))
    start = time.perf_counter()
    env.run()
    return done[0] / (time.perf_counter() - start)


def ours(packets: int, seed: int = 1) -> tuple[float, float]:
    """(simulated packets per wall second, simulated throughput in pps)."""
    start = time.perf_counter()
    run = simulate_lock(THREADS, Dist(PRIVATE, 0.5), Dist(CRITICAL, 0.3), TRANSFER,
                        packets=packets, seed=seed, warmup=0.0)
    return packets / (time.perf_counter() - start), run.pps


def simulate_walls() -> list[tuple[str, float]]:
    """Wall time of `patchperf simulate ID` for each library scenario, best of 3, as a user
    runs it (a fresh process: imports included)."""
    import subprocess
    import sys
    from pathlib import Path

    from corpus.library import library, load_scenario

    command = str(Path(sys.executable).with_name("patchperf"))
    out = []
    for path in library():
        scenario_id = load_scenario(path).id
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run([command, "simulate", scenario_id], check=True, capture_output=True)
            best = min(best, time.perf_counter() - start)
        out.append((scenario_id, best))
    return out


def run() -> list[tuple[str, str, str, bool]]:
    try:
        import simpy  # noqa: F401
    except ImportError:
        return [("(f) DES vs SimPy", "SimPy is not installed (pip install '.[dev]')", ">= 3.0x", False)]
    mine = max(ours(PACKETS)[0] for _ in range(3))
    theirs = max(simpy_lock(PACKETS) for _ in range(3))
    short = simulate_lock(THREADS, Dist(PRIVATE, 0.5), Dist(CRITICAL, 0.3), TRANSFER,
                          packets=50_000, seed=2).pps
    long = simulate_lock(THREADS, Dist(PRIVATE, 0.5), Dist(CRITICAL, 0.3), TRANSFER,
                         packets=500_000, seed=3).pps
    drift = abs(short - long) / long * 100
    walls = simulate_walls()
    slowest = max(walls, key=lambda w: w[1])
    return [
        ("(f) patchperf simulate, each library scenario",
         f"{len(walls)} scenarios, slowest {slowest[1]:.2f} s ({slowest[0]})", "< 1 s each",
         slowest[1] < 1.0),
        ("(f) DES vs SimPy, same lock model, simulated packets/s",
         f"{mine:,.0f} vs {theirs:,.0f} = {mine / theirs:.1f}x", ">= 3.0x", mine >= 3 * theirs),
        ("(f) 50k-packet run vs 10x longer run, throughput",
         f"{short / 1e6:.3f} vs {long / 1e6:.3f} Mpps ({drift:.2f} %)", "<= 1.5 %", drift <= 1.5),
    ]
