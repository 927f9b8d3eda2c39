"""`patchperf report` and `patchperf demo` over a real store built from the bundled corpus."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest


@pytest.fixture
def corpus_db(bundled_copy):
    return bundled_copy


def test_report_all_lists_series_with_versions_and_trailers(cli, corpus_db):
    doc = cli("report", "--all", "--db", corpus_db, "--format", "json").json()
    by_version = {(s["name"], s["version"]): s for s in doc["series"]}
    v1 = next(s for (name, v), s in by_version.items() if v == 1 and s["total"] == 3)
    v2 = by_version[(v1["name"], 2)]
    assert v2["previous_version"] == v1["id"]
    assert v1["complete"] is True and v2["complete"] is True
    assert len(v2["patches"]) == 3 and v2["cover"]
    given = {t["key"] for t in v2["received_trailers"]}
    assert all(v2["trailer_counts"].get(k, 0) >= 1 for k in ("Acked-by", "Reviewed-by", "Tested-by"))
    assert {"Acked-by", "Reviewed-by", "Tested-by"} <= given
    assert any(s["pull_request"] for s in doc["series"])

    table = cli("report", "--all", "--db", corpus_db)
    assert table.code == 0
    assert v1["name"][:30] in table.out


def test_report_one_series_by_id_and_by_message_id(cli, corpus_db):
    doc = cli("report", "--all", "--db", corpus_db, "--format", "json").json()
    series = next(s for s in doc["series"] if s["cover"])
    by_id = cli("report", series["id"], "--db", corpus_db, "--format", "json").json()
    assert [s["id"] for s in by_id["series"]] == [series["id"]]
    member_keys = {m["key"] for m in by_id["messages"]}
    assert {series["cover"], *series["patches"]} <= member_keys

    by_mid = cli("report", f"<{series['patches'][0]}>", "--db", corpus_db, "--format", "json").json()
    assert [s["id"] for s in by_mid["series"]] == [series["id"]]


def test_report_unknown_id_is_a_usage_error(cli, corpus_db):
    result = cli("report", "no-such-thing@example.org", "--db", corpus_db)
    assert result.code == 2
    assert "no-such-thing@example.org" in result.err


def test_report_since(cli, corpus_db):
    everything = cli("report", "--all", "--db", corpus_db, "--format", "json").json()
    dates = sorted(datetime.fromisoformat(m["date"]).astimezone(UTC) for m in everything["messages"])
    newest = dates[-1]
    age_days = (datetime.now(UTC) - newest).days + 2
    recent = cli("report", "--since", f"{age_days}d", "--db", corpus_db, "--format", "json").json()
    cutoff = datetime.now(UTC) - timedelta(days=age_days)
    expected = [d for d in dates if d >= cutoff]
    assert len(recent["messages"]) == len(expected) > 0
    assert len(recent["messages"]) < len(everything["messages"])
    since_date = cli("report", "--since", newest.date().isoformat(), "--db", corpus_db, "--format", "json").json()
    assert since_date["messages"]


def test_report_markdown_to_file(cli, corpus_db, tmp_path):
    out = tmp_path / "r.md"
    result = cli("report", "--all", "--db", corpus_db, "--format", "markdown", "-o", out)
    assert result.code == 0 and result.out == ""
    text = out.read_text()
    # series by series, the largest claimed change first (act_skbedit's +109.6 % at 4
    # threads, then page_pool's -77 % CPU)
    assert text.startswith("### net/sched: act\\_skbedit: count in per-cpu stats")
    assert text.index("act\\_skbedit") < text.index("### page\\_pool: refill the alloc cache in one batch\n")
    assert "| metric | condition | before → after | change | stated | agrees | verdict |" in text
    assert "- Reviewed-by: Priya Raman \\<`priya.raman@example.in`\\>" in text  # no autolink


def test_global_options_before_or_after_and_env(cli, corpus_db, monkeypatch):
    after = cli("report", "--all", "--format", "json", "--db", corpus_db).json()
    before = cli("--db", corpus_db, "report", "--all", "--format", "json").json()
    monkeypatch.setenv("PATCHPERF_DB", str(corpus_db))
    env = cli("report", "--all", "--format", "json").json()
    assert after == before == env and after["messages"]


def test_bad_since_is_a_usage_error(cli, corpus_db):
    result = cli("report", "--since", "last tuesday", "--db", corpus_db)
    assert result.code == 2 and "last tuesday" in result.err


def test_demo_uses_its_own_store(cli, tmp_path, monkeypatch):
    user_db = tmp_path / "user.db"
    monkeypatch.setenv("PATCHPERF_DB", str(user_db))
    demo_dir = tmp_path / "demo"
    result = cli("demo", "--dir", demo_dir, "--format", "json")
    assert result.code == 0, result.err
    doc = result.json()
    assert len(doc["series"]) >= 4 and len(doc["messages"]) >= 15
    assert (demo_dir / "patchperf.db").exists()
    assert not user_db.exists()
    again = cli("demo", "--dir", demo_dir, "--format", "json")
    assert again.json() == doc  # a fresh demo store each time: same report


def test_demo_refuses_a_store_named_for_it(cli, tmp_path):
    """`--db` would name a store the demo never touches: a usage error, not silence."""
    result = cli("--db", tmp_path / "mine.db", "demo", "--dir", tmp_path / "demo")
    assert result.code == 2 and "--dir" in result.err
    assert not (tmp_path / "mine.db").exists() and not (tmp_path / "demo").exists()


def test_scenario_takes_the_global_options(cli, tmp_path):
    result = cli("scenario", "--db", tmp_path / "x.db", "show", "tc-police-dummy-pktgen")
    assert result.code == 0 and 'id = "tc-police-dummy-pktgen"' in result.out


def test_the_readme_example_is_what_report_prints(cli, bundled_db, monkeypatch) -> None:
    """Issue 21, acceptance 6: the verdicts README.md shows are the report's, not typed: its
    example panel is printed by `report --all --verdicts` on the bundled corpus."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    command = "$ patchperf --db .demo/patchperf.db report --all --verdicts"
    block = readme.split(command, 1)[1].split("\n```", 1)[0]
    panel = [line for line in block.splitlines()[1:] if line]
    assert len(panel) >= 6 and "reproduced" in block
    monkeypatch.setenv("COLUMNS", str(len(panel[0])))
    out = cli("--db", bundled_db, "report", "--all", "--verdicts").out
    assert "\n".join(panel) in out


