"""The kernel test robot's reports linked to series in the store, whichever mail comes first,
shown beside the series' claims, and claims followed across versions (issue 23).

tests/data/robot/veth-gro.mbox (written by tests/data/robot/write.py, in the real shapes): a
series in three versions whose netperf figures move, and four robot reports: one on v2's
second patch with its `patch link:` (a reply in v2's thread, measuring a regression where
v2 claims an improvement), one on a merged commit named by its subject (v3), one on a commit
whose subject was reworded when applied (linked by the commit patchwork-bot named), one on a
commit of no stored series."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import DATA
from stores import ingest_into

from corpus.store import Store

pytestmark = pytest.mark.store

MBOX = DATA / "robot" / "veth-gro.mbox"
ON_V2_PATCH = "202611201122.5a6b7c8d-lkp@intel.com"
BY_SUBJECT = "202612011045.0a1b2c3d-lkp@intel.com"
BY_APPLIED = "202612021530.9f8e7d6c-lkp@intel.com"
UNLINKED = "202612031200.12345678-lkp@intel.com"


def _links(db: str) -> dict[str, tuple[int | None, str | None, str]]:
    """Each stored report: (the version of its series, rule, reason)."""
    with Store.open(db, readonly=True) as store:
        versions = {s["id"]: s["version"] for s in store.all_series()}
        return {r["key"]: (versions.get(r["series_id"]), r["rule"], r["reason"])
                for r in store.robot_reports()}


def _split(tmp_path: Path) -> tuple[Path, Path]:
    """The mbox as two: the robot's mail, and the rest."""
    mails = MBOX.read_text().split("From mboxrd@z Thu Jan  1 00:00:00 1970\n")[1:]
    robot = [m for m in mails if m.startswith("From: kernel test robot")]
    rest = [m for m in mails if m not in robot]
    out = []
    for name, part in (("robot.mbox", robot), ("rest.mbox", rest)):
        path = tmp_path / name
        path.write_text("".join(f"From mboxrd@z Thu Jan  1 00:00:00 1970\n{m}" for m in part))
        out.append(path)
    return out[0], out[1]


EXPECTED = {
    ON_V2_PATCH: (2, "patch link"),
    BY_SUBJECT: (3, "subject"),
    BY_APPLIED: (3, "applied"),
    UNLINKED: (None, None),
}


def test_each_report_is_linked_by_the_first_rule_that_finds_its_series(db: str) -> None:
    ingest_into(db, MBOX)
    links = _links(db)
    assert {k: v[:2] for k, v in links.items()} == EXPECTED
    assert links[ON_V2_PATCH][2] == "patch link <20261117090000.2000-2-ana.lopes@example.org>"
    assert links[UNLINKED][2] == ('no stored series matches (commit subject "net: sched: skip '
                                  'the empty qdisc check", commit aabbccddeeff)')


def test_reports_stored_before_their_series_link_once_it_comes(db: str, tmp_path: Path) -> None:
    robot, rest = _split(tmp_path)
    ingest_into(db, robot)
    assert {k: v[:2] for k, v in _links(db).items()} == dict.fromkeys(EXPECTED, (None, None))
    ingest_into(db, rest)
    assert {k: v[:2] for k, v in _links(db).items()} == EXPECTED


def test_reports_stored_after_their_series(db: str, tmp_path: Path) -> None:
    robot, rest = _split(tmp_path)
    ingest_into(db, rest)
    assert _links(db) == {}
    ingest_into(db, robot)
    assert {k: v[:2] for k, v in _links(db).items()} == EXPECTED


def test_links_survive_analyze_all(db: str, cli: Any) -> None:
    ingest_into(db, MBOX)
    before = _links(db)
    assert cli("--db", db, "analyze", "--all").code == 0
    assert _links(db) == before


def test_the_robots_findings_are_not_the_series_claims(db: str) -> None:
    """v2's thread holds the report (a reply to its patch): its two rows are the robot's,
    beside v2's one claim, and do not count towards v2's claims or largest change."""
    ingest_into(db, MBOX)
    with Store.open(db, readonly=True) as store:
        rows = store.series_page(limit=10)
    v2 = next(r for r in rows if r.version == 2)
    assert (v2.claims, round(v2.effect or 0, 1)) == (1, 21.5)


