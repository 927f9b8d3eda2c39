"""Scenario definitions: what a claim's experiment was, as TOML, validated at the edge.

The sections (docs/simulator.md): the claim and the mechanisms its diff changes, the
platform (a named profile from corpus/platforms, each constant overridable), the topology,
the datapath as ordered stages, the workload with its sweep, the metric, what calibration
may fit, the figures the mail claims, and the mail's commands — kept as data, never run.
Every field is checked (types, ranges, unknown names) and a bad file is one line per
problem naming the file and the field.
"""

from __future__ import annotations

import re
import tomllib
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import ModelError

MAX_FILE = 1 << 20  # a scenario is a page of TOML; a megabyte is not one
MAX_LINE = 4096  # the longest line of one: a shell command
MAX_KEY_DOTS = 16  # `datapath.cost_ns` has one

# Control characters, C1 included, and bidi overrides: text in a scenario reaches terminals
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _printable(text: str) -> str:
    if _CONTROL.search(text):
        raise ValueError("control or bidi characters are not allowed")
    return text


Ns = Annotated[float, Field(ge=0, le=1e9)]  # a time in nanoseconds: at most a second
Name = Annotated[str, Field(min_length=1, max_length=120), AfterValidator(_printable)]
Mechanism = Literal["drop_lock", "percpu_stats", "rcu_config", "skip_backlog", "lastuse_per_tick"]
MAX_CUSTOMERS = 20_000  # request-response instances over a sweep: each is a chain state


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ClaimRef(_Strict):
    id: Name | None = None
    message_id: Name | None = None
    kernel: Annotated[str, Field(max_length=40)] | None = None
    mechanisms: list[Mechanism] = Field(default_factory=list, max_length=8)
    # where the tags came from: the diff, the cover letter's words, or a person
    mechanisms_from: Literal["diff", "cover_letter", "hand"] = "hand"


class Platform(_Strict):
    profile: Name | None = None
    cores: Annotated[int, Field(ge=1, le=4096)] | None = None
    sockets: Annotated[int, Field(ge=1, le=16)] | None = None
    ghz: Annotated[float, Field(gt=0, le=10)] | None = None
    c_same_ns: Ns | None = None  # one cache-line transfer within a socket (40-80)
    c_cross_ns: Ns | None = None  # across sockets (100-200)
    atomic_ns: Ns | None = None


class Device(_Strict):
    kind: Literal["dummy", "nic", "macvlan", "veth", "loopback", "other"]
    name: Name
    rx_queues: Annotated[int, Field(ge=1, le=4096)] | None = None


class Topology(_Strict):
    devices: list[Device] = Field(default_factory=list, max_length=32)
    placement: Literal["one_core_per_thread", "shared"] = "one_core_per_thread"


class Stage(_Strict):
    name: Name
    cost_ns: Ns
    # `delay`: time a request spends off this machine's CPUs (the wire, the other host):
    # a request-response load's think time, nothing a packet flood waits for
    kind: Literal["private", "lock", "shared_line", "percpu", "rcu_read", "delay"]
    resource: Name | None = None  # the lock a `lock` stage takes
    lines: Annotated[int, Field(ge=0, le=64)] = 1  # cache lines a shared stage writes
    frequency: Literal["per_packet", "per_tick", "per_batch"] = "per_packet"
    # the mechanism that takes this stage out of the path (skip_backlog's re-queue)
    removed_by: Mechanism | None = None


class Workload(_Strict):
    tool: Literal["pktgen", "netperf", "super_netperf", "rx_flood", "other"]
    sweep: Literal["threads", "instances", "queues", "cpus", "flows"]
    values: list[Annotated[int, Field(ge=1, le=4096)]] = Field(min_length=1, max_length=64)
    pkt_size: Annotated[int, Field(ge=1, le=65536)] | None = None
    count: Annotated[int, Field(ge=1, le=10**12)] | None = None
    test: Name | None = None  # netperf's -t


class Metric(_Strict):
    # pps, bps and rate (bytes/s, or no unit) are one packet path's rate at a fixed packet
    # size; latency and cpu its time per operation per core (Little's law: cores / rate),
    # whose ratios are the inverse
    name: Literal["pps_per_thread", "pps", "bps", "rate", "trans_per_s", "latency", "cpu"]
    unit: Name = "pps"


