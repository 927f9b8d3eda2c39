"""Properties the whole pipeline keeps (issue 7): ingest is idempotent and the order of the
messages does not matter; JSON output round-trips; every claim's computed change agrees
with its own figures; the analysis of a message does not depend on what the store already
holds; filters from the command line are data, never SQL."""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus.bundled import bundled_threads
from corpus.store import Store

SEP = b"From mboxrd@z Thu Jan  1 00:00:00 1970\n"


def _messages_of_bundled() -> list[bytes]:
    with bundled_threads() as folder:
        data = b"".join(p.read_bytes() for p in sorted(folder.glob("*.mbox")))
    return [SEP + m for m in data.split(SEP) if m]


MESSAGES = _messages_of_bundled()


def _derived(db: str) -> dict[str, object]:
    with Store.open(db, readonly=True) as store:
        dump = store.dump()
    return {
        "messages": sorted(m["content_hash"] for m in dump["messages"].values()),
        "analyses": sorted((key, {k: v for k, v in a["doc"].items() if k != "origin"})
                           for key, a in dump["analyses"].items()),
        "claims": dump["claims"],
        "series": {sid: s["doc"] for sid, s in dump["series"].items()},
    }


@pytest.fixture(scope="module")
def in_order(tmp_path_factory, session_make_db) -> dict[str, object]:
    from reports.cli import main

    root = tmp_path_factory.mktemp("order")
    mbox = root / "all.mbox"
    mbox.write_bytes(b"".join(MESSAGES))
    db = session_make_db()
    assert main(["--db", db, "--quiet", "ingest", str(mbox)]) == 0
    return _derived(db)


@settings(max_examples=4, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 4))
def test_any_order_and_any_split_gives_the_same_store(in_order, tmp_path_factory, session_make_db,
                                                      rnd: random.Random, parts: int) -> None:
    """The bundled mail shuffled, cut into files ingested one after the other, and the first
    file ingested twice: the same messages, analyses, claims and series."""
    from reports.cli import main

    root = tmp_path_factory.mktemp("shuffled")
    shuffled = list(MESSAGES)
    rnd.shuffle(shuffled)
    size = -(-len(shuffled) // parts)
    files = []
    for k in range(parts):
        path = root / f"part{k}.mbox"
        path.write_bytes(b"".join(shuffled[k * size:(k + 1) * size]))
        files.append(path)
    db = session_make_db()
    for path in [*files, files[0]]:
        assert main(["--db", str(db), "--quiet", "ingest", str(path)]) == 0
    assert _derived(db) == in_order


def test_json_round_trips(db, cli, tmp_path: Path) -> None:
    """What `report --format json` prints loads back to the same value, and printed again
    is the same text (no float drift, no lost key, escapes kept as escapes)."""
    with bundled_threads() as folder:
        assert cli("--db", db, "--quiet", "ingest", *sorted(folder.glob("*.mbox"))).code == 0
    text = cli("report", "--all", "--verdicts", "--format", "json", "--db", db).out
    doc = json.loads(text)
    assert json.loads(json.dumps(doc, ensure_ascii=False)) == doc
    again = cli("report", "--all", "--verdicts", "--format", "json", "--db", db).out
    assert again == text


def test_every_claim_agrees_with_its_own_figures(cli, seeds_dir: Path, tmp_path: Path) -> None:
    """change_pct is (patched - baseline) / baseline in canonical units, for every claim of
    the bundled corpus, the seeds and the claims evaluation set; its direction follows."""
    claims_set = Path(__file__).parent / "data" / "claims"
    paths = [*sorted(seeds_dir.glob("*.txt")), *sorted(claims_set.glob("*.eml")),
             *sorted(claims_set.glob("*.mbox"))]
    with bundled_threads() as folder:
        paths += sorted(folder.glob("*.mbox"))
        doc = cli("analyze", *paths, "--format", "json").json()
    checked = 0
    for c in doc["claims"]:
        b, p = c["baseline_canonical"], c["patched_canonical"]
        if c["change_pct"] is None or b is None or p is None or b == 0:
            continue
        assert math.isclose(c["change_pct"], 100 * (p - b) / abs(b), rel_tol=1e-4, abs_tol=1e-4), c
        checked += 1
    assert checked >= 100


@pytest.mark.parametrize("mid", [
    "20261124081200.5521-1-nadia.haddad@example.net",  # a patch with a table of its own
    "5f1d2e3c-0a9b-4c8d-b7e6-3a2f1e0d9c8b@example.in",  # a review quoting the patch's figures
])
def test_analysis_does_not_depend_on_the_store(make_db, cli, tmp_path: Path, mid: str) -> None:
    """One message analysed into an empty store and into a store holding the rest of the
    corpus (its parent included) gives the same analysis and the same claims of its own,
    quoted ones attributed to the same message."""
    header = re.compile(rb"(?im)^Message-ID:\s*<" + re.escape(mid.encode()) + rb">")
    target = next(m for m in MESSAGES if header.search(m))
    alone, crowded = make_db(), make_db()
    one = tmp_path / "one.mbox"
    one.write_bytes(target)
    rest = tmp_path / "rest.mbox"
    rest.write_bytes(b"".join(m for m in MESSAGES if m is not target))
    assert cli("--db", crowded, "--quiet", "ingest", rest).code == 0
    for db in (alone, crowded):
        assert cli("--db", db, "--quiet", "ingest", one).code == 0

    def own(db: str) -> tuple[object, object]:
        with Store.open(db, readonly=True) as store:
            dump = store.dump()
        return dump["analyses"][mid]["doc"], dump["claims"].get(mid)

    assert own(alone) == own(crowded) and own(alone)[1]


@pytest.mark.parametrize("value", ["'; DROP TABLE messages; --", "%", "_", '" OR 1=1 --', "\x00"])
def test_filters_are_data_not_sql(db, cli, tmp_path: Path, value: str) -> None:
    with bundled_threads() as folder:
        assert cli("--db", db, "--quiet", "ingest", *sorted(folder.glob("*.mbox"))).code == 0
    for args in (["report", "--all", "--author", value], ["report", "--all", "--tree", value],
                 ["claims", "--author", value], ["claims", "--series", value]):
        result = cli(*args, "--db", db, "--format", "json")
        # found nothing, and said so: a SQL error would be a StoreError, exit 2
        assert result.code == 0, (args, result.err)
        assert result.json()["series"] == [] and result.json()["claims"] == []
    with Store.open(db, readonly=True) as store:
        assert store.counts().messages == len(MESSAGES)
