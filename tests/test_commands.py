"""Shell commands, loops and the conditions their variables name (analyze/claims/shell/)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyze.claims.shell.commands import find_commands, find_loops, read_shell
from analyze.claims.shell.conditions import condition_from_header, condition_of
from analyze.claims.shell.loops import Loop, loop_for_values

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers


def _seed(seeds_dir, prefix: str) -> list[str]:
    """A seed's lines with one `>` quote level removed (the depth the claims code sees)."""
    path = next(seeds_dir.glob(prefix + "_*.txt"))
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("> "):
            line = line[2:]
        elif line.startswith(">"):
            line = line[1:]
        out.append(line)
    return out


# --- the seeds ----------------------------------------------------------------------------


def test_seed_001_prompted_loop_is_threads(seeds_dir):
    lines = _seed(seeds_dir, "001")
    shell = read_shell(lines)
    (loop,) = shell.loops
    assert (loop.variable, loop.values) == ("c", ("1", "2", "4"))
    assert lines[loop.line].strip().startswith("# for c in")
    assert lines[loop.last].strip() == "> done"
    assert condition_of("c", shell.commands) == "threads"
    assert condition_from_header("$c", shell.commands) == "threads"
    pktgen = [c for c in shell.commands if c.tool == "pktgen"]
    assert pktgen[0].argv[-2:] == ("-i", "eth1")
    # the `\` continuation `> rate 2gbit ...` belongs to the tc command, not to a quote
    police = next(c for c in shell.commands if "police" in c.argv)
    assert "2gbit" in police.argv and police.last == police.line + 1
    # the pipe table under the commands is not a command
    assert all("|" not in c.text for c in shell.commands)


def test_seed_004_loop_is_instances_and_pairs_the_lists(seeds_dir):
    lines = _seed(seeds_dir, "004")
    shell = read_shell(lines)
    (loop,) = shell.loops
    assert loop.variable == "i"
    assert loop.values == ("35", "50", "65", "80", "95", "110", "125", "140", "155")
    assert loop.body == ("super_netperf $i netperf -H $ip -t TCP_RR",)
    assert condition_of("i", shell.commands) == "instances"
    nine = [str(n) for n in range(9)]
    assert loop_for_values(shell.loops, nine, line=loop.last + 5) == loop
    assert loop_for_values(shell.loops, nine[:8]) is None


def test_seed_000_tc_commands_no_loop(seeds_dir):
    shell = read_shell(_seed(seeds_dir, "000"))
    assert shell.loops == ()
    assert [c.tool for c in shell.commands] == ["tc"] * 5  # `$TC` resolved from `TC=tc`
    last = shell.commands[-1]
    assert last.argv[-2:] == ("action", "drop")  # joined over the `\` continuation
    # the prose claim above the commands is not a command
    assert not any("Mpps" in c.text for c in shell.commands)


# --- loops --------------------------------------------------------------------------------


def _loop(text: str) -> Loop:
    (loop,) = find_loops(text.splitlines())
    return loop


def test_loop_value_forms():
    assert _loop("for i in 1 2 4 8; do netperf -H h; done").values == ("1", "2", "4", "8")
    assert _loop("for q in {1..16}; do echo; done").values == tuple(str(n) for n in range(1, 17))
    assert _loop("for s in {64..1500..256}; do x; done").values == (
        "64", "320", "576", "832", "1088", "1344",
    )  # fmt: skip
    assert _loop("for c in $(seq 1 8); do x; done").values == tuple("12345678")
    assert _loop("for c in `seq 2 2 8`; do x; done").values == ("2", "4", "6", "8")
    assert _loop("for d in eth{0,1}; do x; done").values == ("eth0", "eth1")
    assert _loop("for n in {01..03}; do x; done").values == ("01", "02", "03")
    assert _loop("for ((i = 1; i <= 16; i *= 2)); do x; done").values == (
        "1", "2", "4", "8", "16",
    )  # fmt: skip
    assert _loop("for t in TCP_RR TCP_CRR; do netperf -t $t; done").values == ("TCP_RR", "TCP_CRR")


def test_loop_values_from_a_variable():
    lines = ['SIZES="64 512 1500"', "for s in $SIZES; do", "  ./pktgen_sample03.sh -s $s", "done"]
    shell = read_shell(lines)
    assert shell.loops[0].values == ("64", "512", "1500")
    assert condition_of("s", shell.commands) == "packet_size"


def test_loop_values_are_bounded():
    assert len(_loop("for i in {1..100000000000}; do x; done").values) == 10_000
    assert len(_loop("for i in $(seq 1 99999999); do x; done").values) == 10_000
    assert len(_loop("for i in {1..9}{1..9}{1..9}{1..9}{1..9}; do x; done").values) == 10_000
    digits = "9" * 2000
    loop = _loop(f"for i in {{1..{digits}}}; do x; done")
    assert loop.values == (f"{{1..{digits}}}",)  # too long to be a range: kept as written
    assert find_loops([f"for i in {{1..{'9' * 5000}}}; do x; done"]) == []  # a line too long


