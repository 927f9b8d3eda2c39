"""The jobs are library functions (corpus/jobs/): called without the command line, they do
what the commands print. The CLI tests cover the commands; these show the functions stand on
their own, with their results as values."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyze.sim.errors import ModelError
from corpus.bundled import bundled_threads
from corpus.jobs.demo import make_demo
from corpus.jobs.ingest import ingest
from corpus.jobs.refresh import reanalyze_all
from corpus.jobs.verdicts import judge_stored_claims, scenario_of, simulate
from corpus.store import Store


def test_ingest_stores_analyses_and_says_what_it_did(db) -> None:
    with bundled_threads() as folder, Store.open(db) as store:
        mboxes = sorted(folder.glob("*.mbox"))
        first = ingest(store, mboxes)
        again = ingest(store, mboxes, analyse=False)
        counts = store.counts()
    assert first.stored.stored == counts.messages > 0 and first.problems == []
    assert first.analysed is not None and first.analysed.analyzed == first.stored.stored
    assert first.summary().startswith(f"{counts.messages} new, 0 already stored")
    assert again.analysed is None and again.stored.stored == 0
    assert again.stored.duplicates + again.stored.variants == again.stored.read > 0
    assert again.summary() == f"0 new, {again.stored.duplicates} already stored, " \
                              f"{again.stored.variants} variants"


def test_a_file_that_is_no_mail_is_a_problem_and_the_rest_goes_on(db, tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_bytes(b"\x00\x01binary")
    with bundled_threads() as folder, Store.open(db) as store:
        done = ingest(store, [junk, *sorted(folder.glob("*.mbox"))])
    assert [p.origin for p in done.problems] == [str(junk)]
    assert done.stored.stored > 0 and done.usable == done.stored.read


def test_reanalyze_all_with_verdicts_keeps_them(bundled_store) -> None:
    refreshed, judged = reanalyze_all(bundled_store, verdicts=True)
    assert refreshed.analyzed == bundled_store.counts().messages and refreshed.problems == ()
    kept = bundled_store.stored_verdicts([c["id"] for c in bundled_store.claim_docs()])
    assert judged == len(kept) > 0


def test_judged_claims_carry_their_verdicts_and_runs(bundled_store) -> None:
    docs = bundled_store.claim_docs()
    judged = judge_stored_claims(bundled_store, docs)
    filled = [d for d in docs if d.get("verdict")]
    assert filled and {d["id"] for d in filled} == set(judged.verdicts)
    assert {d["scenario_id"] for d in filled} >= set(judged.runs)
    assert judged.built and all(b.scenario.id in judged.runs for b in judged.built
                                if any(judged.verdicts[c][1]["status"] != "no_model"
                                       for c in b.claim_ids))


def test_simulate_a_library_scenario_and_a_stored_claim(bundled_store) -> None:
    library = simulate("tc-police-dummy-pktgen", bundled_store.location)
    assert library.claim is None and library.verdict.verdict == "reproduced"
    docs = bundled_store.claim_docs()
    judge_stored_claims(bundled_store, docs)
    claim_id = next(d["id"] for d in docs if (d.get("verdict") or {}).get("status") == "reproduced")
    stored = simulate(claim_id, bundled_store.location)
    assert stored.claim is not None and stored.claim["id"] == claim_id
    assert stored.verdict.verdict == "reproduced"
    assert scenario_of(claim_id, bundled_store.location) == stored.scenario



def test_simulate_takes_the_scenario_id_it_prints(bundled_store) -> None:
    """Issue 22: the id `simulate` prints for a built scenario (`auto-...`) was refused.
    With the verdicts kept, it names the scenario; without, the error says what to give."""
    docs = bundled_store.claim_docs()
    judged = judge_stored_claims(bundled_store, docs)
    scenario_id = next(iter(judged.runs))
    with pytest.raises(ModelError, match="no kept verdict names it"):
        simulate(scenario_id, bundled_store.location)
    bundled_store.save_verdicts(docs)
    again = simulate(scenario_id, bundled_store.location)
    assert again.scenario.id == scenario_id
    assert scenario_of(scenario_id, bundled_store.location).id == scenario_id


def test_make_demo_builds_a_store_of_its_own(tmp_path: Path) -> None:
    demo = make_demo(tmp_path / "demo")
    assert demo.store == tmp_path / "demo" / "patchperf.db" and demo.store.exists()
    assert demo.stored.stored == demo.analysed.analyzed > 0
    assert demo.doc["series"] and demo.judged.verdicts
    with Store.open(demo.store, readonly=True) as store:
        assert store.stored_verdicts(list(demo.judged.verdicts))
    again = make_demo(tmp_path / "demo")  # made afresh, not added to
    assert again.stored.stored == demo.stored.stored
