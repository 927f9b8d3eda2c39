"""What a loop variable, a table header or a row label names: `threads`, `queues`, ...

`-t $c` to a pktgen script is `threads` (seed 001), `super_netperf $i` is `instances` (seed 004),
`iperf3 -P $n` is `flows`; a header `# of flows` or `Packet size (bytes)` names its column the
same way, so tables, lists and prose key their conditions alike.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .commands import OPTION, TOOLS, Command, program_family, program_index
from .loops import INT, VARIABLE, Loop

# Options per program (from each tool's usage text): pktgen's samples/pktgen/parameters.sh,
# netperf's global and test-specific (after `--`) options, iperf3, neper, wrk, taskset, ...
_OPTIONS: dict[str, dict[str, str]] = {
    "pktgen": {"-t": "threads", "-s": "packet_size", "-n": "count", "-b": "burst",
               "-c": "clones", "-f": "first_thread", "-w": "delay", "-p": "port",
               "-i": "device", "-d": "destination"},
    "netperf": {"-l": "duration", "-H": "host", "-t": "test", "-n": "cpus", "-T": "cpus"},
    "iperf3": {"-P": "flows", "--parallel": "flows", "-l": "message_size",
               "--length": "message_size", "-w": "window", "-t": "duration", "-b": "bitrate",
               "-M": "mss", "-A": "cpus", "--affinity": "cpus", "-c": "host"},
    "neper": {"-T": "threads", "-F": "flows", "-l": "duration", "-Q": "message_size",
              "-R": "message_size", "-H": "host", "-B": "buffer_size"},
    "wrk": {"-t": "threads", "-c": "flows", "-d": "duration", "-R": "rate"},
    "taskset": {"-c": "cpus", "--cpu-list": "cpus"},
    "numactl": {"-C": "cpus", "--physcpubind": "cpus", "-N": "numa_node",
                "--cpunodebind": "numa_node", "-m": "numa_node", "--membind": "numa_node"},
    "xdp-bench": {"-c": "cpus", "--cpu": "cpus", "-q": "queue_size", "--qsize": "queue_size"},
    "xdpsock": {"-q": "queue", "-b": "batch", "--batch-size": "batch"},
    "sockperf": {"-m": "message_size", "--msg-size": "message_size", "--mps": "rate",
                 "-t": "duration"},
}  # fmt: skip
_NETPERF_TEST = {"-m": "message_size", "-M": "message_size", "-r": "message_size",
                 "-s": "socket_buffer", "-S": "socket_buffer", "-P": "port"}  # fmt: skip
_ETHTOOL_MODES = {"-L": "queues", "--set-channels": "queues", "-G": "ring_size",
                  "--set-ring": "ring_size"}  # fmt: skip


def condition_of(variable: str, commands: Sequence[Command]) -> str | None:
    """What a loop variable or a `$c` column means, from how the commands use it.

    `-t $c` to a pktgen script is `threads`, `super_netperf $i` is `instances`, `iperf3 -P $n`
    is `flows`, `ethtool -L eth0 combined $q` is `queues`, `taskset -c $c` is `cpus`. The first
    command that gives the variable a meaning wins; None when none does.
    """
    name = variable.strip().lstrip("$").strip("{}")
    if not re.fullmatch(r"[A-Za-z_]\w{0,63}", name):
        return None
    ref = re.compile(
        r"\$(?:\{" + name + r"\}|" + name + r"(?!\w))|\$\(\([^)]{0,200}\b" + name + r"\b"
    )
    for cmd in commands:
        for k, token in enumerate(cmd.argv):
            if "$" in token and ref.search(token):
                meaning = _meaning(cmd, k)
                if meaning:
                    return meaning
    return None


def _meaning(cmd: Command, k: int) -> str | None:
    argv = cmd.argv
    prog, at, test_options = _owner(cmd, k)
    if k == at:
        return None  # the variable is the program itself
    token = argv[k]
    before = argv[k - 1] if k - 1 > at else ""
    if "=" in token and not token.startswith(("-", "$")):
        key = token.split("=", 1)[0]  # nr_cpus=$c, net.core.busy_poll=$v
        return _named(key.rsplit(".", 1)[-1] if prog == "sysctl" else key)
    option = None
    if token.startswith("-") and "=" in token:
        option = token.split("=", 1)[0]  # --threads=$t
    elif re.match(r"-[A-Za-z]\$", token):
        option = token[:2]  # -t$c
    elif before and OPTION.fullmatch(before) and "=" not in before:
        option = before
    if option:
        table = _OPTIONS.get(prog, {})
        if prog in ("netperf", "super_netperf"):
            table = _NETPERF_TEST if test_options else _OPTIONS["netperf"]
        if option in table:
            return table[option]
        return _named(option.lstrip("-")) if option.startswith("--") else None
    if prog == "super_netperf" and k == at + 1:
        return "instances"
    if prog == "taskset" and k == at + 1:
        return "cpus"
    if prog == "echo":
        for t in argv[k + 1 :]:
            path = t.lstrip(">") if t.startswith(">") and t != ">" else ""
            if t == ">" and argv.index(t, k + 1) + 1 < len(argv):
                path = argv[argv.index(t, k + 1) + 1]
            if path:
                return _named(path.rstrip("/").rsplit("/", 1)[-1])  # echo $n > .../rps_cpus
        return None
    if before and not before.startswith("-") and not INT.fullmatch(before):
        if prog == "ethtool":
            mode = next((t for t in argv[at + 1 : k] if t.startswith("-")), "")
            if mode in _ETHTOOL_MODES and before in ("combined", "rx", "tx", "other"):
                return _ETHTOOL_MODES[mode]
        return _named(before)
    return None


def _owner(cmd: Command, k: int) -> tuple[str, int, bool]:
    """The program that token k is an argument of (`taskset -c 2 netperf ...`), where it
    starts, and whether netperf's test-specific options (after `--`) have begun."""
    argv = cmd.argv
    at = program_index(argv)
    prog = cmd.tool
    test_options = False
    for j in range(at + 1, k):
        token = argv[j]
        family = program_family(token)
        if (family in TOOLS or family == "pktgen") and not token.startswith("-"):
            prog, at, test_options = family, j, False
        elif token == "--" and prog in ("netperf", "super_netperf"):
            test_options = True
    return prog, at, test_options


