"""Claims judged by the simulator: the scenario built for each claim series, run once, and
each claim's verdict (`analyze --verdicts`, `report`, `claims`, `simulate CLAIM_ID`, the
TUI's `s`).

A stored claim's scenario is built from the stored raw mail of the message the claim was read in (and of the message it
was first written in, when the store has it): the same path `patchperf analyze` takes, so a
claim gets the same scenario from the store as from the file. Judging every claim series at
ingest would cost 5-300 ms a series; asked for one claim, it costs that once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from analyze.claims.extract import claims_of
from analyze.errors import BadInput
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.mail.message import parse_message
from analyze.model import Claim, Message
from analyze.serialize import claim_to_dict
from analyze.sim.build import Built, Plan, build_scenarios, plan_scenarios, verdict_of_claim
from analyze.sim.errors import ModelError
from analyze.sim.predict import Verdict, judge, no_model
from analyze.sim.scenario import Scenario
from corpus.library import constants_for, find_scenario, is_library_ref
from corpus.location import StoreLocation
from corpus.store import Store


def judge_stored_claim(store: Store, claim_id: str, limits: Limits = DEFAULT_LIMITS,
                       ) -> tuple[Scenario, Verdict, dict[str, Any]]:
    """The claim's scenario, its verdict, and the claim's document with both filled in.
    ModelError when there is no such claim or no scenario can be built for it. `limits`:
    those the mail was analysed with (`PATCHPERF_LIMIT_*`), to read it again the same."""
    copies = store.claim_docs_by_id(claim_id)
    if not copies:
        raise ModelError(f"{claim_id}: no such claim in {store.location}")
    keys = [copies[0]["found_in"]]
    if copies[0].get("message_id") and copies[0]["message_id"] not in keys:
        keys.append(copies[0]["message_id"])
    messages: list[Message] = []
    for key in keys:
        raw = store.get_raw(key)
        if raw is None:
            continue
        try:
            messages.append(parse_message(raw, key, limits))
        except BadInput as exc:
            raise ModelError(f"{claim_id}: its message {key} cannot be read again: {exc}") from None
    claims = claims_of(messages, limits)
    for built in build_scenarios(claims, messages):
        if claim_id in built.claim_ids:
            verdict = judge(built.scenario, constants_for(built.scenario))
            claim = next(c for c in claims if c.id == claim_id)
            doc = claim_to_dict(claim)
            doc["scenario_id"] = built.scenario.id
            doc["verdict"] = verdict_of_claim(built, claim_id, verdict)
            return built.scenario, verdict, doc
    raise ModelError(f"{claim_id}: no scenario can be built for this claim (it sweeps no "
                     "condition patchperf models, or its mail names no workload)")


def stored_scenarios(store: Store, docs: list[dict[str, Any]], limits: Limits = DEFAULT_LIMITS) -> Plan:
    """The scenarios built for these stored claims, each once, from the stored raw mail of
    the messages the claims were read in (and first written in), and why each claim in none
    is in none. The mail of each message is read once however many of its claims are given."""
    by_message: dict[str, list[dict[str, Any]]] = {}
    for doc in docs:
        by_message.setdefault(doc["found_in"], []).append(doc)
    found: dict[str, Built] = {}
    skipped: dict[str, str] = {}
    for key, shown in by_message.items():
        messages = []
        for ref in dict.fromkeys([key] + [d["message_id"] for d in shown if d.get("message_id")]):
            raw = store.get_raw(ref)
            if raw is None:
                continue
            try:
                messages.append(parse_message(raw, ref, limits))
            except BadInput:
                continue  # stored, but no longer readable: its claims keep no verdict
        claims = claims_of(messages, limits)
        wanted = {d["id"] for d in shown}
        plan = plan_scenarios(claims, messages)
        for built in plan.built:
            if wanted & set(built.claim_ids):
                found.setdefault(built.scenario.id, built)
        skipped.update((k, v) for k, v in plan.skipped.items() if k in wanted)
        for cid in wanted - set(plan.skipped) - {c for b in plan.built for c in b.claim_ids}:
            skipped[cid] = ("its mail can no longer be read again: no scenario"
                            if not messages else "the claim is not read from its mail again")
    # series first, as plan_scenarios orders them: views show the first scenario
    return Plan(tuple(sorted(found.values(), key=lambda b: len(b.claim_ids) == 1)), skipped)


# claim id -> (scenario id, None for a claim in no scenario; verdict object)
Verdicts = dict[str, tuple[str | None, dict[str, Any]]]


@dataclass
class Judged:
    """Claims judged: each claim's scenario id and verdict object, by claim id; the scenarios
    built; and each scenario the models could run with its verdict, by scenario id (what the
    HTML report and the TUI plot)."""

    verdicts: Verdicts = field(default_factory=dict)
    built: list[Built] = field(default_factory=list)
    runs: dict[str, tuple[Scenario, Verdict]] = field(default_factory=dict)

    def fill(self, docs: Iterable[dict[str, Any]]) -> None:
        """Give each claim document judged its `scenario_id` and `verdict`, in place."""
        for doc in docs:
            if doc["id"] in self.verdicts:
                doc["scenario_id"], doc["verdict"] = self.verdicts[doc["id"]]


def judge_scenarios(built: Iterable[Built], skipped: dict[str, str] | None = None) -> Judged:
    """Run each built scenario once. One the models cannot run gives its claims a
    `no_model` verdict with the reason; so does each claim in no scenario (`skipped`: why)."""
    judged = Judged()
    for cid, reason in (skipped or {}).items():
        judged.verdicts[cid] = (None, no_model(reason))
    for one in built:
        judged.built.append(one)
        try:
            verdict = judge(one.scenario, constants_for(one.scenario))
        except ModelError as exc:
            for cid in one.claim_ids:
                judged.verdicts[cid] = (one.scenario.id, no_model(str(exc)))
            continue
        judged.runs[one.scenario.id] = (one.scenario, verdict)
        for cid in one.claim_ids:
            judged.verdicts[cid] = (one.scenario.id, verdict_of_claim(one, cid, verdict))
    return judged


def judge_claims(claims: Sequence[Claim], messages: Sequence[Message]) -> Judged:
    """Claims analysed in memory (`patchperf analyze --verdicts`), judged: asked for, since
    judging costs 5-300 ms a claim series (6x the analysis of a 2,000-message mbox)."""
    plan = plan_scenarios(claims, messages)
    return judge_scenarios(plan.built, plan.skipped)


def judge_stored_claims(store: Store, docs: list[dict[str, Any]],
                        limits: Limits = DEFAULT_LIMITS) -> Judged:
    """Judge these claim documents from the store and fill in their `scenario_id` and
    `verdict`, in place (`patchperf claims --verdicts`, `report --verdicts`). Each scenario
    is judged once, however many of its claims are shown."""
    plan = stored_scenarios(store, docs, limits)
    judged = judge_scenarios(plan.built, plan.skipped)
    judged.fill(docs)
    return judged


_BUILT = re.compile(r"auto-[0-9a-f]{10}")  # the id of a scenario built from a stored claim


def _claim_ref(store: Store, ref: str) -> str:
    """A claim id as given, or one whose kept verdict names the built scenario `ref`."""
    if not _BUILT.fullmatch(ref):
        return ref
    claim = store.claim_of_scenario(ref)
    if claim is None:
        raise ModelError(f"{ref}: a scenario built from stored claims, and no kept verdict "
                         "names it: give one of its claims' ids (`patchperf claims` lists "
                         "them), or keep the verdicts first (`patchperf analyze --all "
                         "--verdicts`)")
    return claim


@dataclass(frozen=True)
class Simulated:
    """A scenario judged; with the stored claim it was built for, when REF named a claim."""

    scenario: Scenario
    verdict: Verdict
    claim: dict[str, Any] | None = None


def simulate(ref: str, location: StoreLocation, limits: Limits = DEFAULT_LIMITS) -> Simulated:
    """`patchperf simulate REF`: a scenario file, a library id, or the scenario built for a
    stored claim (read from the store at `location`), judged."""
    if not is_library_ref(ref) or _BUILT.fullmatch(ref):
        with Store.open(location, readonly=True) as store:
            return Simulated(*judge_stored_claim(store, _claim_ref(store, ref), limits))
    scenario = find_scenario(ref)
    return Simulated(scenario, judge(scenario, constants_for(scenario)))


def scenario_of(ref: str, location: StoreLocation, limits: Limits = DEFAULT_LIMITS) -> Scenario:
    """`patchperf scenario show|export REF`: a scenario file, a library id, or the scenario
    built for a stored claim."""
    if not is_library_ref(ref) or _BUILT.fullmatch(ref):
        with Store.open(location, readonly=True) as store:
            return judge_stored_claim(store, _claim_ref(store, ref), limits)[0]
    return find_scenario(ref)
