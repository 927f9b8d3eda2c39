"""`patchperf simulate`: a scenario's predicted curve beside the claimed one, and its
verdict, as a document (JSON) or a rich table. Text from files is shown as text."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from analyze.sim.controls import ControlRun
from analyze.sim.predict import Verdict
from analyze.sim.scenario import Scenario

from .document import VERDICT_STYLE
from .safe import inert


def simulation_document(scenario: Scenario, verdict: Verdict) -> dict[str, Any]:
    claimed = scenario.claimed
    rows = []
    for i, value in enumerate(verdict.values):
        row: dict[str, Any] = {scenario.workload.sweep: value}
        if claimed is not None:
            row["claimed_before"] = claimed.before[i]
            row["claimed_after"] = claimed.after[i]
        if verdict.predicted_before:
            row["predicted_before"] = round(verdict.predicted_before[i], 1)
            row["predicted_after"] = round(verdict.predicted_after[i], 1)
            row["predicted_ratio"] = round(verdict.predicted_ratio[i], 4)
        if verdict.claimed_ratio:
            row["claimed_ratio"] = round(verdict.claimed_ratio[i], 4)
        if verdict.band:
            row["band"] = [round(x, 4) for x in verdict.band[i]]
        rows.append(row)
    usl = {}
    for side, fit in (("before", verdict.usl_before), ("after", verdict.usl_after)):
        if fit is not None:
            usl[side] = {"sigma": round(fit.sigma, 6), "kappa": round(fit.kappa, 6),
                         "lambda": round(fit.lam, 3), "rms_pct": round(fit.rms_pct, 3)}
    # the contract's verdict object (docs/json.md), at the point of the largest claimed
    # effect; every point is in `points`
    key = max(range(len(rows)), key=lambda i: abs(verdict.claimed_ratio[i] - 1)) \
        if verdict.claimed_ratio else None
    return {
        "messages": [],
        "series": [],
        "claims": [],
        "simulation": {
            "scenario_id": scenario.id,
            "metric": scenario.metric.name,
            "unit": scenario.metric.unit,
            "verdict": verdict.at(key),
            "platform_profile": verdict.profile,
            "mechanisms": list(scenario.claim.mechanisms),
            "fit_rms_pct": None if verdict.fit_rms_pct is None else round(verdict.fit_rms_pct, 3),
            "band_half_width_pct": None if verdict.band_pct is None else round(verdict.band_pct, 2),
            "unexplained": list(verdict.unexplained),
            "points": rows,
            "usl": usl,
        },
    }


def render_simulation(document: dict[str, Any], console: Console) -> None:
    doc = document["simulation"]
    table = Table(title=Text(inert(f"scenario {doc['scenario_id']}: {doc['metric']} ({doc['unit']})")))
    points = doc["points"]
    columns = list(points[0]) if points else []
    for name in columns:
        table.add_column(Text(name.replace("_", " ")), justify="right")
    for row in points:
        table.add_row(*(Text(inert(_cell(row.get(c)))) for c in columns))
    console.print(table)
    style = VERDICT_STYLE.get(doc["verdict"]["status"], "yellow")
    line = Text("verdict: ")
    line.append(doc["verdict"]["status"], style=f"bold {style}")
    line.append(inert(f" — {doc['verdict']['reason']} (platform {doc['platform_profile']})"))
    console.print(line)
    for side, fit in doc["usl"].items():
        console.print(Text(f"USL {side}: σ={fit['sigma']:.4f} κ={fit['kappa']:.5f} "
                           f"λ={fit['lambda']:,.0f} (rms {fit['rms_pct']:.2f} %)"))
    if "controls" in doc:
        controls = Table(title=Text("negative controls, judged by the same rules"))
        for name in ("control", "verdicts", "accepted without beating no change"):
            controls.add_column(Text(name))
        for row in doc["controls"]:
            counts = ", ".join(f"{k} {n}" if len(row["statuses"]) > 1 or n > 1 else k
                               for k, n in row["statuses"].items()) or "not run"
            note = f" ({row['note']})" if row["note"] else ""
            controls.add_row(Text(row["control"]), Text(inert(counts + note)),
                             Text(str(row["unearned"])))
        console.print(controls)


def controls_rows(runs: list[ControlRun]) -> list[dict[str, Any]]:
    """The `controls` list of `simulate --controls --format json`: each control's statuses
    counted, how many were accepted without beating the no-change model, and a note."""
    rows = []
    for run in runs:
        counts: dict[str, int] = {}
        for status in run.statuses:
            counts[status.value] = counts.get(status.value, 0) + 1
        rows.append({"control": run.control, "statuses": counts,
                     "unearned": len(run.unearned), "note": run.note})
    return rows


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.4f}" if abs(value) < 100 else f"{value:,.0f}"
    if isinstance(value, list):
        return "–".join(_cell(v) for v in value)
    return "" if value is None else str(value)
