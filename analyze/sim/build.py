"""Scenarios built from a thread: each series of claims (one message's figures of one metric
over one swept condition: seed 001's threads 1, 2, 4) becomes a scenario, with the workload
read from the mail's commands, the mechanisms from the series' diffs or words, and the
datapath from the template of that workload. The commands stay data, verbatim.

The templates' stage costs are priors: calibration scales them on the baseline figures.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from analyze.claims.shell.commands import Command, Shell, read_shell
from analyze.claims.shell.loops import VARIABLE
from analyze.mail.body import strip_quote
from analyze.model import Claim, Message

from .errors import ModelError
from .mechanisms import mechanisms_of
from .predict import Verdict
from .scenario import Scenario

SWEEPS = ("threads", "instances", "queues", "cpus", "flows")
# a mail's control and bidi characters are kept out of the scenario (it reaches terminals)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_PER_THREAD = re.compile(r"\bpps\s*/\s*thread\b|\bper[- ]thread\b|\bpps per thread\b", re.I)
_RR_TOOLS = {"netperf": "netperf", "super_netperf": "super_netperf"}

# The datapath of each kind of workload, as priors: a packet path with one lock and the
# counters written under it, or a request-response loop with its time off the CPUs.
_LOCKED = [
    {"name": "driver, stack and classifier", "cost_ns": 150.0, "kind": "private"},
    {"name": "the action under its lock", "cost_ns": 80.0, "kind": "lock", "resource": "tcf_lock"},
    {"name": "the action's counters", "cost_ns": 20.0, "kind": "shared_line",
     "resource": "tcf_lock"},
]
_REQUEST_RESPONSE = [
    {"name": "application, TCP and the driver, both ways", "cost_ns": 20000.0, "kind": "private"},
    {"name": "netif_rx: re-queue on the backlog", "cost_ns": 200.0, "kind": "percpu",
     "removed_by": "skip_backlog"},
    {"name": "the wire and the peer's turn", "cost_ns": 50000.0, "kind": "delay"},
]


@dataclass(frozen=True, slots=True)
class Built:
    scenario: Scenario
    claim_ids: tuple[str, ...]  # the claims it judges, in sweep order
    assumed: str = ""  # what the scenario takes for granted that the mail does not say


@dataclass(frozen=True, slots=True)
class Plan:
    """What the builder made of a set of claims: the scenarios, and for each claim in none,
    why not (a `no_model` verdict's reason)."""

    built: tuple[Built, ...]
    skipped: dict[str, str]


# The canonical units the models compute a ratio for, and the scenario metric of each.
_METRIC_OF = {"pps": "pps", "bit/s": "bps", "B/s": "rate", "trans/s": "trans_per_s",
              "s": "latency"}
MODELLED = "pps, bit/s, bytes/s, trans/s, latency, CPU"


def scenario_metric(claim: Claim) -> str | None:
    """The scenario metric a claim's figures are, or None when no model computes them: a
    rate of the packet path in pps or bit/s (`rate` in bytes/s or no unit, whose size the
    model cannot compute), transactions, a latency, a CPU share or cycles."""
    unit = claim.canonical_unit
    if claim.metric == "cpu" and unit in ("%", "cycles", None):
        return "cpu"
    if unit is None:
        return "rate" if claim.metric == "throughput" else None
    return _METRIC_OF.get(unit)


def build_scenarios(claims: Sequence[Claim], messages: Sequence[Message]) -> list[Built]:
    """The scenarios of `plan_scenarios`."""
    return list(plan_scenarios(claims, messages).built)


def plan_scenarios(claims: Sequence[Claim], messages: Sequence[Message]) -> Plan:
    """A scenario for each group of claims that sweeps one numeric condition (threads,
    queues...) with a baseline and a patched figure at every point, and for each other claim
    of a modelled metric a single-point one (one core, when the mail names no count); each
    claim in none, with the reason."""
    groups: dict[tuple[str, str, str, str, tuple[tuple[str, str], ...]],
                 list[tuple[int, Claim]]] = {}
    key: tuple[str, str, str, str, tuple[tuple[str, str], ...]]
    skipped: dict[str, str] = {}
    for claim in claims:
        if claim.baseline_canonical is None or claim.patched_canonical is None:
            skipped[claim.id] = "one figure only: no before and after to compare"
            continue
        unit = claim.canonical_unit or ""
        metric = scenario_metric(claim)
        if metric is None:
            skipped[claim.id] = (f"metric not modelled: {claim.metric} in "
                                 f"{claim.unit or 'no unit'} (the models give {MODELLED})")
            continue
        origin = claim.message_id or claim.found_in
        point = _sweep_point(claim.condition)
        if point is not None:
            key = (origin, claim.metric, unit, point[0], ())
        else:  # one point: its own scenario, at whatever else the condition says
            key = (origin, claim.metric, unit, "cpus", claim.condition + (("claim", claim.id),))
            point = ("cpus", 1)
        groups.setdefault(key, []).append((point[1], claim))
    out = []
    for (origin, _metric, unit, sweep, condition), points in groups.items():
        points.sort(key=lambda p: p[0])
        if len({v for v, _ in points}) != len(points):
            for _, claim in points:  # two experiments, not one series
                skipped[claim.id] = "two claims at one point of one series: which is which?"
            continue
        built = _scenario(origin, unit, sweep, points, messages, condition)
        if isinstance(built, str):
            for _, claim in points:
                skipped[claim.id] = built
            continue
        out.append(built)
    # series first: a sweep says more than a point, and views show the first scenario
    out.sort(key=lambda b: len(b.claim_ids) == 1)
    return Plan(tuple(out), skipped)


def _sweep_point(condition: tuple[tuple[str, str], ...]) -> tuple[str, int] | None:
    if len(condition) != 1:
        return None
    (key, value), = condition
    if key in SWEEPS and value.isdigit() and 1 <= int(value) <= 4096:
        return key, int(value)
    return None


def _scenario(origin: str, unit: str, sweep: str, points: list[tuple[int, Claim]],
              messages: Sequence[Message], condition: tuple[tuple[str, str], ...] = ()
              ) -> Built | str:
    found_in = {c.found_in for _, c in points}
    related = [m for m in messages if m.key in found_in or m.message_id == origin]
    # commands quoted in a reply count too (seed 000 quotes the patch's test procedure)
    shells = [read_shell([strip_quote(line, depth) for line, depth
                          in zip(m.body.lines, m.body.depths, strict=True)]) for m in related]
    commands = [c for shell in shells for c in shell.commands]
    tools = {c.tool for c in commands}
    text = "\n".join(m.body.text for m in related)
    metric = scenario_metric(points[0][1]) or "rate"
    rr_tool = next((_RR_TOOLS[t] for t in ("super_netperf", "netperf") if t in tools), None)
    if unit == "trans/s" and rr_tool is None and "netperf" not in text:
        return "no workload: transactions of a load patchperf has no model for (no netperf)"
    if unit == "trans/s" or (metric in ("latency", "cpu") and rr_tool is not None):
        stages, fit = _REQUEST_RESPONSE, ["private_ns", "delay_ns"]
        tool = rr_tool or "netperf"
    else:
        tool = "pktgen" if "pktgen" in tools else ("rx_flood" if sweep == "queues" else "other")
        stages, fit = _LOCKED, ["private_ns", "critical_ns"]
        if metric == "pps" and sweep == "threads" and _PER_THREAD.search(text):
            metric = "pps_per_thread"
    mechanisms = mechanisms_of([m.patch.text for m in related if m.patch is not None],
                               [m.body.text for m in related])
    workload: dict[str, Any] = {"tool": tool, "sweep": sweep, "values": [v for v, _ in points]}
    workload.update(_flags(commands, tool))
    single = bool(condition) or (sweep == "cpus" and len(points) == 1)
    where = "|".join(f"{k}={v}" for k, v in condition)  # a point's claim id included: its own id
    shown = "|".join(f"{k}={v}" for k, v in condition if k != "claim")
    data: dict[str, Any] = {
        "id": "auto-" + hashlib.sha1((f"{origin}|{unit}|{sweep}" + (f"|{where}" if where else "")
                                      ).encode()).hexdigest()[:10],
        "title": (f"{metric} at one point ({_CONTROL.sub('?', shown[:120]) or 'no condition'}), "
                  "built from the thread" if single else
                  f"{metric} over {sweep}, built from the thread"),
        "claim": {"message_id": _CONTROL.sub("?", origin[:120]) or None, "mechanisms": list(mechanisms.tags),
                  "mechanisms_from": "diff" if mechanisms.source == "diff" else "cover_letter"},
        "datapath": stages,
        "workload": workload,
        "topology": {"devices": _devices(commands, tool, [v for v, _ in points])},
        "metric": {"name": metric, "unit": unit or "none"},
        # a CPU share, bits at a packet size nobody gave, one point of an undescribed load:
        # the baseline's size fixes no cost
        "calibration": {"fit": fit, "magnitude": not (single and sweep == "cpus")
                        and metric not in ("cpu", "bps", "rate")},
        # a latency in nanoseconds, as the models compute it (and as the schema's range holds)
        "claimed": {"before": [_scale(c.baseline_canonical, metric) for _, c in points],
                    "after": [_scale(c.patched_canonical, metric) for _, c in points]},
        "commands": [_CONTROL.sub("?", c[:4096]) for c in _statements(shells)][:200],
    }
    try:
        scenario = Scenario.model_validate(data)
    except ValueError:
        # figures out of any plausible range: no scenario rather than a wrong one
        return "no scenario: the figures are out of any plausible range"
    assumed = ("one core assumed: the mail names no thread, queue or CPU count"
               if single and sweep == "cpus" else "")
    return Built(scenario, tuple(c.id for _, c in points), assumed)


def _scale(figure: float | None, metric: str) -> float | None:
    return figure * 1e9 if figure is not None and metric == "latency" else figure


def _statements(shells: Sequence[Shell]) -> list[str]:
    """The commands as the scenario keeps them: the variables they use (`TC=tc`), then each
    command in order, one inside a loop as its loop rebuilt on one line from the parsed
    variable, values and body (`for c in 1 2 4; do ...; done`), once."""
    out: list[str] = []
    for shell in shells:
        texts = [c.text for c in shell.commands]
        used = {m.group(1) for t in texts for m in VARIABLE.finditer(t)}
        out += [f"{name}={value}" for name, value in shell.assignments
                if name in used and _PLAIN.fullmatch(value)]
        done: set[int] = set()
        for command in shell.commands:
            # the innermost loop holding the command: the one starting last
            loop = max((lp for lp in shell.loops if lp.line <= command.line <= lp.last
                        and command.text in lp.body), key=lambda lp: lp.line, default=None)
            if loop is None or not all(_PLAIN.fullmatch(v) for v in loop.values[:64]):
                out.append(command.text)
            elif id(loop) not in done:
                done.add(id(loop))
                out.append(f"for {loop.variable} in {' '.join(loop.values[:64])}; do "
                           + "; ".join(loop.body) + "; done")
    return out


_PLAIN = re.compile(r"[A-Za-z0-9_.:/-]{1,64}")  # a variable's value kept with the commands


def _option(argv: Sequence[str], flag: str) -> str | None:
    """The value after `flag` (`-s 64`), or glued to it (`-s64`)."""
    for k, word in enumerate(argv):
        if word == flag and k + 1 < len(argv):
            return argv[k + 1]
        if word.startswith(flag) and len(word) > len(flag) and not word.startswith("--"):
            return word[len(flag):]
    return None


def _number(text: str | None, low: int, high: int) -> int | None:
    return int(text) if text is not None and text.isdigit() and low <= int(text) <= high else None


def _flags(commands: Sequence[Command], tool: str) -> dict[str, Any]:
    """What the workload's own command says: pktgen's packet size and count (`-s 64 -n
    5000000`), netperf's test (`-t TCP_RR`). A value that is a variable stays unset."""
    out: dict[str, Any] = {}
    for command in commands:
        if tool == "pktgen" and command.tool == "pktgen":
            size = _number(_option(command.argv, "-s"), 1, 65536)
            count = _number(_option(command.argv, "-n"), 1, 10**12)
            if size is not None:
                out["pkt_size"] = size
            if count is not None:
                out["count"] = count
        elif tool in ("netperf", "super_netperf") and command.tool in _RR_TOOLS:
            test = _option(command.argv, "-t")
            if test and re.fullmatch(r"[A-Z_]{2,20}", test):
                out["test"] = test
    return out


_DEVICE_KINDS = {"dummy": "dummy", "veth": "veth", "macvlan": "macvlan", "macvtap": "macvlan"}


def _devices(commands: Sequence[Command], tool: str, values: Sequence[int]
             ) -> list[dict[str, Any]]:
    """Devices the commands create (`ip link add name eth1 type dummy`) or name (`tc ... dev
    eth1`, pktgen's `-i eth1`): the topology as far as the mail tells it. An RX flood over
    a swept number of queues is on a NIC with at least that many."""
    found: dict[str, str] = {}
    for command in commands:
        argv = command.argv
        if command.tool == "ip" and "link" in argv and "add" in argv and "type" in argv:
            name = _option(argv, "name") or (argv[argv.index("add") + 1]
                                             if argv.index("add") + 1 < len(argv) else None)
            kind = argv[argv.index("type") + 1] if argv.index("type") + 1 < len(argv) else ""
            if name and re.fullmatch(r"[\w.-]{1,15}", name):
                found[name] = _DEVICE_KINDS.get(kind, "other")
        for name in (_option(argv, "dev") if command.tool == "tc" else None,
                     _option(argv, "-i") if command.tool == "pktgen" else None):
            if name and re.fullmatch(r"[\w.-]{1,15}", name) and name not in found:
                found[name] = "other"
    devices: list[dict[str, Any]] = [{"kind": kind, "name": name}
                                     for name, kind in list(found.items())[:31]]
    if tool == "rx_flood":
        devices.append({"kind": "nic", "name": "the receiving NIC", "rx_queues": max(values)})
    return devices


def verdict_of_claim(built: Built, claim_id: str, verdict: Verdict) -> dict[str, Any]:
    """The contract's verdict object for one claim of a judged scenario, at its own point,
    its reason saying what the scenario assumed."""
    doc = verdict.at(built.claim_ids.index(claim_id))
    if built.assumed and doc["reason"]:
        doc["reason"] += f" ({built.assumed})"
    return doc


__all__ = ["Built", "ModelError", "Plan", "build_scenarios", "plan_scenarios", "verdict_of_claim"]
