"""run.sh runs a tool only with options on its allow-list, read as the tool reads them
(analyze/sim/allowed.py): iproute2 and getopt take abbreviations, so a deny list of whole
words let `ip -ba FILE`, `ip netns e`, fio `--exec_prer=`, iperf3 `--logf=` and `sysctl -w
kernel.modprobe=` through as live lines. Here: the shapes that broke, a property test over
every prefix of every option of the tools' full tables (tests/tool_tables.py, the tools' own
matching rules), and a run of every exported script with stub tools under strace, which
must write nothing outside the run's folder."""

from __future__ import annotations

import re
import stat
import subprocess
from pathlib import Path

import pytest
import tool_tables as real
from conftest import required_program
from controls_table import scenarios
from hypothesis import given, settings
from hypothesis import strategies as st

from analyze.sim import allowed
from analyze.sim.experiment import experiment_sh, plan
from analyze.sim.scenario import Scenario
from corpus.library import find_scenario, library, load_scenario


def _scenario(commands: list[str]) -> Scenario:
    return find_scenario("tc-police-dummy-pktgen").model_copy(update={"commands": commands})


def _runs(command: str) -> bool:
    """Whether run.sh would run the command (prompted, as mail writes it)."""
    steps = [s for s in plan(_scenario([f"# {command}"])).steps]
    assert steps, command
    return any(s.runs for s in steps)


# Each shape that became a live line of run.sh on 34937bc.
BROKE = [
    "ip -ba /tmp/commands", "ip -b /tmp/commands", "ip --batch /tmp/commands",
    "tc -bat /tmp/commands", "tc -b cmds", "ip netns e lab id", "ip net e lab id",
    "ip netns exec lab id", "ip -all netns exec id", "ip vrf exec red id", "ip v e red id",
    "tc exec bpf import sock run sh", "tc e bpf import sock",
    "fio --name=x --exec_prer=touch", "fio --name=x -exec_prerun=touch",
    "fio --name=x --exec_postr=id", "fio --name=x --filename=/etc/passwd --rw=write --unlink=1",
    "fio --name=x --ioengine=exec --program=id", "fio --name=x --ioengine=external:/tmp/x.so",
    "fio --name=x --outp=/etc/passwd", "fio --name=x -o /etc/passwd", "fio job.fio",
    "fio --name=x --write_bw_log=/etc/x", "fio --name=x --trigger=id",
    "fio --name=x -- job.fio", "fio --name=x --",  # (after `--` even `--readonly` is a job file)
    "iperf3 -c 192.0.2.1 --logf=/etc/passwd", "iperf3 -c 192.0.2.1 --logfile /etc/passwd",
    "iperf3 -c 192.0.2.1 --pid=/etc/x", "iperf3 -c 192.0.2.1 -I /etc/x",
    "iperf3 -c 192.0.2.1 -R -F /etc/passwd", "iperf3 -s -D",
    "sysctl -w kernel.modprobe=/tmp/x", "sysctl kernel.core_pattern=x",
    "sysctl -w kernel/hotplug=x", "sysctl -p /tmp/x", "sysctl --load=/tmp/x", "sysctl --sys",
    "sysctl -w net.ipv4.tcp_congestion_control=evil",
    "ethtool -f eth0 fw.bin", "ethtool --flash eth0 fw.bin", "ethtool -E eth0 magic 1",
    "ethtool -w eth0 data dump.bin", "ethtool --reset eth0 all",
    "netperf -H 192.0.2.1 -F /etc/passwd", "netperf -H 192.0.2.1 -t TCP_RR -- -o /etc/passwd",
    "super_netperf 4 rm -rf x", "xdp-bench r eth0", "./t/io_uring -T 100 /dev/nvme0n1",
    "./t/io_uring -H /mnt/huge/x /dev/nvme0n1",
]


