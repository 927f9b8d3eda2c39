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

from analyze.claims.shell.commands import Command, read_shell
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


def build_scenarios(claims: Sequence[Claim], messages: Sequence[Message]) -> list[Built]:
    """A scenario for each group of claims that sweeps one numeric condition with a
    baseline and a patched figure at every point."""
    groups: dict[tuple[str, str, str, str], list[tuple[int, Claim]]] = {}
    for claim in claims:
        if (claim.baseline_canonical is None or claim.patched_canonical is None
                or len(claim.condition) != 1 or claim.canonical_unit not in ("pps", "trans/s")):
            continue
        (key, value), = claim.condition
        if key not in SWEEPS or not value.isdigit() or not 1 <= int(value) <= 4096:
            continue
        origin = claim.message_id or claim.found_in
        groups.setdefault((origin, claim.metric, claim.canonical_unit, key), []).append(
            (int(value), claim))
    out = []
    for (origin, _metric, unit, sweep), points in groups.items():
        points.sort(key=lambda p: p[0])
        if len({v for v, _ in points}) != len(points):
            continue  # two claims at one point: two experiments, not one series
        built = _scenario(origin, unit, sweep, points, messages)
        if built is not None:
            out.append(built)
    return out


def _scenario(origin: str, unit: str, sweep: str, points: list[tuple[int, Claim]],
              messages: Sequence[Message]) -> Built | None:
    found_in = {c.found_in for _, c in points}
    related = [m for m in messages if m.key in found_in or m.message_id == origin]
    # commands quoted in a reply count too (seed 000 quotes the patch's test procedure)
    commands = [c for m in related for c in read_shell(
        [strip_quote(line, depth) for line, depth in zip(m.body.lines, m.body.depths,
                                                         strict=True)]).commands]
    tools = {c.tool for c in commands}
    text = "\n".join(m.body.text for m in related)
    if unit == "trans/s":
        tool = next((_RR_TOOLS[t] for t in ("super_netperf", "netperf") if t in tools), None)
        if tool is None and "netperf" not in text:
            return None  # transactions of something patchperf has no model for
        stages, fit, metric = _REQUEST_RESPONSE, ["private_ns", "delay_ns"], "trans_per_s"
        tool = tool or "netperf"
    else:
        tool = "pktgen" if "pktgen" in tools else ("rx_flood" if sweep == "queues" else "other")
        stages, fit = _LOCKED, ["private_ns", "critical_ns"]
        metric = "pps_per_thread" if sweep == "threads" and _PER_THREAD.search(text) else "pps"
    mechanisms = mechanisms_of([m.patch.text for m in related if m.patch is not None],
                               [m.body.text for m in related])
    workload: dict[str, Any] = {"tool": tool, "sweep": sweep, "values": [v for v, _ in points]}
    workload.update(_flags(commands, tool))
    data: dict[str, Any] = {
        "id": "auto-" + hashlib.sha1(f"{origin}|{unit}|{sweep}".encode()).hexdigest()[:10],
        "title": f"{metric} over {sweep}, built from the thread",
        "claim": {"message_id": _CONTROL.sub("?", origin[:120]) or None, "mechanisms": list(mechanisms.tags),
                  "mechanisms_from": "diff" if mechanisms.source == "diff" else "cover_letter"},
        "datapath": stages,
        "workload": workload,
        "topology": {"devices": _devices(commands, tool, [v for v, _ in points])},
        "metric": {"name": metric, "unit": unit},
        "calibration": {"fit": fit},
        "claimed": {"before": [c.baseline_canonical for _, c in points],
                    "after": [c.patched_canonical for _, c in points]},
        "commands": [_CONTROL.sub("?", c.text[:4096]) for c in commands][:200],
    }
    try:
        scenario = Scenario.model_validate(data)
    except ValueError:
        return None  # figures out of any plausible range: no scenario rather than a wrong one
    return Built(scenario, tuple(c.id for _, c in points))


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
    """The contract's verdict object for one claim of a judged scenario, at its own point."""
    return verdict.at(built.claim_ids.index(claim_id))


__all__ = ["Built", "ModelError", "build_scenarios", "verdict_of_claim"]
