"""A series' claims followed across its versions (`version_tracks`, docs/json.md), as lines
every renderer shows alike: one line per claim, its figures in each version, and a flag
where a figure moved beyond its noise while no changelog line of that version named the
benchmark or the metric."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from analyze.versions import NOISE_DEFAULT_PCT

from .document import condition_text, figure


@dataclass(frozen=True, slots=True)
class PointText:
    version: str  # `v2`
    figures: str  # `21.4 → 26 Gbit/s`
    moved: str  # `moved 4.4 %`, or "" for the first version
    note: str  # why it is flagged, or the changelog line that names it
    flagged: bool


def track_title(track: Mapping[str, Any]) -> str:
    """`throughput`, with its condition: `throughput, threads=8`."""
    condition = condition_text({"condition": track.get("condition") or {}})
    return f"{track.get('metric')}" + (f", {condition}" if condition else "")


def point_texts(track: Mapping[str, Any]) -> list[PointText]:
    out = []
    for p in track.get("points") or ():
        unit = p.get("unit") or track.get("unit") or ""
        figures = f"{figure(p.get('baseline'))} → {figure(p.get('patched'))} {unit}".strip()
        moved = p.get("moved_pct")
        noise = p.get("noise_pct")
        if p.get("flagged"):
            limit = f"± {noise:g} % stated" if noise is not None else f"{NOISE_DEFAULT_PCT:g} % by default"
            note = (f"moved beyond its noise ({limit}) and no changelog line of "
                    f"v{p.get('version')} names the benchmark or the metric")
        elif p.get("explained_by") and moved is not None:
            note = f"changelog: {p['explained_by']}"
        else:
            note = ""
        out.append(PointText(f"v{p.get('version')}", figures,
                             "" if moved is None else f"moved {moved:.1f} %", note,
                             bool(p.get("flagged"))))
    return out


def flagged(track: Mapping[str, Any]) -> bool:
    return any(p.get("flagged") for p in track.get("points") or ())