@pytest.mark.parametrize("command", BROKE)
def test_what_broke_is_a_comment(command: str) -> None:
    assert not _runs(command), command
    script = experiment_sh(_scenario([f"# {command}"]))
    words = command.split()[1:]
    for line in script.splitlines():
        if not line.startswith("#") and words and all(w in line for w in words):
            pytest.fail(f"live line {line!r}")


OK = [
    "ip link add name eth1 type dummy", "ip addr add 10.0.0.1/24 dev eth1", "ip -s link show",
    "ip netns add lab", "tc qdisc add dev eth0 ingress", "tc -s qdisc show dev eth0",
    "tc filter add dev eth1 egress matchall action police rate 2gbit burst 100k "
    "conform-exceed pass/pass index 100",
    "ethtool -L eth0 combined 8", "ethtool -K eth0 gro off", "sysctl -w net.core.somaxconn=4096",
    "sysctl -w vm.nr_hugepages=1024", "iperf3 -c 192.0.2.1 -t 10 -P 4",
    "netperf -H 192.0.2.1 -t TCP_RR -T2,2 -l 10 -Cc -- -r 70000,70000",
    "super_netperf 200 -H 192.0.2.1 -t TCP_RR", "xdp-bench drop eth0 -m native",
    "fio --name=r --filename=/dev/nvme0n1 --rw=randread --bs=4k --ioengine=io_uring",
    "fio -name=w -filename=/mnt/test/foo -rw=write -bs=4k -size=1G",
    "./t/io_uring -b512 -d128 -c32 -s32 -p1 -F1 -B1 -n2 -r4 /dev/nvme0n1",
    "./pktgen_sample01.sh -i eth0 -t 4 -d 10.0.0.1 -m aa:bb:cc:dd:ee:ff",
]


@pytest.mark.parametrize("command", OK)
def test_what_a_benchmark_needs_runs(command: str) -> None:
    assert _runs(command), [s.why_not for s in plan(_scenario([f"# {command}"])).steps]


def test_a_fio_job_that_reads_gets_readonly_and_one_that_writes_writes_under_out() -> None:
    read, = plan(_scenario(["# fio --name=r --filename=/dev/nvme0n1 --rw=randread"])).steps
    assert read.words[-1] == "--readonly" and "--filename=/dev/nvme0n1" in read.words
    write, = plan(_scenario(["# fio --name=w --filename /dev/nvme0n1 --rw=randwrite"])).steps
    assert '"--filename=$OUT/fio.data"' in write.words and "/dev/nvme0n1" not in write.words
    assert "/dev/nvme0n1" in write.note
    bare, = plan(_scenario(["# fio --name=w --rw=write --size=1G"])).steps
    assert bare.words[-1] == '"--directory=$OUT"'


def test_a_loop_value_is_read_as_the_tool_reads_it() -> None:
    steps = plan(_scenario(["# for c in -batch; do ip $c /tmp/x; done"])).steps
    assert not any(s.runs for s in steps)
    steps = plan(_scenario(["# for c in 1 -b; do ip -s $c; done"])).steps
    assert not any(s.runs for s in steps)


# --- every prefix of every option, read by the tools' own rules --------------------------

_WHERE = {  # the words around the drawn one: a command otherwise allowed
    "fio": (["--name=job"], []),
    "iperf3": (["-c", "192.0.2.1"], []),
    "sysctl": ([], ["net.core.somaxconn=1"]),
}


def _long_forms(name: str) -> st.SearchStrategy[str]:
    return st.tuples(st.integers(1, len(name)), st.sampled_from(["-", "--"]),
                     st.sampled_from(["", "=x", "=/etc/passwd", "=1"])).map(
        lambda t: t[1] + name[:t[0]] + t[2])