def test_multi_line_unprompted_loop_and_iperf_flows():
    text = """\
Results with more flows:

for n in 1 2 4 8 16
do
    iperf3 -c 192.168.1.2 -P $n -t 30
done

 n | before | after
"""
    shell = read_shell(text.splitlines())
    (loop,) = shell.loops
    assert loop.values == ("1", "2", "4", "8", "16") and loop.line == 2 and loop.last == 5
    assert condition_of("n", shell.commands) == "flows"
    assert condition_from_header("n", shell.commands, shell.loops) == "flows"


def test_prompted_root_loop_with_ethtool_queues():
    text = """\
root@dut:~# for q in 1 2 4 8; do
> ethtool -L eth0 combined $q
> sleep 1; ./xdp-bench drop eth0 -e
> done
"""
    shell = read_shell(text.splitlines())
    assert [c.tool for c in shell.commands] == ["ethtool", "sleep", "xdp-bench"]
    assert shell.loops[0].body[0] == "ethtool -L eth0 combined $q"
    assert condition_of("q", shell.commands) == "queues"


def test_nested_loops():
    text = """\
$ for c in 1 2; do
>   for s in 64 1500; do
>     taskset -c 0-$c ./pktgen_sample01_simple.sh -i eth0 -s $s
>   done
> done
"""
    shell = read_shell(text.splitlines())
    outer, inner = shell.loops
    assert (outer.variable, outer.values, outer.line, outer.last) == ("c", ("1", "2"), 0, 4)
    assert (inner.variable, inner.values, inner.line, inner.last) == ("s", ("64", "1500"), 1, 3)
    assert outer.body == inner.body
    assert condition_of("c", shell.commands) == "cpus"
    assert condition_of("s", shell.commands) == "packet_size"


def test_while_loop_gives_commands_but_no_loop():
    text = "# while true; do\n> nstat -n; sleep 1\n> done\nsome prose after it."
    shell = read_shell(text.splitlines())
    assert shell.loops == ()
    assert [c.tool for c in shell.commands] == ["nstat", "sleep"]


def test_loop_without_done_stops_at_prose():
    text = "for i in 1 2 3; do\n  super_netperf $i -H host\nThe numbers are below.\n1 2 3"
    shell = read_shell(text.splitlines())
    (loop,) = shell.loops
    assert loop.last == 1 and loop.body == ("super_netperf $i -H host",)
    assert len(shell.commands) == 1


def test_two_loops_pair_by_labels_then_by_position():
    text = """\
for t in 1 2 4; do wrk -t $t -c 100 http://h/; done
for c in 10 100 1000; do wrk -t 4 -c $c http://h/; done
"""
    shell = read_shell(text.splitlines())
    first, second = shell.loops
    assert loop_for_values(shell.loops, ["10", "100", "1000"]) == second
    assert loop_for_values(shell.loops, ["1", "2", "4.0"]) == first
    assert loop_for_values(shell.loops, ["5", "6", "7"]) is None  # ambiguous without a line
    assert loop_for_values(shell.loops, ["5", "6", "7"], line=1) == second
    assert condition_of("t", shell.commands) == "threads"
    assert condition_of("$c", shell.commands) == "flows"


# --- commands -----------------------------------------------------------------------------


def test_prompt_forms_and_comments():
    lines = [
        "$ perf stat -a -e cycles -- sleep 10",
        "~# ip -s link show dev eth0",
        "[root@host ~]# ethtool -G eth0 rx 4096",
        "# Setup the device first",
        "# 1) Use percpu stats",
        "# uname -a",
        "netperf shows 5% more transactions.",
        "ip addresses are assigned by dhcp",
        "tc is used as the classifier",
        "sudo taskset -c 2 neper/tcp_rr -T 4 -F 100 # a trailing comment",
    ]
    tools = [(c.line, c.tool) for c in find_commands(lines)]
    assert tools == [(0, "perf"), (1, "ip"), (2, "ethtool"), (5, "uname"), (9, "taskset")]
    last = find_commands(lines)[-1]
    assert last.argv == ("sudo", "taskset", "-c", "2", "neper/tcp_rr", "-T", "4", "-F", "100")


def test_compound_lines_split_into_simple_commands():
    cmds = find_commands(["# modprobe pktgen && ./pktgen.sh -t 2 | tee log; echo 'a;b' 2>&1"])
    assert [c.tool for c in cmds] == ["modprobe", "pktgen", "tee", "echo"]
    assert cmds[-1].argv == ("echo", "a;b", "2>&1")
    assert find_commands(["# echo 'a;b' >/dev/null 2>&1 &"])[0].argv == (
        "echo",
        "a;b",
        ">/dev/null",
        "2>&1",
    )