class Calibration(_Strict):
    fit: list[Literal["private_ns", "critical_ns", "delay_ns"]] = Field(default_factory=list,
                                                                        max_length=3)
    points: list[Annotated[int, Field(ge=1, le=4096)]] | None = None  # default: every value
    # how far a fitted cost may scale its stage's prior, both ways; a band verdict's edges
    # are what these bounds allow, so they are part of what the verdict says
    bounds: tuple[Annotated[float, Field(gt=0, le=1)], Annotated[float, Field(ge=1, le=1000)]] = (0.05, 20.0)
    # whether the baseline's figures constrain the costs' size: not for a CPU share, nor for
    # one point of a load the mail does not describe (the costs' proportions still bound the
    # ratio, which is all a band needs)
    magnitude: bool = True


class Claimed(_Strict):
    before: list[Annotated[float, Field(ge=1e-3, le=1e12)]] = Field(max_length=64)
    after: list[Annotated[float, Field(ge=1e-3, le=1e12)]] = Field(max_length=64)
    # the run-to-run spread the mail states (±, stddev), in % of the figures
    noise_pct: Annotated[float, Field(ge=0, le=100)] | None = None


class Scenario(_Strict):
    id: Name
    title: Annotated[str, Field(max_length=300), AfterValidator(_printable)] = ""
    claim: ClaimRef = Field(default_factory=ClaimRef)
    platform: Platform = Field(default_factory=Platform)
    topology: Topology = Field(default_factory=Topology)
    datapath: list[Stage] = Field(min_length=1, max_length=64)
    workload: Workload
    metric: Metric
    calibration: Calibration = Field(default_factory=Calibration)
    claimed: Claimed | None = None
    # the mail's commands, verbatim: data for a reader, never executed
    commands: list[Annotated[str, Field(max_length=4096), AfterValidator(_printable)]] = Field(
        default_factory=list, max_length=200)

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        values = self.workload.values
        if len(set(values)) != len(values):
            raise ValueError("workload.values repeat a value: one figure per point")
        points = self.calibration.points or []
        if len(set(points)) != len(points):
            raise ValueError("calibration.points repeat a point")
        if self.metric.name == "trans_per_s" and sum(values) > MAX_CUSTOMERS:
            raise ValueError(f"request-response instances over the sweep add up to more "
                             f"than {MAX_CUSTOMERS:,}")
        n = len(self.workload.values)
        if self.claimed is not None and not (len(self.claimed.before) == len(self.claimed.after) == n):
            raise ValueError(f"claimed.before and claimed.after need one figure per "
                             f"workload value ({n})")
        for p in self.calibration.points or ():
            if p not in self.workload.values:
                raise ValueError(f"calibration point {p} is not among workload.values")
        locks = [s for s in self.datapath if s.kind == "lock"]
        if any(s.resource is None for s in locks):
            raise ValueError("a lock stage names the lock it takes (resource)")
        return self


def parse_scenario(text: str, origin: str = "<scenario>") -> Scenario:
    """A Scenario from TOML text; ModelError naming `origin` and each bad field otherwise."""
    if len(text) > MAX_FILE:
        raise ModelError(f"{origin}: larger than {MAX_FILE:,} characters: not a scenario")
    # tomllib's time grows with the square of a dotted key's parts (`a.a.a...`): 40 kB of
    # key took 4.7 s and 1.6 GB, and 200 keys of 2,000 parts 6 s
    for n, line in enumerate(text.splitlines(), 1):
        if len(line) > MAX_LINE:
            raise ModelError(f"{origin}: line {n} is over the limit of {MAX_LINE:,} characters")
        if line.partition("=")[0].count(".") > MAX_KEY_DOTS:
            raise ModelError(f"{origin}: line {n}: a key of more than {MAX_KEY_DOTS} dotted parts")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ModelError(f"{origin}: not TOML: {exc}") from None
    except RecursionError:
        raise ModelError(f"{origin}: not TOML: nested too deep") from None
    except ValueError as exc:  # an integer of 4,301 digits and more: int() refuses it
        raise ModelError(f"{origin}: not TOML: {str(exc)[:120]}") from None
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors()[:10]:
            where = ".".join(str(p) for p in err["loc"]) or "scenario"
            problems.append(f"{where}: {err['msg']}")
        raise ModelError(f"{origin}: " + "; ".join(problems)) from None


def scenario_toml(scenario: Scenario) -> str:
    """The scenario as TOML that `parse_scenario` reads back to the same value."""
    import tomli_w

    return tomli_w.dumps(scenario.model_dump(mode="json", exclude_none=True))