@given(st.data())
@settings(max_examples=600, deadline=None)
def test_no_prefix_of_any_option_reaches_a_dangerous_one(data: st.DataObject) -> None:
    tool = data.draw(st.sampled_from(["fio", "iperf3", "sysctl"]))
    table = {"fio": real.fio_table(), "iperf3": real.IPERF3_LONG, "sysctl": real.SYSCTL_LONG}[tool]
    name = data.draw(st.sampled_from([e[0] for e in table]))
    word = data.draw(_long_forms(name))
    value = data.draw(st.sampled_from([[], ["/etc/passwd"], ["1"]]))
    head, tail = _WHERE[tool]
    argv = [*head, word, *value, *tail]
    if allowed.check(tool, argv):
        return
    # accepted: each option word must mean, to the tool, an option that is no danger
    for w in argv:
        if not w.startswith("-"):
            continue
        if tool == "fio":
            meant = real.fio_option(w)
            assert meant is not None and meant not in real.FIO_DANGER and not meant.startswith("-"), (argv, meant)
        elif w.startswith("--"):
            meant = real.getopt_long(w, table, long_only=False)
            danger = real.IPERF3_DANGER if tool == "iperf3" else real.SYSCTL_DANGER
            assert meant is not None and meant not in danger, (argv, meant)
        else:
            optstring = real.IPERF3_SHORT if tool == "iperf3" else real.SYSCTL_SHORT
            letters = set(real.getopt_letters(w, optstring))
            assert not letters & (real.IPERF3_DANGER_SHORT if tool == "iperf3" else set("pf")), argv


_IP_WORDS = [*real.IP_OPTIONS, *("-" + o for o in real.IP_OPTIONS)]


@given(st.data())
@settings(max_examples=600, deadline=None)
def test_no_prefix_reaches_iproute2s_batch_exec_or_netns(data: st.DataObject) -> None:
    def prefix(words: tuple[str, ...] | list[str], least: int = 1) -> str:
        name = data.draw(st.sampled_from(list(words)))
        return name[:data.draw(st.integers(min(least, len(name)), len(name)))]

    if data.draw(st.booleans()):
        options = [prefix(_IP_WORDS, 2) for _ in range(data.draw(st.integers(0, 2)))]
        argv = [*options, prefix(real.IP_OBJECTS), prefix(real.IP_NETNS_VERBS + real.IP_VRF_VERBS),
                "lab", "id"]
        if allowed.check("ip", argv):
            return
        opts, obj, verb = real.ip_reads(argv)
        assert not set(opts) & real.IP_DANGER_OPTIONS, argv
        assert not any(o.startswith("unknown") for o in opts), argv
        assert obj not in real.IP_DANGER_OBJECTS, argv
        assert not (obj == "netns" and verb in real.IP_DANGER_NETNS), argv
    else:
        options = [prefix(real.TC_OPTIONS, 2) for _ in range(data.draw(st.integers(0, 2)))]
        argv = [*options, prefix(real.TC_OBJECTS), "add", "dev", "eth0", "ingress"]
        if allowed.check("tc", argv):
            return
        opts, obj = real.tc_reads(argv)
        assert not set(opts) & real.TC_DANGER_OPTIONS, argv
        assert obj not in real.TC_DANGER_OBJECTS, argv


_TOOL_WORDS = ["ip", "tc", "fio", "iperf3", "sysctl", "ethtool", "netperf", "super_netperf",
               "xdp-bench", "./t/io_uring", "./pktgen_sample01.sh"]
_ARG_WORDS = ["-b", "-ba", "--batch", "netns", "e", "exec", "vrf", "-exec_prer=id",
              "--exec_prerun=id", "--logf=/etc/x", "--filename=/etc/passwd", "--rw=write",
              "--unlink=1", "-w", "kernel.modprobe=x", "net.core.somaxconn=1", "-p", "/etc/x",
              "-F", "-T", "1", "-c", "192.0.2.1", "-o", "--output=x", "link", "qdisc", "add",
              "dev", "eth0", "--name=x", "-t", "TCP_RR", "--", "-H", "drop", "-f", "-E", "-I"]


@given(st.lists(st.tuples(st.sampled_from(_TOOL_WORDS),
                          st.lists(st.sampled_from(_ARG_WORDS), max_size=6)), min_size=1,
                max_size=4))
