"""The report document: `{messages, series, claims}` as the JSON contract defines it.

Every renderer (terminal, Markdown, JSON) reads this one shape, whether it came from an
in-memory analysis or from the store.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

from analyze.model import Analysis
from analyze.robot_series import (
    by_series,
    disagreement_to_dict,
    disagreements,
    link_documents,
    series_claims,
)
from analyze.serialize import claim_to_dict, message_to_dict, series_to_dict
from analyze.sim.status import Status
from analyze.versions import attach_tracks, changelog_of

Document = dict[str, list[dict[str, Any]]]

# How every renderer colours the simulator's verdicts.
VERDICT_STYLE: dict[str, str] = {Status.REPRODUCED: "green", Status.CONSISTENT: "green",
                 Status.WITHIN_NOISE: "yellow", Status.NOT_REPRODUCED: "red",
                 Status.OUTSIDE_BAND: "red", Status.NO_MODEL: "dim"}


def analysis_document(analysis: Analysis,
                      verdicts: Mapping[str, tuple[str | None, dict[str, Any]]] | None = None) -> Document:
    """The JSON contract's document of an analysis. `verdicts` (corpus.jobs.verdicts, by
    claim id): each judged claim's scenario id and verdict object."""
    judged = verdicts or {}
    claims = []
    for claim in analysis.claims:
        doc = claim_to_dict(claim)
        if claim.id in judged:
            doc["scenario_id"], doc["verdict"] = judged[claim.id]
        claims.append(doc)
    messages = [message_to_dict(m) for m in analysis.messages]
    series = [series_to_dict(s) for s in analysis.series]
    linked = link_documents(analysis.series, messages, claims)
    robot = by_series(linked)
    robot_keys = {one.key for one in linked}
    for doc in series:
        if doc["id"] in robot:
            doc["robot_reports"] = robot[doc["id"]]
            found = disagreements(series_claims(doc, claims, robot_keys), robot[doc["id"]])
            if found:
                doc["robot_disagreements"] = [disagreement_to_dict(d) for d in found]
    attach_tracks(series, series, claims, changelog_of(messages))
    out: Document = {"messages": messages, "series": series, "claims": claims}
    unlinked = [one.entry for one in linked if one.link.series is None]
    if unlinked:
        out["unlinked_robot_reports"] = unlinked
    return out


def trailer_counts(series: dict[str, Any]) -> Counter[str]:
    """Trailer counts of a series (its members' own and those given in replies), as
    analysis counted them."""
    return Counter(series.get("trailer_counts") or {})


def patch_summary(message: dict[str, Any]) -> str:
    """`2 file(s) +10 -4`, `(quoted)` when the diff is only quoted; empty without a diff."""
    patch = message.get("patch")
    if not patch:
        return ""
    text = f"{len(patch['files'])} file(s) +{patch['added']} -{patch['removed']}"
    return text + " (quoted)" if patch["quoted"] else text


def received(series: dict[str, Any]) -> str:
    """`3/3`, `2/?` when the total is unknown, `pull` for a pull request."""
    if series.get("pull_request"):
        return "pull"
    total = series.get("total")
    return f"{len(series.get('patches', []))}/{total if total is not None else '?'}"


def figure(value: float | None) -> str:
    """A figure as a reader writes it: `3518448`, `5`, `0.507`."""
    if value is None or not math.isfinite(value):
        return "?"  # no float holds it (a store from before such figures were refused)
    return f"{value:,.0f}" if value == int(value) and abs(value) >= 1000 else f"{value:g}"


def before_after(claim: dict[str, Any]) -> str:
    """`5 → >10 Mpps`, or `? → ?` for a claim that states only a change."""
    bound = {"lower": ">", "upper": "<", "approx": "~"}.get(claim.get("bound") or "", "")
    unit = f" {claim['unit']}" if claim.get("unit") else ""
    if claim.get("patched_unit"):  # `5 Mpps → 10 Gpps`: each figure with its own unit
        return (f"{figure(claim['baseline'])}{unit} → {bound}{figure(claim['patched'])} "
                f"{claim['patched_unit']}")
    return f"{figure(claim['baseline'])} → {bound}{figure(claim['patched'])}{unit}"


def percent(value: float | None) -> str:
    return "" if value is None or not math.isfinite(value) else f"{value:+.2f} %"


def condition_text(claim: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in claim.get("condition", {}).items())


def agreement(claim: dict[str, Any]) -> str:
    """Whether the stated change agrees with the figures: yes, no, or blank when not stated."""
    consistent = claim.get("consistent")
    return "" if consistent is None else ("yes" if consistent else "no")


def verdict_text(claim: dict[str, Any]) -> str:
    """`reproduced (predicted +14.8 %)`, `consistent (band +3 … +827 %)`, or empty."""
    verdict = claim.get("verdict")
    if not verdict:
        return ""
    status = verdict["status"].replace("_", " ")
    if verdict.get("predicted_change_pct") is not None:
        return f"{status} (predicted {verdict['predicted_change_pct']:+.1f} %)"
    if verdict.get("band_pct"):
        low, high = verdict["band_pct"]
        return f"{status} (band {low:+.0f} … {high:+.0f} %)"
    return status
