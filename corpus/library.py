"""The simulator's shipped data: platform profiles (`platforms/*.toml`) and the scenario
library (`scenarios/*.toml`). A scenario names a profile; its own platform fields override
the profile's, and nothing is ever taken from another claim's fit (SIMULATOR.md)."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from analyze.model import Claim, Message
from analyze.sim.build import build_scenarios, verdict_of_claim
from analyze.sim.errors import ModelError
from analyze.sim.predict import Constants, Verdict, judge
from analyze.sim.scenario import Platform, Scenario, load_scenario

HERE = Path(__file__).resolve().parent
PLATFORMS = HERE / "platforms"
SCENARIOS = HERE / "scenarios"
DEFAULT_PROFILE = "single-socket"


def profile_names() -> list[str]:
    return sorted(p.stem for p in PLATFORMS.glob("*.toml"))


def load_profile(name: str) -> Platform:
    path = PLATFORMS / f"{name}.toml"
    if name not in profile_names():
        raise ModelError(f"no platform profile {name!r} (shipped: {', '.join(profile_names())})")
    data = tomllib.loads(path.read_text())
    data.pop("name", None)
    try:
        return Platform.model_validate({"profile": name, **data})
    except ValidationError as exc:  # our own file: a bug, said plainly
        raise ModelError(f"{path}: {exc.errors()[0]['msg']}") from None


def constants_for(scenario: Scenario) -> Constants:
    """The platform constants a scenario runs on: its profile, overridden field by field."""
    name = scenario.platform.profile or DEFAULT_PROFILE
    profile = load_profile(name)
    merged = profile.model_copy(update=scenario.platform.model_dump(exclude_none=True))
    assert merged.c_same_ns is not None and merged.c_cross_ns is not None
    cores, sockets = merged.cores or 1, merged.sockets or 1
    return Constants(merged.c_same_ns, merged.c_cross_ns, max(1, cores // sockets), name, cores)


def library() -> list[Path]:
    return sorted(SCENARIOS.glob("*.toml"))


def is_library_ref(ref: str) -> bool:
    """A file path or a library id, as opposed to a claim id (`c` and 12 hex digits)."""
    if ref.endswith(".toml") or Path(ref).exists():
        return True
    return not (len(ref) == 13 and ref[0] == "c" and all(ch in "0123456789abcdef" for ch in ref[1:]))


def find_scenario(ref: str) -> Scenario:
    """A scenario by file path, or by the id of one in the library."""
    path = Path(ref)
    if path.suffix == ".toml" or path.exists():
        return load_scenario(path)
    for candidate in library():
        scenario = load_scenario(candidate)
        if scenario.id == ref:
            return scenario
    ids = ", ".join(load_scenario(p).id for p in library())
    raise ModelError(f"{ref}: no such scenario file or library id (library: {ids})")


def judge_claims(claims: Sequence[Claim], messages: Sequence[Message],
                 runs: dict[str, tuple[Scenario, Verdict]] | None = None,
                 ) -> dict[str, tuple[str, dict[str, Any]]]:
    """Each claim that a scenario could be built for: (scenario id, the contract's verdict
    object). A scenario the models cannot run is a `no_model` verdict with the reason.
    `runs`, when given, receives each judged scenario and its verdict by scenario id."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for built in build_scenarios(claims, messages):
        try:
            verdict = judge(built.scenario, constants_for(built.scenario))
        except ModelError as exc:
            for claim_id in built.claim_ids:
                out[claim_id] = (built.scenario.id, {"status": "no_model", "reason": str(exc),
                                                      "predicted_change_pct": None,
                                                      "band_pct": None})
            continue
        if runs is not None:
            runs[built.scenario.id] = (built.scenario, verdict)
        for claim_id in built.claim_ids:
            out[claim_id] = (built.scenario.id, verdict_of_claim(built, claim_id, verdict))
    return out
