"""`patchperf report` read series by series: the digest's filters and ranking, and the HTML
report, over a real store built from the bundled corpus."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from corpus.bundled import bundled_threads


@pytest.fixture(scope="module")
def corpus_db(session_make_db):
    from reports.cli import main

    db = session_make_db()
    with bundled_threads() as folder:
        assert main(["--db", db, "--quiet", "ingest", *map(str, sorted(folder.glob("*.mbox")))]) == 0
    return db


def _names(doc):
    return [s["name"] for s in doc["series"]]


def test_series_are_ranked_by_the_largest_claimed_change(cli, corpus_db):
    table = cli("report", "--all", "--db", corpus_db).out
    order = [table.index(name) for name in (
        "net/sched: act_skbedit: count in per-cpu",  # 109.6 % at 4 threads
        "page_pool: refill the alloc cache",  # 54.9 % (XDP_DROP; a profile share is no claim)
        "net: veth: batch GRO flushes",  # 13.4 %
        "bpf: cpumap: prefetch the frame",  # 5.6 %
        "Networking for v6.9-rc2",  # 3.2 %
    )]
    assert order == sorted(order)
    assert "largest claimed change 109.6 %" in table and "largest claimed change 54.9 %" in table
    assert "v2 (after v1) · net-next · 3/3 patches" in table
    assert "files drivers/net/veth.c" in table


def test_json_lists_the_series_ranked_like_the_table(cli, corpus_db):
    doc = cli("report", "--all", "--db", corpus_db, "--format", "json").json()
    assert [s["name"][:24] for s in doc["series"][:2]] == [
        "net/sched: act_skbedit: ", "page_pool: refill the al"]
    pull = next(s for s in doc["series"] if s["pull_request"])
    table = cli("report", pull["id"], "--db", corpus_db).out
    assert "v1 · no tree · pull request ·" in table


def test_html_can_skip_the_simulator(cli, corpus_db, tmp_path):
    out = tmp_path / "quick.html"
    assert cli("report", "--all", "--no-verdicts", "--format", "html", "-o", out, "--db", corpus_db).code == 0
    page = out.read_text()
    assert "simulated after" not in page and "claimed after" in page
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))  # the plots' element ids are unique on the page
    both = cli("report", "--all", "--no-verdicts", "--verdict", "reproduced", "--db", corpus_db)
    assert both.code == 2


def test_tree_and_author_filters(cli, corpus_db):
    bpf = cli("report", "--all", "--tree", "bpf-next", "--db", corpus_db, "--format", "json").json()
    assert _names(bpf) == ["bpf: cpumap: prefetch the frame headroom in the dequeue loop"]
    # only that series' messages and claims come along
    assert {m["subject_parts"]["tree"] for m in bpf["messages"]} == {"bpf-next"}
    assert [c["quote"] for c in bpf["claims"]] and all("15" in c["quote"] or "14.2" in c["quote"]
                                                      for c in bpf["claims"])
    alice = cli("report", "--all", "--author", "ALICE", "--db", corpus_db, "--format", "json").json()
    assert _names(alice) == ["net: veth: batch GRO flushes per NAPI poll"] * 2
    # `%` is a literal character, not a wildcard
    assert cli("report", "--all", "--author", "%", "--db", corpus_db, "--format", "json").json()["series"] == []
    nothing = cli("report", "--all", "--tree", "no-such-tree", "--db", corpus_db)
    assert nothing.code == 0 and "Nothing to report." in nothing.out


def test_verdict_filter_judges_and_keeps_matching_series(cli, corpus_db):
    # act_skbedit's diff drops a lock for per-cpu stats: its thread sweep is `reproduced`;
    # the other bundled threads change nothing the simulator models (`no_model`)
    kept = cli("report", "--all", "--verdict", "reproduced", "--db", corpus_db, "--format", "json").json()
    assert _names(kept) == ["net/sched: act_skbedit: count in per-cpu stats, drop the action lock"]
    assert sorted(c["condition"]["threads"] for c in kept["claims"]) == ["1", "2", "4"]
    assert {c["verdict"]["status"] for c in kept["claims"]} == {"reproduced"}
    judged = cli("report", "--all", "--verdict", "no_model", "--db", corpus_db, "--format", "json").json()
    assert judged["series"] and "act_skbedit" not in " ".join(_names(judged))
    assert all(
        any((c.get("verdict") or {}).get("status") == "no_model" for c in judged["claims"]
            if c["found_in"] in {*s["patches"], s["cover"], *s["replies"]}) for s in judged["series"])
    none = cli("report", "--all", "--verdict", "outside_band", "--db", corpus_db, "--format", "json").json()
    assert none == {"messages": [], "series": [], "claims": []}


def test_since_and_tree_combine(cli, corpus_db):
    # the two newest bundled series: act_skbedit (net-next, 2026-11-24) and cpumap
    # (bpf-next, 2026-11-20); everything else is from 2024 and 2025
    recent = cli("report", "--since", "2026-11-01", "--tree", "net-next", "--db", corpus_db,
                 "--format", "json").json()
    assert [s["name"][:30] for s in recent["series"]] == ["net/sched: act_skbedit: count "]
    both = cli("report", "--since", "2026-11-01", "--db", corpus_db, "--format", "json").json()
    assert len(both["series"]) == 2


def test_tree_with_an_id_is_a_usage_error(cli, corpus_db):
    result = cli("report", "someid", "--tree", "net", "--db", corpus_db)
    assert result.code == 2 and "--tree" in result.err


def test_html_report_is_one_self_contained_file_with_plots(cli, corpus_db, tmp_path):
    out = tmp_path / "report.html"
    result = cli("report", "--all", "--db", corpus_db, "--format", "html", "-o", out)
    assert result.code == 0, result.err
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>")
    # nothing fetched from anywhere, nothing run; the only links lead to the mail on lore
    assert not re.search(r"""src\s*=\s*["']?(?:https?:|//)""", page)
    links = re.findall(r"""href\s*=\s*["']?([^"' >]*)""", page)
    assert links and all(link.startswith(("https://lore.kernel.org/r/", "#plot")) for link in links)
    assert "<script" not in page and "default-src 'none'" in page
    svgs = re.findall(r"<svg.*?</svg>", page, re.S)
    assert len(svgs) >= 3
    for svg in svgs:
        ET.fromstring(svg)  # each plot is well-formed SVG
    # the thread sweep of veth, as claimed: the 1, 2, 4, 8 thread figures are drawn
    assert any("threads" in svg and "claimed after" in svg for svg in svgs)
    assert "page_pool: refill the alloc cache in one batch" in page
    assert page.index("act_skbedit") < page.index("page_pool: refill") < page.index("net: veth: batch GRO")
    # act_skbedit's thread sweep, simulated: the model's curves beside the claimed figures
    assert any("simulated after" in svg and ": reproduced" in svg for svg in svgs)


