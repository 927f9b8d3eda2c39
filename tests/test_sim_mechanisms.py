"""Mechanism tags from diffs and from words (issue 4: building a scenario from a thread)."""

from __future__ import annotations

from pathlib import Path

from analyze.mail.message import parse_message
from analyze.sim.mechanisms import from_diff, from_words, mechanisms_of
from ingest.local import read_sources
from ingest.raw import RawMail

LOCK_TO_PERCPU = """\
--- a/net/sched/act_gact.c
+++ b/net/sched/act_gact.c
@@ -120,10 +120,9 @@ static int tcf_gact(struct sk_buff *skb, const struct tc_action *a,
-	spin_lock(&gact->tcf_lock);
-	gact->tcf_bstats.bytes += qdisc_pkt_len(skb);
-	gact->tcf_bstats.packets++;
+	bstats_cpu_update(this_cpu_ptr(gact->common.cpu_bstats), skb);
+	params = rcu_dereference_bh(gact->params);
-	gact->tcf_tm.lastuse = jiffies;
+	if (gact->tcf_tm.lastuse != jiffies)
+		gact->tcf_tm.lastuse = jiffies;
-	spin_unlock(&gact->tcf_lock);
"""

BACKLOG = """\
--- a/drivers/net/macvlan.c
+++ b/drivers/net/macvlan.c
@@ -321,8 +321,8 @@ static rx_handler_result_t macvlan_handle_frame(struct sk_buff **pskb)
-	ret = netif_rx(skb);
+	macvlan_count_rx(vlan, len, true, false);
+	return RX_HANDLER_ANOTHER;
"""


def test_tags_from_a_diff() -> None:
    found = from_diff(LOCK_TO_PERCPU)
    assert found.tags == ("drop_lock", "percpu_stats", "rcu_config", "lastuse_per_tick")
    assert found.source == "diff"
    assert found.evidence[0] == "-spin_lock(&gact->tcf_lock);"
    assert from_diff(BACKLOG).tags == ("skip_backlog",)


def test_what_is_not_a_mechanism() -> None:
    # a lock moved, not removed; per-cpu named only in a comment; netif_rx kept
    moved = ("-\tspin_lock(&a->lock);\n+\tspin_lock(&a->lock);\n"
             "+\t/* this_cpu_inc() would be nicer */\n+\tnetif_rx(skb);\n")
    assert from_diff(moved).tags == ()
    # RCU added without a lock removed is not rcu_config
    assert from_diff("+\tp = rcu_dereference(x->p);\n").tags == ()


def test_tags_from_words() -> None:
    text = ("the data path of 'police' action can be faster if we avoid using spinlocks:\n"
            " - patch 1 converts act_police to use per-cpu counters\n"
            " - patch 2 lets act_police use RCU to access its configuration data.")
    found = from_words(text)
    assert found.tags == ("drop_lock", "percpu_stats", "rcu_config")
    assert found.source == "cover_letter"
    assert from_words("Fix a typo in the Kconfig help text.").tags == ()


def test_diffs_before_words() -> None:
    assert mechanisms_of([BACKLOG], ["per-cpu counters"]).source == "diff"
    assert mechanisms_of(["+\tx = 1;\n"], ["per-cpu counters"]).tags == ("percpu_stats",)


def test_the_seeds(seeds_dir: Path) -> None:
    """Seed 004 quotes the macvlan diff; seeds 000 and 001 say it in words."""
    def message(name: str):
        # the seeds are saved archive pages: read as `patchperf analyze` reads them
        (raw,) = [item for item in read_sources([seeds_dir / name]) if isinstance(item, RawMail)]
        return parse_message(raw.data, raw.origin)

    m004 = message("004_19b1e878a2b8005e.txt")
    assert m004.patch is not None
    assert from_diff(m004.patch.text).tags == ("skip_backlog",)
    m000 = message("000_ea1513e461eed647.txt")
    # "Final step for gact RCU operation": the series reads its configuration under RCU
    assert from_words(m000.body.text).tags == (
        "drop_lock", "percpu_stats", "rcu_config", "lastuse_per_tick")
    m001 = message("001_22952647ed20d5cc.txt")
    assert from_words(m001.body.text).tags == ("drop_lock", "percpu_stats", "rcu_config")


def test_library_scenarios_carry_the_tags_their_seed_gives(seeds_dir: Path) -> None:
    from corpus.library import find_scenario

    for name, scenario_id in (("000_ea1513e461eed647.txt", "gact-rx-flood-ingress"),
                              ("001_22952647ed20d5cc.txt", "tc-police-dummy-pktgen"),
                              ("004_19b1e878a2b8005e.txt", "macvlan-tcp-rr-super-netperf")):
        (raw,) = [item for item in read_sources([seeds_dir / name]) if isinstance(item, RawMail)]
        message = parse_message(raw.data, raw.origin)
        found = mechanisms_of([message.patch.text] if message.patch else [], [message.body.text])
        scenario = find_scenario(scenario_id)
        assert tuple(scenario.claim.mechanisms) == found.tags, name
        assert scenario.claim.mechanisms_from == found.source, name