def test_an_empty_window_says_how_to_see_more(cli, tmp_path) -> None:
    """Issue 22: `report` alone on a store whose mail is older than 7 days said only
    "Nothing to report."."""
    old = tmp_path / "old.eml"
    old.write_text("From: A <a@example.org>\nSubject: [PATCH net] x\nMessage-ID: <old@x>\n"
                   "Date: Mon, 02 Sep 2019 10:00:00 +0000\n\nBody.\n", encoding="utf-8")
    db = tmp_path / "s.db"
    assert cli("--db", db, "ingest", old).code == 0
    result = cli("report", "--db", db)
    assert result.code == 0 and "Nothing to report." in result.out
    assert "--all reports every series" in result.err and "1 messages stored" in result.err
    assert "--all reports" not in cli("report", "--db", db, "--all").err


def test_the_demo_hint_names_a_command_that_runs(tmp_path, monkeypatch):
    """`make demo` ended with "browse it with `patchperf --db … tui`", but `patchperf` is
    not on PATH after it, only `.venv/bin/patchperf`: the hint names the program that ran
    unless `patchperf` on PATH is that very program."""
    from reports.cli import this_command

    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    program = venv_bin / "patchperf"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "patchperf").write_text("#!/bin/sh\n")
    (other / "patchperf").chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert this_command(str(program)) == ".venv/bin/patchperf"
    monkeypatch.setenv("PATH", f"{other}:/usr/bin")  # another patchperf first on PATH
    assert this_command(str(program)) == ".venv/bin/patchperf"
    monkeypatch.setenv("PATH", f"{venv_bin}:/usr/bin")  # an activated venv
    assert this_command(str(program)) == "patchperf"
    monkeypatch.chdir(other)
    monkeypatch.setenv("PATH", "/usr/bin")
    assert this_command(str(program)) == str(program)
