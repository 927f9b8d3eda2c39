"""`scenario export --format sh`: the experiment behind a claim as a script that runs, rebuilt
from what patchperf parsed out of the mail, never from the mail's text.

The scenario's commands are read again with the shell reader (analyze/claims/shell): each
command's program, its words, the loop it sits in and the loop's expanded values, the
variables the mail set (`TC=tc`). A command becomes a line of the script only when its
program is a known tool (KNOWN) and every word is a number or a name (`WORD`), a variable
the mail set to such a value, the enclosing loop's variable, or the traffic peer; any other
command is a comment saying why. So `$(...)`, backticks, `;`, quotes and redirections in a
mail never reach a shell: the words that hold them fail the check.

The script says first what it needs (root, the tools and where they come from, the traffic
peer, the two kernels), runs once per booted kernel as `./run.sh LABEL`, keeps each
measurement's output and the figure read from it (results/LABEL/), and `./run.sh compare
BASE PATCHED` prints both kernels' figures as a mail that `patchperf analyze` reads back as
claims: a reply to the original message, so a store threads the two side by side.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from analyze.claims.shell.commands import Command, read_shell
from analyze.claims.shell.loops import VARIABLE, Loop

from . import allowed
from .scenario import Scenario

# A word passed on to a command: options, numbers, names, tc handles (`ffff:`, `1:15`),
# prefixes (`7.0.0.0/8`), `key=value` settings (`--rw=randread`, `net.core.somaxconn=4096`).
WORD = re.compile(r"[A-Za-z0-9_.,:/+=%@-]{1,200}")
NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")  # a loop value, a label, a peer
_MESSAGE_ID = re.compile(r"[A-Za-z0-9_.+=%$!#&*/?^`{|}~@-]{1,200}")
_PKTGEN_SCRIPT = re.compile(r"pktgen[A-Za-z0-9_.-]{0,80}\.sh")
_WRAPPERS = ("sudo", "time", "env", "nohup")
_QUIET = frozenset({"2>/dev/null", ">/dev/null", "2>&1", "&>/dev/null", ">&/dev/null"})
_CLEANUP = frozenset({"del", "delete", "flush"})  # may fail on a fresh boot: not fatal


@dataclass(frozen=True, slots=True)
class Tool:
    program: str  # as the script calls it
    source: str  # where it comes from
    measures: str = ""  # the figure read from its output (`figure` in the script), if any
    check: str = ""  # the shell test that it is there


KNOWN: dict[str, Tool] = {
    "tc": Tool("tc", "iproute2"),
    "ip": Tool("ip", "iproute2"),
    "ethtool": Tool("ethtool", "ethtool"),
    "sysctl": Tool("sysctl", "procps"),
    "pktgen": Tool('"$PKTGEN_DIR"/{script}', "the kernel tree's samples/pktgen/ (set "
                   "PKTGEN_DIR; needs CONFIG_NET_PKTGEN)", "pktgen",
                   '[ -x "$PKTGEN_DIR"/{script} ]'),
    "netperf": Tool("netperf", "netperf (github.com/HewlettPackard/netperf); netserver on "
                    "the peer", "netperf"),
    "super_netperf": Tool("super_netperf", "a helper that starts N netperf instances and "
                          "sums their results (netdev mail's super_netperf; not part of "
                          "netperf): an executable on PATH", "last_number"),
    "iperf3": Tool("iperf3", "iperf3; `iperf3 -s` on the peer", "iperf3"),
    "xdp-bench": Tool("xdp-bench", "xdp-tools", "xdp_bench"),
    "fio": Tool("fio", "fio", "iops"),
    "io_uring": Tool('"$FIO_DIR"/t/io_uring', "fio's source tree, t/io_uring (set FIO_DIR)",
                     "iops", '[ -x "$FIO_DIR"/t/io_uring ]'),
}
_ROOT_TOOLS = frozenset({"tc", "ip", "ethtool", "sysctl", "pktgen"})
_SERVERS = {"netperf": "netserver", "super_netperf": "netserver", "iperf3": "`iperf3 -s`"}
_PEER_FLAG = {"netperf": "-H", "super_netperf": "-H", "iperf3": "-c"}
_WHAT = {"trans/s": "transactions", "IOPS": "IOPS"}
_UNITS = {"pktgen": "pps", "netperf": "trans/s", "last_number": "trans/s",
          "iperf3": "Gbit/s", "xdp_bench": "pps", "iops": "IOPS"}
# what each mechanism tag is in words the mechanism reader knows (mechanisms.from_words)
_MECHANISM_WORDS = {"drop_lock": "removes the spinlock", "percpu_stats": "per-cpu counters",
                    "rcu_config": "RCU", "lastuse_per_tick": "lastuse once per jiffies tick",
                    "skip_backlog": "RX_HANDLER_ANOTHER instead of the netif_rx backlog"}


@dataclass(frozen=True, slots=True)
class Step:
    """One command of the experiment: the words to run, or the reason it is a comment."""

    text: str  # the command as the scenario holds it
    tool: str
    words: tuple[str, ...] = ()  # shell words, already quoted; empty when it is a comment
    why_not: str = ""
    loop: Loop | None = None
    peer: str | None = None  # the peer the mail named, when a literal
    note: str = ""  # what run.sh changed from the mail's command, and why

    @property
    def runs(self) -> bool:
        return bool(self.words)


@dataclass(frozen=True, slots=True)
class Experiment:
    steps: tuple[Step, ...]
    peer_needed: bool
    peer_default: str | None


def plan(scenario: Scenario) -> Experiment:
    """Each of the scenario's commands as a step to run or a comment, in order: a line the
    shell reader finds no command in, and a variable set to anything but a number or a name,
    are comments too."""
    shell = read_shell(list(scenario.commands))
    assigned = {k: v for k, v in shell.assignments if WORD.fullmatch(v)}
    by_line: dict[int, list[Command]] = {}
    for command in shell.commands:
        by_line.setdefault(command.line, []).append(command)
    steps = []
    for k, text in enumerate(scenario.commands):
        if k not in by_line:
            setting = _SETTING.fullmatch(text.strip())
            if setting is None:
                steps.append(Step(text, "", why_not="not a command patchperf recognises"))
            elif setting.group(1) not in assigned:
                steps.append(Step(text, "", why_not="a variable set to more than a number "
                                                    "or a name"))
            continue
        for command in by_line[k]:
            loops = [lp for lp in shell.loops if lp.line <= command.line <= lp.last
                     and command.text in lp.body]
            steps.append(_step(command, loops, assigned))
    running = [s for s in steps if s.runs]
    peers = [s.peer for s in running if s.peer]
    return Experiment(tuple(steps), any('"$PEER"' in s.words for s in running),
                      peers[0] if peers else None)


_SETTING = re.compile(r"([A-Za-z_]\w{0,63})=.*", re.S)


def _step(command: Command, loops: Sequence[Loop], assigned: dict[str, str]) -> Step:
    def comment(why: str) -> Step:
        return Step(command.text, command.tool, why_not=why)

    if command.tool not in KNOWN:
        return comment(f"{_printable(command.tool)[:40] or 'it'} is not a tool patchperf runs")
    if len(loops) > 1:
        return comment("nested loops are not rebuilt")
    loop = loops[0] if loops else None
    if loop is not None and not (loop.values and all(NAME.fullmatch(v) for v in loop.values)):
        return comment("its loop's values are not plain numbers or names")
    argv = list(command.argv)
    while argv and argv[0] in _WRAPPERS:
        argv.pop(0)  # the script runs as root, and times nothing
    if not argv or "=" in argv[0]:
        return comment("it sets variables for one command")
    tool = KNOWN[command.tool]
    program = _value(argv[0], assigned)
    if command.tool == "pktgen":
        script = program.rsplit("/", 1)[-1]
        if not _PKTGEN_SCRIPT.fullmatch(script):
            return comment("not a pktgen sample script")
        head = tool.program.format(script=script)
    else:
        head = tool.program
    words = [head]
    argv_seen: list[str | None] = []  # the words as the tool sees them; None: the loop's variable
    peer = None
    flag = _PEER_FLAG.get(command.tool)
    for k, raw in enumerate(argv[1:], 1):
        if raw in _QUIET:
            continue  # the output is kept in results/ either way
        if flag is not None and k > 1 and argv[k - 1] == flag:
            value = _value(raw, assigned)
            if (NAME.fullmatch(value) or re.fullmatch(r"[0-9a-fA-F:.]{2,45}", value)) \
                    and not value.startswith("-"):
                peer = value
            words.append('"$PEER"')
            argv_seen.append("peer")
            continue
        var = VARIABLE.fullmatch(raw)
        if var is not None and loop is not None and var.group(1) == loop.variable:
            words.append(f'"${loop.variable}"')
            argv_seen.append(None)
            continue
        value = _value(raw, assigned)
        if VARIABLE.search(value):
            return comment(f"it uses {_printable(raw)[:40]}, which the mail does not set")
        if not WORD.fullmatch(value):
            return comment(f"the word {_printable(raw)[:40]!r} is not a number or a name")
        words.append(value)
        argv_seen.append(value)
    # the tool's own reading of its words, once for each value the loop gives its variable
    for v in (loop.values if loop is not None and None in argv_seen else ("",)):
        seen = [v if w is None else w for w in argv_seen]
        why = allowed.check(command.tool, seen)
        if why:
            return comment(_printable(why))
    note = ""
    if command.tool == "fio":
        first = [loop.values[0] if w is None and loop is not None else w or ""
                 for w in argv_seen]
        fio = allowed.fio_targets(first, words[1:], "$OUT/fio.data", "$OUT")
        words = [words[0], *fio.words]
        if fio.moved:
            note = (f"the mail's fio wrote to {fio.moved[:120]}; run.sh writes only under "
                    "$OUT, so it writes there")
    return Step(command.text, command.tool, tuple(words), loop=loop, peer=peer, note=note)


def _value(word: str, assigned: dict[str, str]) -> str:
    m = VARIABLE.fullmatch(word)
    return assigned.get(m.group(1), word) if m else word


def _printable(text: str) -> str:
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def _comment(text: str) -> str:
    return _printable(text)[:300]


def _quote(text: str) -> str:
    """One sh word, whatever the text (single quotes, `'"'"'` for a quote inside); the text
    is one line, so no word can end a line of the script."""
    return shlex.quote(_printable(text))


def experiment_sh(scenario: Scenario) -> str:
    """The experiment as `run.sh`."""
    exp = plan(scenario)
    running = [s for s in exp.steps if s.runs]
    measuring = [s for s in running if KNOWN[s.tool].measures]
    primary = next((s for s in measuring if s.tool == scenario.workload.tool),
                   measuring[0] if measuring else None)
    origin = scenario.claim.message_id or ""
    msgid = origin if _MESSAGE_ID.fullmatch(origin) and "'" not in origin else ""
    tools = sorted({s.tool for s in running}, key=list(KNOWN).index)
    lines = [
        "#!/bin/sh",
        f"# run.sh: the experiment of patchperf scenario {_comment(scenario.id)},",
        f"# rebuilt from the commands patchperf parsed in <{_comment(origin or 'no message id')}>.",
        "# Only known tools with checked arguments, and the parsed loop values, are commands;",
        "# the rest of the mail's commands are comments below. patchperf never runs this script.",
        "#",
        "# What it needs:",
    ]
    root = bool(_ROOT_TOOLS & set(tools)) or (scenario.workload.tool == "rx_flood"
                                              and primary is None)
    if root:
        lines.append("#   - root: it configures devices, qdiscs, kernel settings or pktgen as "
                     "the mail did")
    for name in tools:
        tool = KNOWN[name]
        lines.append(f"#   - {name}: {tool.source}")
    if exp.peer_needed:
        lines.append("#   - the traffic peer: PEER=<host> (the mail used "
                     f"{_comment(exp.peer_default or 'a variable')}), running "
                     + " and ".join(dict.fromkeys(_SERVERS[t] for t in tools if t in _SERVERS)))
    if scenario.workload.tool == "rx_flood" and primary is None:
        if scenario.workload.sweep == "queues" and "ethtool" not in tools:
            lines.append("#   - ethtool: ethtool (it sets the NIC's queue count)")
        lines.append("#   - the traffic peer: a host flooding this one's NIC (pktgen on the peer),"
                     " started before each run")
    kernel = f"; the claim was measured on {_comment(scenario.claim.kernel)}" \
        if scenario.claim.kernel else ""
    lines += [
        "#   - two kernels: the baseline (without the patch) and the patched one, booted in",
        f"#     turn on the same machine{kernel}",
        "#",
        "# Usage, once per booted kernel:",
        "#   ./run.sh LABEL                  e.g. base, then patched: results in results/LABEL/",
        "#   ./run.sh compare BASE PATCHED   both kernels' figures as a mail that",
        "#                                   `patchperf analyze` reads back as claims",
        "set -u",
        "",
        f"SCENARIO={_quote(scenario.id) if NAME.fullmatch(scenario.id) else _quote('scenario')}",
        f"IN_REPLY_TO={_quote(msgid)}",
    ]
    if "pktgen" in tools:
        lines.append('PKTGEN_DIR=${PKTGEN_DIR:-./samples/pktgen}')
    if "io_uring" in tools:
        lines.append('FIO_DIR=${FIO_DIR:-./fio}')
    if exp.peer_needed:
        default = exp.peer_default or ""
        lines.append(f"PEER=${{PEER:-{default}}}" if default else 'PEER=${PEER:-}')
    device = _flood_device(scenario, exp) if primary is None else None
    if device is not None:
        lines += [f"DEV={device}", "RX_SECONDS=${RX_SECONDS:-10}"]
    measured = primary is not None or device is not None
    if measured:
        lines += ["", *_FUNCTIONS, ""]
        lines += _compare_function(scenario, primary, exp)
    else:
        lines += ["", _FUNCTIONS[0]]
    lines += ["", *_MAIN_HEAD]
    if root:
        lines.append(_ROOT_CHECK)
    checks = []
    for name in tools:
        tool = KNOWN[name]
        if tool.check:
            for step in running:
                if step.tool == name:
                    script = step.words[0].rsplit("/", 1)[-1]
                    checks.append(f"{tool.check.format(script=script)} || die "
                                  f"{_quote(f'{name} is missing: {tool.source}')}")
        elif name != "super_netperf":
            checks.append(f"command -v {name} >/dev/null 2>&1 || die "
                          f"{_quote(f'{name} is not installed: {tool.source}')}")
        else:
            checks.append("command -v super_netperf >/dev/null 2>&1 || die "
                          f"{_quote('super_netperf is not on PATH: ' + tool.source)}")
    lines += list(dict.fromkeys(checks))
    if exp.peer_needed:
        lines.append('[ -n "$PEER" ] || die \'set PEER to the traffic peer\'')
    if device is not None:
        lines.append('[ -r "/sys/class/net/$DEV/statistics/rx_packets" ] || die "no device $DEV"')
        if scenario.workload.sweep == "queues":
            lines.append("command -v ethtool >/dev/null 2>&1 || die 'ethtool is not installed'")
    if not measured:
        lines.append("die 'no command of this scenario is a measurement patchperf can run, "
                     "and it is no RX flood on a named device'")
        return "\n".join(lines + [f"# not run: {_comment(s.text)}" for s in exp.steps]) + "\n"
    lines += ['mkdir -p "$OUT" || die "cannot make $OUT"',
              'uname -r | tr -cd \'A-Za-z0-9_.+-\' > "$OUT/kernel"', ""]
    for n, step in enumerate(exp.steps):
        lines += _render(step, n, step is primary, scenario)
    if device is not None:
        lines += _flood(scenario)
    lines.append('echo "run.sh: results in $OUT" >&2')
    return "\n".join(lines) + "\n"


def _flood_device(scenario: Scenario, exp: Experiment) -> str | None:
    """The NIC an RX flood arrives on: the scenario's named NIC, else the device its tc
    commands configure."""
    if scenario.workload.tool != "rx_flood":
        return None
    for device in scenario.topology.devices:
        if device.kind == "nic" and NAME.fullmatch(device.name):
            return device.name
    for step in exp.steps:
        if step.runs and step.tool == "tc" and "dev" in step.words[:-1]:
            name = step.words[step.words.index("dev") + 1]
            if NAME.fullmatch(name):
                return name
    return None


def _flood(scenario: Scenario) -> list[str]:
    """An RX flood's measurement: the packets the device received per second, sampled from
    its counters over RX_SECONDS, at each value of the sweep (queues set with ethtool)."""
    values = " ".join(str(v) for v in scenario.workload.values)
    queues = scenario.workload.sweep == "queues"
    return [': > "$OUT/primary.tsv"',
            *_once(scenario.workload.values),
            f"for n in {values}; do",
            *(['  ethtool -L "$DEV" combined "$n" || die "cannot set $DEV to $n queues"',
               "  sleep 2"] if queues else []),
            '  a=$(cat "/sys/class/net/$DEV/statistics/rx_packets")',
            '  sleep "$RX_SECONDS"',
            '  b=$(cat "/sys/class/net/$DEV/statistics/rx_packets")',
            '  printf \'%s\\t%s\\n\' "$n" "$(( (b - a) / RX_SECONDS ))" >> "$OUT/primary.tsv"',
            "done"]


def _once(values: Sequence[object]) -> list[str]:
    """A loop over one value is what the mail measured, not a quoting slip: say so to
    shellcheck."""
    return ["# shellcheck disable=SC2043 # one value: the one the claim was measured at"] \
        if len(values) == 1 else []


def _render(step: Step, n: int, primary: bool, scenario: Scenario) -> list[str]:
    if not step.runs:
        return [f"# not run ({_comment(step.why_not)}): {_comment(step.text)}"]
    command = " ".join(step.words)
    if step.note:
        return [f"# {_comment(step.note)}", *_render(
            Step(step.text, step.tool, step.words, loop=step.loop, peer=step.peer), n, primary,
            scenario)]
    tool = KNOWN[step.tool]
    if not tool.measures:
        if any(w in _CLEANUP for w in step.words):
            return [f"{command} 2>/dev/null || true"]
        return [f"{command} || die {_quote('failed: ' + command)}"]
    name = "primary" if primary else f"m{n}"
    per = "_per_thread" if (primary and step.tool == "pktgen"
                            and scenario.metric.name == "pps_per_thread") else ""
    figure = f"{tool.measures}{per}"
    if step.loop is None:
        value = str(scenario.workload.values[0]) if len(scenario.workload.values) == 1 else "1"
        return [f': > "$OUT/{name}.tsv"',
                f'{command} > "$OUT/{name}-{value}.out" 2>&1 || die "{name} failed: see $OUT"',
                f'printf \'%s\\t%s\\n\' {value} "$(figure {figure} "$OUT/{name}-{value}.out")"'
                f' >> "$OUT/{name}.tsv"']
    v = step.loop.variable
    return [f': > "$OUT/{name}.tsv"',
            *_once(step.loop.values),
            f"for {v} in {' '.join(step.loop.values)}; do",
            f'  {command} > "$OUT/{name}-${v}.out" 2>&1 || die "{name} failed at {v}=${v}: see $OUT"',
            f'  printf \'%s\\t%s\\n\' "${v}" "$(figure {figure} "$OUT/{name}-${v}.out")"'
            f' >> "$OUT/{name}.tsv"',
            "done"]


_FUNCTIONS = [
    "die() { echo \"run.sh: $*\" >&2; exit 2; }",
    "",
    "# figure KIND FILE: the one figure a tool's output gives (empty when it gives none)",
    "figure() {",
    "  case $1 in",
    "    pktgen) awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+pps$/) s += $i + 0 }"
    " END { printf \"%.0f\\n\", s }' \"$2\" ;;",
    "    pktgen_per_thread) awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+pps$/)"
    " { s += $i + 0; n++ } } END { if (n) printf \"%.0f\\n\", s / n }' \"$2\" ;;",
    "    netperf) awk '{ ok = NF > 0; for (i = 1; i <= NF; i++) if ($i !~ /^[0-9.]+$/) ok = 0;"
    " if (ok && NF >= best) { best = NF; v = $NF } } END { if (best) print v }' \"$2\" ;;",
    "    last_number) awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) v = $i }"
    " END { print v }' \"$2\" ;;",
    "    iperf3) awk '/receiver/ { for (i = 2; i <= NF; i++) { if ($i == \"Gbits/sec\")"
    " v = $(i - 1); if ($i == \"Mbits/sec\") v = $(i - 1) / 1000 } } END { print v }' \"$2\" ;;",
    "    xdp_bench) awk '/rx\\/s/ { for (i = 2; i <= NF; i++) if ($i == \"rx/s\")"
    " { x = $(i - 1); gsub(\",\", \"\", x); v = x } } END { print v }' \"$2\" ;;",
    "    iops) awk 'match($0, /IOPS=[0-9.]+[kM]?/) { x = substr($0, RSTART + 5, RLENGTH - 5);"
    " m = 1; if (x ~ /k$/) m = 1000; if (x ~ /M$/) m = 1000000; v = (x + 0) * m }"
    " END { if (v != \"\") printf \"%.0f\\n\", v }' \"$2\" ;;",
    "  esac",
    "}",
]

_MAIN_HEAD = [
    "[ $# -ge 1 ] || die 'usage: ./run.sh LABEL | ./run.sh compare BASE PATCHED'",
    "case $1 in ''|*[!A-Za-z0-9_.-]*) die 'a label is letters, digits, dot, dash, underscore';;"
    " esac",
    "if [ \"$1\" = compare ]; then",
    "  [ $# -eq 3 ] || die 'usage: ./run.sh compare BASE PATCHED'",
    "  for label in \"$2\" \"$3\"; do",
    "    case $label in ''|*[!A-Za-z0-9_.-]*) die 'a label is letters, digits, dot, dash,"
    " underscore';; esac",
    "  done",
    "  compare \"$2\" \"$3\"",
    "  exit",
    "fi",
    "OUT=results/$1",
]
_ROOT_CHECK = ("[ \"$(id -u)\" -eq 0 ] || [ \"${RUN_SH_NOT_ROOT:-}\" = 1 ] || die 'run it as root"
               " (RUN_SH_NOT_ROOT=1 for a dry run with stub tools)'")


def _compare_function(scenario: Scenario, primary: Step | None, exp: Experiment) -> list[str]:
    """`compare BASE PATCHED`: the mail. Its words are the scenario's parsed data only."""
    sweep = scenario.workload.sweep
    figure = KNOWN[primary.tool].measures if primary is not None else "xdp_bench"
    unit = _UNITS.get(figure, scenario.metric.unit)
    if figure in ("netperf", "last_number") and scenario.metric.name != "trans_per_s":
        unit = scenario.metric.unit  # a STREAM test: netperf's throughput, as the claim's
    what = _WHAT.get(unit, "throughput")
    if figure == "pktgen" and scenario.metric.name == "pps_per_thread":
        what = "pps per thread"
    words = ", ".join(_MECHANISM_WORDS[t] for t in scenario.claim.mechanisms)
    run_line = ""
    if primary is not None:
        body = " ".join(w.replace('"', "") for w in primary.words)
        body = body.replace("$PEER", "PEER").replace("$PKTGEN_DIR/", "./").replace("$FIO_DIR/", "")
        run_line = (f"for {primary.loop.variable} in {' '.join(primary.loop.values)}; do "
                    f"{body}; done" if primary.loop is not None else body)
    out = [
        "# compare BASE PATCHED: both kernels' figures as a mail `patchperf analyze` reads",
        "compare() {",
        "  base=results/$1/primary.tsv patched=results/$2/primary.tsv",
        "  [ -s \"$base\" ] && [ -s \"$patched\" ] || die \"no results for $1 and $2: run"
        " ./run.sh LABEL on each kernel first\"",
        "  printf 'From: run.sh <run.sh@localhost>\\n'",
        "  printf 'Subject: [RESULTS] %s: %s vs %s\\n' \"$SCENARIO\" \"$1\" \"$2\"",
        "  printf 'Message-ID: <%s.%s.%s.%s@run.sh>\\n' \"$SCENARIO\" \"$1\" \"$2\" \"$(date +%s)\"",
        "  [ -z \"$IN_REPLY_TO\" ] || printf 'In-Reply-To: <%s>\\n' \"$IN_REPLY_TO\"",
        "  printf 'Date: %s\\n\\n' \"$(date -R)\"",
        "  printf 'Measured by run.sh for patchperf scenario %s on two kernels: %s (%s) before"
        " the patch\\nand %s (%s) after it.\\n' \"$SCENARIO\" \"$1\" \"$(cat \"results/$1/kernel\")\""
        " \"$2\" \"$(cat \"results/$2/kernel\")\"",
    ]
    if words:
        out.append(f"  printf '%s\\n' {_quote('The patch, as patchperf read it: ' + words + '.')}")
    if run_line:
        # the command as run, for the reader of the mail and patchperf's shell reader
        out += ["  # shellcheck disable=SC2016 # the loop variable, written as the mail wrote it",
                f"  printf '\\n  %s\\n' {_quote(run_line)}"]
    out += [
        f"  printf '\\n%s (%s):\\n\\n' {_quote(what)} {_quote(unit)}",
        f"  printf '%-10s %-18s %s\\n' {_quote(sweep)} \"before ($1)\" \"after ($2)\"",
        "  awk -F '\\t' 'NR == FNR { b[$1] = $2; next } ($1 in b) && b[$1] != \"\" && $2 != \"\""
        " { printf \"%-10s %-18s %s\\n\", $1, b[$1], $2 }' \"$base\" \"$patched\"",
        "}",
    ]
    return out
