"""The simulator's cost as a user meets it: `patchperf simulate ID` for each library
scenario, in a fresh process. Printed by `make bench` beside the other figures."""

from __future__ import annotations

import time


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
    walls = simulate_walls()
    slowest = max(walls, key=lambda w: w[1])
    return [
        ("(f) patchperf simulate, each library scenario",
         f"{len(walls)} scenarios, slowest {slowest[1]:.2f} s ({slowest[0]})", "< 1 s each",
         slowest[1] < 1.0),
    ]