def _named(word: str) -> str | None:
    """A condition from an option or key name: `--num-flows` flows, `mtu` mtu, `dev` device."""
    known = condition_from_header(word.replace("-", " ").replace("_", " "))
    if known:
        return known
    word = word.lower().replace("-", "_")
    return word if re.fullmatch(r"[a-z][a-z0-9_]{0,31}", word) else None


# Header and row-label words, singular, after the qualifiers (`nr`, `#`, `number of`) go.
_HEADER_WORDS = {
    "thread": "threads", "nthread": "threads", "pktgen thread": "threads",
    "tx thread": "threads", "worker": "threads", "worker thread": "threads",
    "instance": "instances", "netperf instance": "instances", "client": "instances",
    "process": "instances", "job": "instances",
    "flow": "flows", "stream": "flows", "connection": "flows", "conn": "flows",
    "tcp flow": "flows", "udp flow": "flows", "session": "flows", "parallel": "flows",
    "tcp stream": "flows", "socket": "flows",
    "queue": "queues", "rx queue": "queues", "tx queue": "queues", "rxq": "queues",
    "txq": "queues", "channel": "queues", "combined": "queues", "combined channel": "queues",
    "queue pair": "queues", "numtxqueue": "queues", "numrxqueue": "queues",
    "core": "cpus", "cpu core": "cpus", "nr cpu": "cpus", "rx cpu": "cpus",
    "pkt size": "packet_size", "packet size": "packet_size", "frame size": "packet_size",
    "pkt len": "packet_size", "packet length": "packet_size", "frame length": "packet_size",
    "size": "packet_size", "byte": "packet_size", "pkt size byte": "packet_size",
    "msg size": "message_size", "message size": "message_size", "request size": "message_size",
    "req size": "message_size", "response size": "message_size", "payload": "message_size",
    "payload size": "message_size", "send size": "message_size", "write size": "message_size",
    "buffer size": "message_size", "msg len": "message_size", "message length": "message_size",
    "batch": "batch", "batch size": "batch", "bulk": "batch", "bulk size": "batch",
    "burst": "burst", "burst size": "burst",
    "mtu": "mtu", "gso max size": "gso_size", "gso size": "gso_size",
    "gro max size": "gro_size", "ring": "ring_size", "ring size": "ring_size",
    "txqueuelen": "queue_length",
    "dev": "device", "device": "device", "interface": "device", "iface": "device", "nic": "device",
}  # fmt: skip
_QUALIFIERS = frozenset({"nr", "num", "number", "of", "no", "count", "the", "total", "n"})


_BRACKETED = re.compile(r"\([^)]{0,40}\)|\[[^\]]{0,40}\]")  # `(bytes)`, `[us]`
_NOT_WORD = re.compile(r"[^a-z0-9]+")


def condition_from_header(
    text: str, commands: Sequence[Command] = (), loops: Sequence[Loop] = ()
) -> str | None:
    """What a table header or row label names: `threads`, `# of flows`, `Packet size (bytes)`.

    A `$c` header (seed 001) or a bare loop variable is read through `commands` (see
    condition_of). None for anything else, metrics included (`pps`, `before patch`).
    """
    s = text.strip()
    if not s or len(s) > 80:
        return None
    m = VARIABLE.fullmatch(s)
    if m or (loops and any(lp.variable == s for lp in loops)):
        return condition_of(m.group(1) if m else s, commands)
    low = _BRACKETED.sub(" ", s.lower())
    words = _NOT_WORD.sub(" ", low.replace("#", " nr ")).split()
    qualified = bool(words) and words[0] in _QUALIFIERS
    while words and words[0] in _QUALIFIERS:
        words.pop(0)
    while words and words[-1] in ("count", "number", "nr", "num"):
        words.pop()
        qualified = True
    if not words or len(words) > 4:
        return None
    if words[-1] in ("cpus", "cores") or (words == ["cpu"] and qualified):
        return "cpus"  # a bare `CPU` column is usually a CPU-usage figure, not a count
    words[-1] = _singular(words[-1])
    return _HEADER_WORDS.get(" ".join(words))


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("sses") or word.endswith("xes"):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


_NUM_LABEL = re.compile(r"^\s*(\d[\d.,]*)\s*([A-Za-z][\w .\-/]*?)\s*$")


def label_condition(label: str) -> tuple[tuple[str, str], ...]:
    """`4 threads` → (("threads", "4"),), `1 queue` → (("queues", "1"),): a row or item
    label that is a count of something. Other labels name no condition."""
    m = _NUM_LABEL.match(label)
    if not m:
        return ()
    name = condition_from_header(m.group(2)) or re.sub(r"\W+", "_", m.group(2).lower()).strip("_")
    return ((name, m.group(1)),) if name else ()


def counted_condition(label: str) -> tuple[str, str] | None:
    """`1 queue` → ("queues", "1") when the noun is a condition this module knows."""
    m = _NUM_LABEL.match(label)
    if not m:
        return None
    name = condition_from_header(m.group(2))
    return (name, m.group(1)) if name else None
