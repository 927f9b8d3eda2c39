"""Claims in the store: `patchperf claims` with its filters, and in `report`."""

from __future__ import annotations

import pytest


@pytest.fixture
def seeds_db(cli, seeds_dir, db):
    result = cli("ingest", seeds_dir, "--db", db)
    assert result.code == 0, result.err
    return db


def test_claims_are_stored_and_listed(cli, seeds_db):
    claims = cli("claims", "--db", seeds_db, "--format", "json").json()["claims"]
    assert len(claims) == 13
    assert len({c["id"] for c in claims}) == 13


@pytest.mark.parametrize(
    ("args", "count"),
    [
        (("--metric", "transactions"), 9),
        (("--metric", "throughput"), 4),
        (("--direction", "regression"), 1),
        (("--author", "jason baron"), 9),
        (("--author", "davide"), 3),
        (("--since", "2018-01-01"), 3),
    ],
)
def test_claims_filters(cli, seeds_db, args, count):
    claims = cli("claims", *args, "--db", seeds_db, "--format", "json").json()["claims"]
    assert len(claims) == count, [c["quote"] for c in claims]


def test_claims_of_a_series_and_a_quoted_origin(cli, seeds_db):
    # seed 000 quotes a patch that is not in the store: the claim is still found by its reply
    claims = cli("claims", "--series", "55966CEF.3000406@mojatatu.com", "--db", seeds_db,
                 "--format", "json").json()["claims"]
    assert claims == []  # a reply alone forms no series
    report = cli("report", "55966CEF.3000406@mojatatu.com", "--db", seeds_db, "--format", "json").json()
    assert [c["found_in"] for c in report["claims"]] == ["55966CEF.3000406@mojatatu.com"]


def test_report_tables_show_claims(cli, seeds_db):
    table = cli("report", "--all", "--db", seeds_db)
    assert table.code == 0 and "Claims" in table.out and "3,518,448" in table.out
    markdown = cli("report", "--all", "--db", seeds_db, "--format", "markdown").out
    assert "## Claims" in markdown and "instances=65" in markdown


def test_claims_after_reingest_are_unchanged(cli, seeds_dir, seeds_db):
    before = cli("claims", "--db", seeds_db, "--format", "json").json()
    assert cli("ingest", seeds_dir, "--db", seeds_db).code == 0
    assert cli("claims", "--db", seeds_db, "--format", "json").json() == before