def test_seeds_report_with_verdicts_and_simulated_curves(db, cli, seeds_dir, tmp_path):
    """The three netdev seeds in a store: `--verdict reproduced` keeps act_police's series
    (seed 001), and the HTML report draws its simulated curve beside the claimed one."""
    assert cli("--db", db, "ingest", *sorted(seeds_dir.glob("*.txt"))).code == 0
    kept = cli("report", "--all", "--verdict", "reproduced", "--db", db, "--format", "json").json()
    assert len(kept["series"]) == 1 and "act_police" in kept["series"][0]["name"]
    statuses = {c["verdict"]["status"] for c in kept["claims"] if c.get("verdict")}
    assert "reproduced" in statuses
    out = tmp_path / "seeds.html"
    assert cli("report", "--all", "--db", db, "--format", "html", "-o", out).code == 0
    page = out.read_text()
    svgs = re.findall(r"<svg.*?</svg>", page, re.S)
    simulated = [s for s in svgs if "simulated after" in s]
    # seeds 001 (threads 1, 2, 4) and 004 (instances 1 … 200); seed 000 is one point (8
    # queues), judged by its band and shown in the table only
    assert len(simulated) == 2
    assert any(": reproduced" in s for s in simulated) and any(": within noise" in s for s in simulated)
    assert "consistent (band" in page


def test_analyze_and_claims_write_html_too(cli, seeds_dir, corpus_db):
    page = cli("analyze", seeds_dir / "001_22952647ed20d5cc.txt", "--format", "html").out
    assert page.startswith("<!DOCTYPE html>") and "reproduced (predicted" in page
    assert "simulated after" in page  # html judges the claims without being asked
    claims = cli("claims", "--db", corpus_db, "--format", "html").out
    assert "<h2>Claims</h2>" in claims and "<svg" in claims


def test_start_up_imports_no_plotting_or_tui(corpus_db):
    """`report` in the terminal never loads matplotlib, Jinja2 or Textual (docs/architecture.md:
    start-up stays fast)."""
    import subprocess
    import sys

    code = ("import sys; from reports.cli import main; "
            "assert main(['--db', sys.argv[1], 'report', '--all', '-o', '/dev/null']) == 0; "
            "print(sorted(m for m in ('matplotlib', 'jinja2', 'textual', 'spacy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(corpus_db)],
                         capture_output=True, text=True)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr
