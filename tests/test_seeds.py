"""Acceptance on the three seed posts (issue 2, acceptance 2), and on copies of them with
other numbers, names and ids, so that nothing is fitted to the three files."""

from __future__ import annotations

from pathlib import Path

import pytest

SEED_000 = "000_ea1513e461eed647.txt"
SEED_001 = "001_22952647ed20d5cc.txt"
SEED_004 = "004_19b1e878a2b8005e.txt"


def _analyze_one(cli, path: Path) -> dict:
    result = cli("analyze", path, "--format", "json")
    assert result.code == 0, result.err
    doc = result.json()
    assert len(doc["messages"]) == 1
    return doc["messages"][0]


def _variant(seeds_dir: Path, tmp_path: Path, name: str, replacements: list[tuple[str, str]]) -> Path:
    text = (seeds_dir / name).read_bytes().decode("utf-8")
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new)
    out = tmp_path / ("variant-" + name)
    out.write_bytes(text.encode("utf-8"))
    return out


# -- 000: a reply in an mboxrd file -----------------------------------------------------------

def check_000(m: dict, *, mid: str, parent: str, tree: str, index: int, total: int, author: str) -> None:
    assert m["message_id"] == mid
    assert m["in_reply_to"] == parent
    assert m["kind"] == "reply"
    parts = m["subject_parts"]
    assert parts["reply"] is True
    assert (parts["tree"], parts["index"], parts["total"], parts["version"]) == (tree, index, total, 1)
    assert m["from"].startswith(author)
    assert m["patch"] is None  # no diff in it: the quoted text is prose and commands
    # The reviewer's own ack counts; the quoted Signed-off-by does not.
    assert [(t["key"], t["value"].split(" <")[0]) for t in m["trailers"]] == [("Acked-by", author)]


def test_seed_000(cli, seeds_dir):
    m = _analyze_one(cli, seeds_dir / SEED_000)
    check_000(m, mid="55966CEF.3000406@mojatatu.com",
              parent="1435842455-30501-7-git-send-email-edumazet@google.com",
              tree="net-next", index=6, total=6, author="Jamal Hadi Salim")
    assert m["date"] == "2015-07-03T07:07:27-04:00"


def test_seed_000_variant(cli, seeds_dir, tmp_path):
    path = _variant(seeds_dir, tmp_path, SEED_000, [
        ("55966CEF.3000406@mojatatu.com", "20991231.77@example.net"),
        ("1435842455-30501-7-git-send-email-edumazet@google.com", "abc-3-x@example.org"),
        ("[PATCH net-next 6/6]", "[PATCH bpf-next 3/4]"),
        ("Jamal Hadi Salim", "Ana Lopes"),
    ])
    m = _analyze_one(cli, path)
    check_000(m, mid="20991231.77@example.net", parent="abc-3-x@example.org",
              tree="bpf-next", index=3, total=4, author="Ana Lopes")


# -- 001: a saved text rendering of an openwall page: a cover letter --------------------------

def check_001(m: dict, *, index_total: tuple[int, int], tree: str, author: str, hidden_addr: str,
              date: str, path: str, added: int, removed: int, changed: int) -> None:
    assert m["message_id"] is None
    assert m["kind"] == "cover"
    parts = m["subject_parts"]
    assert (parts["index"], parts["total"]) == index_total
    assert parts["tree"] == tree
    assert m["from"] == f"{author} <{hidden_addr}>"
    assert m["address_hidden"] is True
    assert m["date"] == date
    assert m["diffstat"] == {"files": [{"path": path, "changed": changed}], "added": added, "removed": removed}
    assert m["patch"] is None


def test_seed_001(cli, seeds_dir):
    m = _analyze_one(cli, seeds_dir / SEED_001)
    check_001(m, index_total=(0, 2), tree="net-next", author="Davide Caratti",
              hidden_addr="dcaratti@...hat.com", date="2018-09-13T19:29:11+02:00",
              path="net/sched/act_police.c", added=106, removed=80, changed=186)


def test_seed_001_variant(cli, seeds_dir, tmp_path):
    path = _variant(seeds_dir, tmp_path, SEED_001, [
        ("[PATCH net-next 0/2]", "[PATCH iwl-next 0/5]"),
        ("Davide Caratti <dcaratti@...hat.com>", "Mia Svensson <mia@...mple.se>"),
        ("Thu, 13 Sep 2018 19:29:11 +0200", "Mon, 02 Jan 2023 08:01:02 -0500"),
        ("net/sched/act_police.c | 186 +", "net/sched/act_gact.c   |  12 +"),
        ("106 insertions(+), 80 deletions(-)", "7 insertions(+), 5 deletions(-)"),
    ])
    m = _analyze_one(cli, path)
    check_001(m, index_total=(0, 5), tree="iwl-next", author="Mia Svensson",
              hidden_addr="mia@...mple.se", date="2023-01-02T08:01:02-05:00",
              path="net/sched/act_gact.c", added=7, removed=5, changed=12)


# -- 004: a saved text rendering of a lore page: a reply quoting a hunk -----------------------

def check_004(m: dict, *, mid: str, parent: str, path: str, sender: str, added: int = 2, removed: int = 2) -> None:
    assert m["message_id"] == mid
    assert m["in_reply_to"] == parent
    assert m["kind"] == "reply"
    assert m["subject_parts"]["reply"] is True
    patch = m["patch"]
    assert patch is not None and patch["quoted"] is True
    assert [(f["path"], f["added"], f["removed"]) for f in patch["files"]] == [(path, added, removed)]
    assert (patch["added"], patch["removed"]) == (added, removed)
    assert m["from"].endswith(f"<{sender}>")  # lore's `•` repaired
    assert m["address_hidden"] is False
    assert "\u2022" not in m["from"]


def test_seed_004(cli, seeds_dir):
    m = _analyze_one(cli, seeds_dir / SEED_004)
    check_004(m, mid="5434246E.1000403@akamai.com", parent="5432936D.7010906@gmail.com",
              path="drivers/net/macvlan.c", sender="jbaron@akamai.com")
    assert m["date"] == "2014-10-07T13:35:42-04:00"


def test_seed_004_variant(cli, seeds_dir, tmp_path):
    path = _variant(seeds_dir, tmp_path, SEED_004, [
        ("5434246E.1000403@akamai.com", "77AA0001.5@corp.example"),
        ("5432936D.7010906@gmail.com", "77AA0000.4@mail.example"),
        ("jbaron@akamai\u2022com", "kim@corp\u2022example"),
        ("drivers/net/macvlan.c", "drivers/net/ipvlan/ipvlan_core.c"),
        ("@@ -321,8 +321,8 @@", "@@ -21,8 +21,7 @@"),
        (">>> -       ret = netif_rx(skb);\n>>> -\n", ">>> -       ret = netif_rx(skb);\n"),
        (">>> +      macvlan_count_rx(vlan, len, true, 0);\n>>> +      return RX_HANDLER_ANOTHER;\n",
         ">>> +      macvlan_count_rx(vlan, len, true, 0);\n>>> +      return RX_HANDLER_ANOTHER;\n>>> +      /* done */\n"),
    ])
    # the hunk header says 8 old lines, 7 new ones... recount: 6 context + 1 removed = 7 old
    text = path.read_text(encoding="utf-8").replace("@@ -21,8 +21,7 @@", "@@ -21,7 +21,9 @@")
    path.write_text(text, encoding="utf-8")
    m = _analyze_one(cli, path)
    check_004(m, mid="77AA0001.5@corp.example", parent="77AA0000.4@mail.example",
              path="drivers/net/ipvlan/ipvlan_core.c", sender="kim@corp.example", added=3, removed=1)


@pytest.mark.parametrize("name", [SEED_000, SEED_001, SEED_004])
def test_seeds_table_and_markdown(cli, seeds_dir, name):
    for fmt in ("table", "markdown"):
        result = cli("analyze", seeds_dir / name, "--format", fmt)
        assert result.code == 0, result.err
        assert result.out.strip()


def test_seeds_together(cli, seeds_dir):
    result = cli("analyze", seeds_dir, "--format", "json")
    assert result.code == 0, result.err
    assert len(result.json()["messages"]) == 3