def test_unbalanced_quotes_fall_back_to_whitespace():
    (cmd,) = find_commands(['$ netperf -H host -t TCP_RR -- -r "64,64'])
    assert cmd.argv[-1] == '"64,64'


def test_condition_of_other_tools():
    def cond(line: str, var: str) -> str | None:
        return condition_of(var, find_commands([line]))

    assert cond("# netperf -H h -l 30 -t TCP_STREAM -- -m $m", "m") == "message_size"
    assert cond("# netperf -H h -l $d -t TCP_STREAM", "d") == "duration"
    assert cond("# for t in 1 2; do neper/tcp_stream --num-flows=$t; done", "t") == "flows"
    assert cond("# ip link set dev eth0 mtu $m", "m") == "mtu"
    assert cond("# ethtool -G eth0 rx $r", "r") == "ring_size"
    assert cond("# sysctl -w net.core.busy_poll=$v", "v") == "busy_poll"
    assert cond("# echo $n > /sys/class/net/eth0/queues/rx-0/rps_cpus", "n") == "cpus"
    assert cond("# ./bench --batch-size $b", "b") == "batch"
    assert cond("# ./bench -x $b", "b") is None
    assert cond("# netperf -H $ip", "ip") == "host"
    assert cond("# netperf -H h", "c") is None
    assert condition_of("not a name!", find_commands(["# netperf -H $x"])) is None


def test_condition_from_header_words():
    cases = {
        "threads": "threads", "nr threads": "threads", "# of threads": "threads",
        "Thread count": "threads", "instances": "instances", "streams": "flows",
        "flows": "flows", "connections": "flows", "clients": "instances",
        "queues": "queues", "RX queues": "queues", "combined": "queues", "cpus": "cpus",
        "cores": "cpus", "nr_cpus": "cpus", "Packet size (bytes)": "packet_size",
        "pkt size": "packet_size", "size": "packet_size", "bytes": "packet_size",
        "msg size": "message_size", "batch": "batch", "CPU": None, "pps": None,
        "before patch": None, "improvement": None, "trans./sec (3.17)": None, "": None,
        "Mpps per thread per second measured": None,
    }  # fmt: skip
    for text, want in cases.items():
        assert condition_from_header(text) == want, text


# --- hostile input ------------------------------------------------------------------------

_SHELLISH = st.sampled_from(
    ["# ", "$ ", "> ", "for i in ", "do ", "done", "; ", "{1..9}", "$(seq 1 ", ")", "'", '"',
     "\\", "-t ", "$i ", "super_netperf ", "ethtool -L ", "combined ", "((", "`", "&&", "|",
     "while true", "\n", " ", "x", "1", "#", "{", "}", ","]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(st.text(max_size=60), st.lists(_SHELLISH, max_size=20).map("".join)), max_size=20
    )
)
def test_never_raises(lines):
    shell = read_shell(lines)
    for loop in shell.loops:
        assert len(loop.values) <= 10_000
        condition_of(loop.variable, shell.commands)
        loop_for_values(shell.loops, loop.values)
    for line in lines:
        condition_from_header(line, shell.commands, shell.loops)


def _timed(lines) -> float:
    start = time.perf_counter()
    read_shell(lines)
    return time.perf_counter() - start


def test_hostile_sizes_stay_fast():
    # Budgets are generous (slow CI); what matters is no quadratic blow-up.
    many = ["# for i in 1 2 3; do", "> ./pktgen.sh -t $i 'unbalanced", "> done"] * 3400
    assert _timed(many) < 5
    assert _timed(["# tc " + "qdisc 'a " * 500 + "\\"] * 10_000) < 10
    assert _timed(["x" * 1_000_000, "# netperf " + "-t " * 400_000]) < 1
    assert _timed(["for i in 1; do"] + ["  echo $i"] * 10_000) < 5
    assert find_commands(["# netperf " + "-t " * 400_000]) == []  # longer than a line may be


def test_commands_inside_sentences():
    lines = [
        "for example in this case we do not see it",
        "tc filter path (cls_bpf, 8 threads, 256 byte packets) moved from",
        "iperf3 -P 16 between two hosts, TCP, 100G link, one column per kernel,",
        "netperf -H 192.0.2.20 -t TCP_STREAM -l 60 -- -m 16384, before:",
        "ip addr add 10.0.0.1/24 dev eth0",
    ]
    cmds = find_commands(lines)
    assert [(c.line, c.text) for c in cmds] == [
        (2, "iperf3 -P 16"),
        (3, "netperf -H 192.0.2.20 -t TCP_STREAM -l 60 -- -m 16384"),
        (4, "ip addr add 10.0.0.1/24 dev eth0"),
    ]
    assert find_loops(lines) == []


def test_parse_for_reads_one_statement():
    from analyze.claims.shell import loops

    assert loops.parse_for("for c in {1..3}", {}) == ("c", ("1", "2", "3"))