@settings(max_examples=300, deadline=None)
def test_every_word_run_sh_runs_passes_its_tool_s_check(commands: list[tuple[str, list[str]]]) -> None:
    """Whatever the commands, each live step's words, as the shell would pass them, pass
    the allow-list again, and fio never gets a target outside $OUT for a job that writes."""
    scenario = _scenario([f"# {tool} {' '.join(args)}" for tool, args in commands])
    for step in plan(scenario).steps:
        if not step.runs:
            continue
        words = [w.replace('"$PEER"', "peer").replace('"$OUT/fio.data"', "out/fio.data")
                 .replace('"--filename=$OUT/fio.data"', "--filename=out/fio.data")
                 .replace('"--directory=$OUT"', "--directory=out") for w in step.words[1:]]
        if step.loop is not None:
            words = [step.loop.values[0] if w == f'"${step.loop.variable}"' else w for w in words]
        assert allowed.check(step.tool, words) == "", (step.text, words)


# --- a run of every exported script, under strace ----------------------------------------

def _stub(folder: Path, name: str, body: str, log: Path) -> None:
    path = folder / name
    path.write_text(f'#!/bin/sh\nprintf "%s" "{name}" >> "{log}"\n'
                    f'for a in "$@"; do printf " %s" "$a" >> "{log}"; done\n'
                    f'echo >> "{log}"\n{body}', encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


_OUTPUTS = {
    "fio": 'echo "  read: IOPS=215k, BW=840MiB/s (881MB/s)(8400MiB/10001msec)"\n',
    "iperf3": 'echo "[SUM]   0.00-10.00  sec  11.0 GBytes  9.42 Gbits/sec   receiver"\n',
    "netperf": 'echo "16384  87380  1  1  10.00  41234.56"\n',
    "super_netperf": 'echo "41234.56"\n',
    "xdp-bench": 'echo "Summary  10,000,000 rx/s  0 err,drop/s"\n',
    "tc": "", "ip": "", "ethtool": "", "sysctl": "",
}
_PKTGEN = 'echo "  3500000pps 1792Mb/sec (1792000000bps) errors: 0"\n'
_IO_URING = 'echo "IOPS=1.20M, BW=586MiB/s, IOS/call=32/31"\n'

TOOL_COMMANDS = {
    "fio-read": ["# fio --name=r --filename=/dev/nvme0n1 --rw=randread --bs=4k "
                 "--ioengine=io_uring --iodepth=32 --direct=1 --runtime=10 --time_based"],
    "fio-write": ["# fio -name=w -filename=/mnt/test/foo -rw=randwrite -bs=4k -size=1G"],
    "fio-bare": ["# fio --name=w --rw=write --size=1G"],
    "iperf3": ["# iperf3 -c 192.0.2.2 -t 10 -P 4"],
    "netperf": ["# netperf -H 192.0.2.2 -t TCP_RR -l 10 -- -r 64,64"],
    "xdp-bench": ["# ethtool -L eth0 combined 8", "# xdp-bench drop eth0 -m native"],
    "io_uring": ["# ./t/io_uring -b512 -d128 -c32 -s32 -p1 -F1 -B1 -n1 -r4 /dev/nvme0n1"],
    "setup": ["# sysctl -w net.core.busy_poll=50", "# ip netns add lab",
              "# for c in 1 2; do ./pktgen_sample01.sh -i eth0 -t $c; done"],
    # every shape that broke, then a measurement, so that the script runs all its lines
    "hostile": [*(f"# {c}" for c in BROKE), "# iperf3 -c 192.0.2.2 -t 10"],
}


def _strace() -> str:
    return required_program("strace", "apt-get install strace")


_CALL = re.compile(r'^\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+)')
_WRITING = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")


def _writes(trace: str) -> list[str]:
    """The paths a traced run wrote, created, removed or renamed, as the calls name them."""
    out = []
    for line in trace.splitlines():
        m = _CALL.match(line)
        if m is None or int(m.group(3)) < 0:
            continue
        call, args = m.group(1), m.group(2)
        paths = re.findall(r'"((?:[^"\\]|\\.)*)"', args)
        if call in ("open", "openat") and not any(f in args for f in _WRITING):
            continue
        if call == "chdir" or call in ("open", "openat", "creat", "mkdir", "mkdirat", "unlink",
                                       "unlinkat", "rename", "renameat", "renameat2",
                                       "truncate", "symlink", "symlinkat", "link", "linkat",
                                       "rmdir"):
            out += [f"{call} {p}" for p in paths]
    return out


def _exported() -> list[tuple[str, str]]:
    out = [(f"library {p.stem}", experiment_sh(load_scenario(p))) for p in library()]
    out += [(f"tool {name}", experiment_sh(_scenario(cmds))) for name, cmds in TOOL_COMMANDS.items()]
    return out


@pytest.mark.parametrize("name", [n for n, _ in _exported()])
def test_every_exported_script_writes_only_under_its_folder(name: str, tmp_path: Path) -> None:
    strace = _strace()
    script = dict(_exported())[name]
    calls = _run_traced(strace, script, tmp_path)
    assert calls, "the script ran no tool"
    if name == "tool hostile":
        assert [c.split()[0] for c in calls] == ["iperf3"], calls


def test_every_seed_s_script_writes_only_under_its_folder(seeds_dir: Path, tmp_path: Path) -> None:
    strace = _strace()
    built = [s for origin, s in scenarios(seeds_dir) if origin.startswith("built")]
    assert built
    for k, scenario in enumerate(built):
        folder = tmp_path / str(k)
        folder.mkdir()
        _run_traced(strace, experiment_sh(scenario), folder)


def _run_traced(strace: str, script: str, tmp_path: Path) -> list[str]:
    """Run the script once (`./run.sh base`) with stub tools under strace; check what it
    wrote and what it passed; return the calls the stubs logged."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.sh").write_text(script, encoding="utf-8")
    bin_dir, tools = tmp_path / "bin", tmp_path / "tools"
    bin_dir.mkdir()
    (tools / "t").mkdir(parents=True)
    log = tmp_path / "calls.log"
    for tool, body in _OUTPUTS.items():
        _stub(bin_dir, tool, body, log)
    _stub(tools / "t", "io_uring", _IO_URING, log)
    for sample in ("pktgen_sample01.sh", "pktgen_bench_xmit_mode_queue_xmit.sh"):
        _stub(tools, sample, _PKTGEN, log)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "PKTGEN_DIR": str(tools), "FIO_DIR": str(tools),
           "RUN_SH_NOT_ROOT": "1", "PEER": "192.0.2.9", "HOME": str(tmp_path), "LC_ALL": "C"}
    trace = tmp_path / "trace"
    done = subprocess.run([strace, "-f", "-qq", "-o", str(trace), "-e",
                           "trace=open,openat,creat,mkdir,mkdirat,unlink,unlinkat,rename,"
                           "renameat,renameat2,truncate,symlink,symlinkat,link,linkat,rmdir,chdir",
                           "sh", "run.sh", "base"], cwd=run, env=env, capture_output=True,
                          text=True, timeout=120)
    writes = _writes(trace.read_text())
    inside = (str(run) + "/", str(tmp_path) + "/")
    for w in writes:
        call, path = w.split(" ", 1)
        if path in ("/dev/null", "/dev/tty"):
            continue
        if path.startswith("/"):
            assert path.startswith(inside), (w, done.stderr)
        else:
            assert ".." not in path.split("/"), w
            assert call != "chdir" or not path.startswith("/"), w
    # each tool was given only words its allow-list takes
    calls = log.read_text().splitlines() if log.exists() else []
    for line in calls:
        tool, *argv = line.split(" ")
        tool = {"pktgen_sample01.sh": "pktgen", "pktgen_bench_xmit_mode_queue_xmit.sh": "pktgen"}.get(tool, tool)
        assert allowed.check(tool, argv) == "", line
    return calls
