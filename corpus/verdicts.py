"""A stored claim's scenario and verdict, on demand (`patchperf simulate CLAIM_ID`).

Built from the stored raw mail of the message the claim was read in (and of the message it
was first written in, when the store has it): the same path `patchperf analyze` takes, so a
claim gets the same scenario from the store as from the file. Judging every claim series at
ingest would cost 5-300 ms a series; asked for one claim, it costs that once.
"""

from __future__ import annotations

from typing import Any

from analyze.claims.extract import claims_of
from analyze.errors import BadInput
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.mail.message import parse_message
from analyze.model import Message
from analyze.serialize import claim_to_dict
from analyze.sim.build import Built, build_scenarios, verdict_of_claim
from analyze.sim.errors import ModelError
from analyze.sim.predict import Verdict, judge
from analyze.sim.scenario import Scenario

from .library import constants_for
from .store import Store


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


def stored_scenarios(store: Store, docs: list[dict[str, Any]], limits: Limits = DEFAULT_LIMITS) -> list[Built]:
    """The scenarios built for these stored claims, each once, from the stored raw mail of
    the messages the claims were read in (and first written in). The mail of each message is
    read once however many of its claims are given."""
    by_message: dict[str, list[dict[str, Any]]] = {}
    for doc in docs:
        by_message.setdefault(doc["found_in"], []).append(doc)
    found: dict[str, Built] = {}
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
        for built in build_scenarios(claims, messages):
            if wanted & set(built.claim_ids):
                found.setdefault(built.scenario.id, built)
    return list(found.values())


def judge_built(built: Built) -> tuple[Verdict | None, dict[str, tuple[str, dict[str, Any]]]]:
    """Run one built scenario: its verdict (None when the models cannot run it) and each of
    its claims' (scenario id, the contract's verdict object)."""
    try:
        verdict = judge(built.scenario, constants_for(built.scenario))
    except ModelError as exc:
        missing = {"status": "no_model", "predicted_change_pct": None, "band_pct": None,
                   "reason": str(exc)}
        return None, {cid: (built.scenario.id, dict(missing)) for cid in built.claim_ids}
    return verdict, {cid: (built.scenario.id, verdict_of_claim(built, cid, verdict))
                     for cid in built.claim_ids}


def judge_stored_claims(store: Store, docs: list[dict[str, Any]],
                        runs: dict[str, tuple[Scenario, Verdict]] | None = None,
                        limits: Limits = DEFAULT_LIMITS) -> dict[str, tuple[str, dict[str, Any]]]:
    """Fill in `scenario_id` and `verdict` of each claim document from the store, in place
    (`patchperf claims --verdicts`, `report --verdicts`), and return them by claim id. Each
    scenario is judged once, however many of its claims are shown. `runs`, when given,
    receives each judged scenario and its verdict by scenario id (the HTML plots)."""
    verdicts: dict[str, tuple[str, dict[str, Any]]] = {}
    for built in stored_scenarios(store, docs, limits):
        verdict, judged = judge_built(built)
        if verdict is not None and runs is not None:
            runs[built.scenario.id] = (built.scenario, verdict)
        verdicts.update(judged)
    for doc in docs:
        if doc["id"] in verdicts:
            doc["scenario_id"], doc["verdict"] = verdicts[doc["id"]]
    return verdicts
