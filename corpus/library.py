"""The simulator's shipped data: platform profiles (`platforms/*.toml`) and the scenario
library (`scenarios/*.toml`). A scenario names a profile; its own platform fields override
the profile's, and nothing is ever taken from another claim's fit (docs/simulator.md)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from pydantic import ValidationError

from analyze.sim.errors import ModelError
from analyze.sim.predict import Constants
from analyze.sim.scenario import MAX_FILE, Platform, Scenario, parse_scenario

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


def load_scenario(path: str | Path) -> Scenario:
    """A scenario file, read within its size limit and checked."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_FILE + 1)
    except OSError as exc:
        raise ModelError(f"{path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE:
        raise ModelError(f"{path}: larger than {MAX_FILE:,} bytes: not a scenario")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ModelError(f"{path}: not UTF-8 text") from None
    return parse_scenario(text, str(path))


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