def _series(doc: dict[str, Any], version: int) -> dict[str, Any]:
    return next(s for s in doc["series"] if s["version"] == version)


def test_the_report_shows_them_side_by_side(db: str, cli: Any) -> None:
    ingest_into(db, MBOX)
    doc = cli("--db", db, "report", "--all", "--format", "json").json()  # schema-checked
    v2, v3 = _series(doc, 2), _series(doc, 3)
    [report] = v2["robot_reports"]
    assert (report["message_id"], report["rule"], report["testcase"]) == (
        ON_V2_PATCH, "patch link", "netperf")
    assert report["patch_link"] == "20261117090000.2000-2-ana.lopes@example.org"  # %40 read
    assert [(f["measure"], round(f["change_pct"], 1), f["direction"]) for f in report["findings"]] == [
        ("netperf.Throughput_Mbps", -12.5, "regression"),
        ("netperf.Throughput_total_Mbps", -12.5, "regression")]
    assert {(d["claimed"], d["measured"], d["family"], d["metric"])
            for d in v2["robot_disagreements"]} == {("improvement", "regression", "netperf",
                                                     "throughput")}
    assert [(r["message_id"], r["rule"]) for r in v3["robot_reports"]] == [
        (BY_SUBJECT, "subject"), (BY_APPLIED, "applied")]
    assert "robot_disagreements" not in v3  # an improvement; will-it-scale's is another family
    assert [r["message_id"] for r in doc["unlinked_robot_reports"]] == [UNLINKED]
    # the robot's rows are not among the series' claims, nor lone mail
    claim_mail = {c["found_in"] for c in doc["claims"]}
    assert not claim_mail & set(EXPECTED)
    assert not {m["key"] for m in doc["messages"]} - {
        k for s in doc["series"] for k in (s["cover"], *s["patches"], *s.get("replies", []))}


def test_disagree_lists_only_the_series_the_robot_contradicts(db: str, cli: Any) -> None:
    ingest_into(db, MBOX)
    doc = cli("--db", db, "report", "--all", "--disagree", "--format", "json").json()
    assert [s["version"] for s in doc["series"]] == [2]
    shown = cli("--db", db, "report", "--all", "--disagree")
    assert "regression: disagrees with a claim" in shown.out
    assert "Ana Lopes" in shown.out and "v3" not in shown.out.split("Kernel test robot")[0]


def test_claims_followed_across_versions(db: str, cli: Any) -> None:
    """v1 24.9, v2 26.0 (+4.4 %, past the 2 % default noise; v2's changelog names no
    benchmark: flagged), v3 25.1 ± 1 % (−3.5 %; its changelog says netperf was re-measured)."""
    ingest_into(db, MBOX)
    doc = cli("--db", db, "report", "--all", "--format", "json").json()
    [track] = _series(doc, 3)["version_tracks"]
    assert "version_tracks" not in _series(doc, 2)  # shown on the newest version only
    assert [(p["version"], p["patched"], p["flagged"]) for p in track["points"]] == [
        (1, 24.9, False), (2, 26.0, True), (3, 25.1, False)]
    assert "netperf TCP_STREAM throughput" in track["points"][2]["explained_by"]
    # a report of v2 alone follows v2 back to v1
    v2_id = _series(doc, 2)["id"]
    alone = cli("--db", db, "report", v2_id, "--format", "json").json()
    [track] = _series(alone, 2)["version_tracks"]
    assert [p["version"] for p in track["points"]] == [1, 2]
    text = cli("--db", db, "report", "--all").out
    assert "v2 21.4 → 26 Gbit/s (moved 4.4 %, flagged)" in text
    assert "no changelog line of v2 names the benchmark or the metric" in text


def test_files_analysed_in_memory_link_alike(cli: Any) -> None:
    doc = cli("analyze", MBOX, "--format", "json").json()
    assert {r["message_id"]: r["rule"] for s in doc["series"]
            for r in s.get("robot_reports", [])} == {
        k: rule for k, (_, rule) in EXPECTED.items() if rule}
    assert [r["message_id"] for r in doc["unlinked_robot_reports"]] == [UNLINKED]

