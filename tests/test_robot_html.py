"""The HTML report's kernel test robot tables (issue 23): a series' robot findings under its
claims, a finding opposite to a claim flagged in words, the reports linked to no series in
a section of their own with the reason, and the robot's mail text escaped like any other."""

from __future__ import annotations

import functools
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import console_lines, find_chromium, network_lines, run_browser

from corpus.jobs.files import analyze_files
from reports.document import analysis_document
from reports.html import render_html

MBOX = Path(__file__).resolve().parent / "data" / "robot" / "veth-gro.mbox"
HOSTILE = "<script>document.title='RAN'</script><img src=x onerror=\"document.title='RAN'\">"
V2_REPORT = "202611201122.5a6b7c8d-lkp@intel.com"  # by patch link to v2, against its claim
UNLINKED = "202612031200.12345678-lkp@intel.com"


class RobotTables(HTMLParser):
    """The rows of each `table.robot`, under the id of the section holding it: (the row's
    class, its cells' text, the links in it)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[tuple[str, list[str], list[str]]]] = {}
        self._section = ""
        self._rows: list[tuple[str, list[str], list[str]]] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "section":
            self._section = a.get("id") or ""
        elif tag == "table" and a.get("class") == "robot":
            self._rows = self.tables.setdefault(self._section, [])
        elif self._rows is not None and tag == "tr":
            self._rows.append((a.get("class") or "", [], []))
        elif self._rows and tag == "td":
            self._cell = []
        elif self._rows and tag == "a":
            self._rows[-1][2].append(a.get("href") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._rows = None
        elif tag == "td" and self._rows and self._cell is not None:
            self._rows[-1][1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _page(mbox: Path = MBOX) -> str:
    return render_html(analysis_document(analyze_files([mbox])))


def _tables(page: str) -> dict[str, list[tuple[str, list[str], list[str]]]]:
    parser = RobotTables()
    parser.feed(page)
    return {k: [r for r in rows if r[1]] for k, rows in parser.tables.items()}  # no header


@functools.cache
def _series_ids() -> dict[int, str]:
    doc = analysis_document(analyze_files([MBOX]))
    return {s["version"]: s["id"] for s in doc["series"]}


@pytest.fixture(scope="module")
def page() -> str:
    return _page()


def test_each_series_shows_the_robot_rows_linked_to_it(page: str) -> None:
    tables, ids = _tables(page), _series_ids()
    assert ids[1] not in tables  # nothing the robot sent is about v1
    # date, report, rule, test, machine, measure, change, finding
    v2 = [cells for _, cells, _ in tables[ids[2]]]
    assert [(c[0], c[2], c[3], c[5], c[6]) for c in v2] == [
        ("2026-11-20", "patch link", "netperf", "netperf.Throughput_Mbps", "-12.53 %"),
        ("2026-11-20", "patch link", "netperf", "netperf.Throughput_total_Mbps", "-12.51 %")]
    assert all(c[1].startswith(V2_REPORT) and c[4].startswith("128 threads") for c in v2)
    v3 = [cells for _, cells, _ in tables[ids[3]]]
    assert [(c[2], c[3], c[6], c[7]) for c in v3] == [
        ("subject", "netperf", "+8.08 %", "improvement"),
        ("applied", "will-it-scale", "-4.30 %", "regression")]
    # each report links to lore, and to nothing else
    assert {link for _, _, links in tables[ids[2]] for link in links} == {
        f"https://lore.kernel.org/r/{V2_REPORT}"}


def test_a_finding_opposite_to_a_claim_is_flagged_in_words(page: str) -> None:
    tables, ids = _tables(page), _series_ids()
    v2, v3 = tables[ids[2]], tables[ids[3]]
    assert [(cls, cells[-1]) for cls, cells, _ in v2] == [
        ("disagrees", "≠ regression: disagrees with a claim")] * 2
    assert all(cls == "" and "disagrees" not in cells[-1] for cls, cells, _ in v3)
    # under the table, what the robot's finding disagrees with: once, for the one claim
    section = page[page.index(f'id="{ids[2]}"'):page.index(f'id="{ids[3]}"')]
    assert section.count('<ul class="disagreements">') == 1
    assert section.count("<li>≠ ") == 1 and "regression" in section.split("<li>≠ ")[1]
    assert 'class="disagreements"' not in page[page.index(f'id="{ids[3]}"'):]


def test_reports_linked_to_no_series_have_a_section_with_the_reason(page: str) -> None:
    rows = _tables(page)["robot-unlinked"]
    assert "Kernel test robot reports linked to no series" in page
    # date, report, test, machine, measure, change, finding, why no series
    ((cls, cells, links),) = rows
    assert cells[1].startswith(UNLINKED) and links == [f"https://lore.kernel.org/r/{UNLINKED}"]
    assert cells[4:7] == ["netperf.Throughput_Mbps", "-6.01 %", "regression"]
    assert cells[7].startswith("no stored series matches")
    assert cls == ""


def test_a_page_without_robot_reports_has_no_robot_table(tmp_path: Path) -> None:
    text = MBOX.read_text(encoding="utf-8")
    first = text.index("\nFrom ", text.index("Message-ID: <20261110090000.1000-2-")) + 1
    mbox = tmp_path / "v1.mbox"
    mbox.write_text(text[:first], encoding="utf-8")  # v1 alone: before the robot wrote
    page = _page(mbox)
    assert 'class="robot"' not in page and "Kernel test robot" not in page


def _hostile_mbox(tmp_path: Path) -> Path:
    """The sample with markup in the testcase of the first report and in the machine of
    the two reports on the 2-socket Gold 6338 (the v2 one and the unlinked one)."""
    text = MBOX.read_text(encoding="utf-8")
    text = text.replace("testcase: netperf\n", f"testcase: netperf{HOSTILE}\n", 1)
    text = text.replace("test machine: 128 threads", f"test machine: {HOSTILE} 128 threads")
    path = tmp_path / "hostile.mbox"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_robot_mail_text_is_escaped(tmp_path: Path) -> None:
    page = _page(_hostile_mbox(tmp_path))
    tables, ids = _tables(page), _series_ids()
    (_, first, _), _ = tables[ids[2]]
    assert first[3].startswith("netperf<script>")  # shown as text, cut to the column
    script = HOSTILE[:HOSTILE.index("<img")]
    assert first[4].startswith(script) and tables["robot-unlinked"][0][1][3].startswith(script)
    # the whole machine in the cell's title, escaped as well
    assert 'title="&lt;script&gt;document.title=&#39;RAN&#39;&lt;/script&gt;&lt;img src=x' in page
    assert "<script" not in page and "<img" not in page and "onerror=\"" not in page
    assert page.count("&lt;script&gt;document.title=&#39;RAN&#39;&lt;/script&gt;") >= 4


@pytest.fixture(scope="module")
def browser() -> str:
    found = find_chromium()
    if found is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


def test_the_hostile_robot_tables_load_quietly_in_a_browser(browser: str, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    out.write_text(_page(_hostile_mbox(tmp_path)), encoding="utf-8")
    run = run_browser(browser, tmp_path / "profile", "--dump-dom", out.as_uri())
    assert "<title>patchperf report</title>" in run.stdout  # no script retitled it
    assert "≠ regression: disagrees with a claim" in run.stdout
    assert "<script" not in run.stdout and "<img" not in run.stdout
    assert console_lines(run.stderr) == [] and network_lines(run.stderr) == []


def test_claims_across_versions_are_a_table_with_the_flag_in_words(page: str) -> None:
    ids = _series_ids()
    v3 = page[page.index(f'id="{ids[3]}"'):]
    v3 = v3[:v3.index("</section>")]
    table = v3[v3.index('<table class="tracks">'):]
    table = table[:table.index("</table>")]
    rows = table.split("<tr")[2:]  # after the header
    assert len(rows) == 3
    assert 'class="disagrees"' in rows[1] and "flagged: moved beyond its noise" in rows[1]
    assert "no changelog line of v2 names the benchmark or the metric" in rows[1]
    assert "changelog: netperf TCP_STREAM throughput regression" in rows[2]
    assert 'class="tracks"' not in page[page.index(f'id="{ids[2]}"'):page.index(f'id="{ids[3]}"')]
