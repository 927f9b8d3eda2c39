"""A discrete-event engine on `heapq` for the cases the analytic models miss: service times
with little variance (where a curve bends, the exponential chain under-predicts) and
workloads no chain describes.

SimPy's design (a heap of (time, sequence, event)) without its generality: events are
(time, sequence, kind, thread) tuples and the loop handles the two kinds a lock model has,
two events per packet. Such a loop runs 4–7x faster than SimPy per simulated packet
(`make bench` measures it; docs/benchmarks.md). A run is a pure function of its
parameters and seed (`random.Random(seed)`).
"""

from __future__ import annotations

import heapq
import math
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from .errors import ModelError

MAX_PACKETS = 50_000_000  # a bound on one run's work: about a minute of this loop


@dataclass(frozen=True, slots=True)
class Dist:
    """A service time: its mean and coefficient of variation (0 deterministic, 1
    exponential, otherwise gamma)."""

    mean_ns: float
    cv: float = 0.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.mean_ns) and self.mean_ns >= 0):
            raise ModelError(f"a mean time must be finite and ≥ 0, got {self.mean_ns!r}")
        if not (math.isfinite(self.cv) and 0 <= self.cv <= 10):
            raise ModelError(f"a coefficient of variation must be in 0..10, got {self.cv!r}")

    def sampler(self, rng: random.Random) -> Callable[[], float]:
        mean, cv = self.mean_ns, self.cv
        if cv == 0 or mean == 0:
            return lambda: mean
        if cv == 1:
            rate = 1.0 / mean
            return lambda: rng.expovariate(rate)
        shape, scale = 1.0 / (cv * cv), mean * cv * cv
        return lambda: rng.gammavariate(shape, scale)


@dataclass(frozen=True, slots=True)
class LockRun:
    packets: int  # counted after the warm-up
    seconds: float  # simulated time they took
    events: int  # every event handled, warm-up included

    @property
    def pps(self) -> float:
        return self.packets / self.seconds if self.seconds > 0 else 0.0


def simulate_lock(threads: int, private: Dist, critical: Dist, transfer_ns: float,
                  queued: bool = True, packets: int = 50_000, seed: int = 1,
                  warmup: float = 0.1) -> LockRun:
    """n threads that each do `private` work, then take one spinlock for `critical` plus the
    hand-off (a queued lock: `transfer_ns`; a ticket lock: transfer_ns·k/2 with k cores
    holding or waiting when the hold starts), FIFO. Counts `packets` acquisitions after a
    warm-up of `warmup`·packets more."""
    if not 1 <= threads <= 4096:
        raise ModelError(f"threads must be in 1..4096, got {threads!r}")
    if not 1 <= packets <= MAX_PACKETS:
        raise ModelError(f"packets must be in 1..{MAX_PACKETS:,}, got {packets!r}")
    if not (math.isfinite(transfer_ns) and transfer_ns >= 0):
        raise ModelError(f"transfer_ns must be finite and ≥ 0, got {transfer_ns!r}")
    if not 0 <= warmup < 10:
        raise ModelError(f"warmup must be in 0..10 (a share of packets), got {warmup!r}")
    if private.mean_ns <= 0 and critical.mean_ns + transfer_ns <= 0:
        raise ModelError("private, critical and transfer times are all 0: no time would pass")
    rng = random.Random(seed)
    work, hold_time = private.sampler(rng), critical.sampler(rng)
    skip = int(packets * warmup)
    total = skip + packets
    heap: list[tuple[float, int, int, int]] = []
    push, pop = heapq.heappush, heapq.heappop
    seq = 0
    for t in range(threads):
        push(heap, (work(), seq, 0, t))  # kind 0: t has done its private work
        seq += 1
    waiting: deque[int] = deque()
    busy = False
    done = events = 0
    start = now = 0.0
    half = transfer_ns / 2.0
    while done < total:
        now, _, kind, t = pop(heap)
        events += 1
        if kind == 0:  # t asks for the lock
            if busy:
                waiting.append(t)
                continue
            busy = True
            extra = transfer_ns if queued else half  # k = 1: t alone
            push(heap, (now + hold_time() + extra, seq, 1, t))
            seq += 1
            continue
        # kind 1: t releases the lock: one packet
        done += 1
        if done == skip:
            start = now
        push(heap, (now + work(), seq, 0, t))
        seq += 1
        if waiting:
            nxt = waiting.popleft()
            extra = transfer_ns if queued else half * (len(waiting) + 1)
            push(heap, (now + hold_time() + extra, seq, 1, nxt))
            seq += 1
        else:
            busy = False
    return LockRun(packets, (now - start) * 1e-9, events)


@dataclass(frozen=True, slots=True)
class QueueRun:
    customers: int  # counted after the warm-up
    mean_response_ns: float  # waiting and service
    events: int


def simulate_open_queue(arrival_ns: float, service: Dist, customers: int = 100_000,
                        seed: int = 1, warmup: float = 0.1) -> QueueRun:
    """One FIFO server fed by Poisson arrivals (mean gap `arrival_ns`): M/M/1 with an
    exponential service, M/D/1 with a deterministic one. The check of the engine against
    the closed forms every queueing text gives."""
    if not (math.isfinite(arrival_ns) and arrival_ns > 0):
        raise ModelError(f"arrival_ns must be finite and > 0, got {arrival_ns!r}")
    if service.mean_ns >= arrival_ns:
        raise ModelError("the server is saturated (service ≥ arrival gap): no steady state")
    if not 1 <= customers <= MAX_PACKETS:
        raise ModelError(f"customers must be in 1..{MAX_PACKETS:,}, got {customers!r}")
    rng = random.Random(seed)
    serve = service.sampler(rng)
    rate = 1.0 / arrival_ns
    skip = int(customers * warmup)
    total = skip + customers
    heap: list[tuple[float, int, int, float]] = [(rng.expovariate(rate), 0, 0, 0.0)]
    push, pop = heapq.heappush, heapq.heappop
    seq, events, arrived, finished = 1, 0, 0, 0
    queue: deque[float] = deque()  # arrival times of those waiting
    busy = False
    response = 0.0
    while finished < total:
        now, _, kind, came = pop(heap)
        events += 1
        if kind == 0:  # an arrival
            arrived += 1
            if arrived < total:
                push(heap, (now + rng.expovariate(rate), seq, 0, 0.0))
                seq += 1
            if busy:
                queue.append(now)
            else:
                busy = True
                push(heap, (now + serve(), seq, 1, now))
                seq += 1
            continue
        finished += 1  # a departure of the customer that arrived at `came`
        if finished > skip:
            response += now - came
        if queue:
            push(heap, (now + serve(), seq, 1, queue.popleft()))
            seq += 1
        else:
            busy = False
    return QueueRun(customers, response / customers, events)
