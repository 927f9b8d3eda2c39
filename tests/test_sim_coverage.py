"""Issue 21, acceptance 3: every claim gets a verdict with `--verdicts`, single points with a
recognised mechanism get a band or a prediction, and `no_model` names what is missing; on
mail we write, and on the real corpus in ../shared/corpus/real."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.jobs.files import analyze_files
from corpus.jobs.verdicts import judge_claims

MAIL = """\
From: Ada Byte <ada@example.org>
Subject: [PATCH net-next] net/sched: act_mirred: per-cpu counters, no spinlock
Message-ID: <points.1@example.org>
Date: Tue, 01 Dec 2026 10:00:00 +0000

The action's counters move to per-cpu storage and the spinlock goes.

With 4 threads, throughput went from 6.2 Gbps to 9.1 Gbps.
Latency went from 20 usec to 18 usec.
Requests went from 100000 req/s to 120000 req/s.
The drop rate went from 20% to 10%.

---
 net/sched/act_mirred.c | 4 ++--
 1 file changed, 2 insertions(+), 2 deletions(-)

diff --git a/net/sched/act_mirred.c b/net/sched/act_mirred.c
--- a/net/sched/act_mirred.c
+++ b/net/sched/act_mirred.c
@@ -10,6 +10,6 @@ static int tcf_mirred_act(struct sk_buff *skb)
 {
-\tspin_lock(&m->tcf_lock);
-\tm->tcf_bstats.packets++;
-\tspin_unlock(&m->tcf_lock);
+\tthis_cpu_inc(m->cpu_bstats->packets);
+\tu64_stats_update_end(&m->syncp);
 \treturn TC_ACT_OK;
 }
"""


def _judged(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    mail = tmp_path / "points.eml"
    mail.write_text(text, encoding="utf-8")
    analysis = analyze_files([mail])
    judged = judge_claims(analysis.claims, analysis.messages)
    return analysis, judged


def _by_metric(tmp_path: Path, text: str) -> dict[str, dict]:
    analysis, judged = _judged(tmp_path, text)
    return {f"{c.metric} {c.canonical_unit}": judged.verdicts[c.id][1] for c in analysis.claims}


def test_single_points_get_a_band_and_the_rest_say_what_is_missing(tmp_path: Path) -> None:
    verdicts = _by_metric(tmp_path, MAIL)
    assert {"throughput bit/s", "latency s"} <= set(verdicts), verdicts
    assert len(verdicts) >= 3, verdicts
    # Gbps at 4 threads: a band from the two free costs; the claim is judged against it
    gbps = verdicts["throughput bit/s"]
    assert gbps["status"] in ("consistent", "outside_band") and gbps["band_pct"] is not None
    # latency with no count named: one core assumed, and said
    latency = verdicts["latency s"]
    assert latency["status"] in ("consistent", "outside_band", "within_noise")
    assert "one core assumed" in latency["reason"]
    # requests/s and a percentage that is no CPU share: no model, and the reason says which
    other = [v for k, v in verdicts.items() if not k.startswith(("throughput bit/s", "latency"))]
    assert other and all(v["status"] == "no_model" for v in other)
    assert all(v["reason"].startswith("metric not modelled: ") for v in other)


def test_without_a_mechanism_the_reason_says_so(tmp_path: Path) -> None:
    plain = MAIL.split("\n---\n", 1)[0].replace(
        "The action's counters move to per-cpu storage and the spinlock goes.",
        "The action is rewritten.")
    verdicts = _by_metric(tmp_path, plain)
    assert verdicts["throughput bit/s"]["status"] == "no_model"
    assert verdicts["throughput bit/s"]["reason"].startswith("no mechanism found")


def test_analyze_verdicts_gives_every_claim_a_verdict(cli, tmp_path: Path) -> None:
    mail = tmp_path / "points.eml"
    mail.write_text(MAIL, encoding="utf-8")
    doc = cli("analyze", mail, "--verdicts", "--format", "json").json()
    assert doc["claims"]
    for claim in doc["claims"]:
        assert claim["verdict"] is not None and claim["verdict"]["status"]
        assert claim["verdict"]["reason"] and "\n" not in claim["verdict"]["reason"]


REASONS = ("one figure only", "metric not modelled", "two claims at one point",
           "no workload", "no scenario", "no mechanism found", "no costs within")


def test_every_real_claim_gets_a_verdict(real_corpus: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from eval_real import verdicts

    found = verdicts(real_corpus)
    assert len(found.statuses) > 300
    assert None not in found.statuses
    assert all(reason.startswith(REASONS) for reason in found.reasons), found.reasons
    # at least half of the claims whose mail carries a diff with a recognised mechanism
    # get a prediction or a band
    assert found.with_mechanism
    judged = [s for s in found.with_mechanism if s != "no_model"]
    assert 2 * len(judged) >= len(found.with_mechanism)


@pytest.fixture
def real_corpus() -> Path:
    from conftest import _require_shared

    return _require_shared("corpus") / "real"


GBPS_SWEEP = """\
From: Ada Byte <ada@example.org>
Subject: [PATCH net-next] net/sched: act_mirred: per-cpu counters, no spinlock
Message-ID: <points.2@example.org>
Date: Tue, 01 Dec 2026 10:00:00 +0000

This moves the action to per-cpu counters and removes the spinlock.

threads   before (Gbps)   after (Gbps)
1         10.0            10.1
2         17.5            19.6
4         17.0            38.0
"""


def test_a_sweep_in_gbps_is_fitted_by_its_shape(tmp_path: Path) -> None:
    """Bits per second at a packet size nobody gave: the model's packets per second are
    scaled to the baseline, so the curve's shape is fitted and judged, and the controls of
    such a scenario are not accepted either."""
    from analyze.sim.controls import run_controls
    from corpus.library import constants_for

    _, judged = _judged(tmp_path, GBPS_SWEEP)
    (scenario, verdict), = judged.runs.values()
    assert scenario.metric.name == "bps" and not scenario.calibration.magnitude
    assert verdict.verdict == "reproduced", verdict.reason
    assert verdict.fit_rms_pct is not None and verdict.fit_rms_pct < 5
    assert verdict.predicted_before[0] == pytest.approx(10.0e9, rel=0.1)  # in bit/s, scaled
    runs = run_controls(scenario, constants_for(scenario))
    assert all(not run.unearned for run in runs)
    assert all(s not in ("reproduced", "consistent") for run in runs[:4] for s in run.statuses)
