"""What run.sh may pass to each tool: an allow-list per tool and per option, read the way the
tool itself reads its command line.

A deny list of whole words cannot hold against tools that take prefixes. iproute2 compares
each word with its keywords in source order and takes the first one the word begins
(`ip -b FILE` is `-batch`, `ip netns e` is `exec`); getopt_long takes any unique prefix of a
long option (`iperf3 --logf=FILE` is `--logfile`); fio reads its options with
getopt_long_only, so `-exec_prer=...` is `--exec_prerun`. So each tool's words are parsed
here as the tool parses them, and a command may run only when every option resolves to one
on this page's list and every value is a number or a name:

- **getopt tools** (fio, iperf3, sysctl, xdp-bench, netperf, t/io_uring, the pktgen
  samples' getopts): a long option must be written out in full (glibc's getopt takes an
  exact match before any abbreviation, so a full name can only ever mean itself); an
  abbreviation is refused, whatever it would resolve to. Short options are read one letter
  at a time, with the letters that take a value taking the rest of the word or the next one.
- **iproute2** (`ip`, `tc`): options, objects and verbs are matched as `matches()` does,
  against the keyword tables in the tools' source order; a word is accepted only when the
  keyword it resolves to is allowed *and* it is the prefix of no keyword that is not
  (so `tc a` is `actions`, but `tc e`, a prefix of `exec`, is refused even if a later
  iproute2 moved `exec` down the table).
- **ethtool** matches its modes exactly (`find_option`), and only the modes that read or
  set a NIC's offloads, rings, channels, coalescing, flow rules and hash are allowed: no
  flashing, EEPROM, dumps to files or resets.
- **sysctl** writes only keys under `net.` and `vm.` and a few scheduler keys of `kernel.`:
  never `kernel.modprobe`, `kernel.core_pattern`, `kernel.hotplug` or `kernel.poweroff_cmd`,
  which make the kernel run a program; the congestion control and default qdisc only by
  names the kernel ships (an unknown one makes it run modprobe).

Files: no option that names a file to read commands from or to write is allowed (`-batch`,
`--logfile`, `--pidfile`, iperf3's `--file`, fio's `--output`, `--write_*_log`,
`--exec_*`, ethtool's `-w`, t/io_uring's `-T` and `-H`). fio is the one tool whose job is
to write to a file: a job that only reads keeps its target and runs with `--readonly` (fio
then writes nothing, not even to lay out a missing file); a job that writes has its
`--filename` and `--directory` moved into the run's output folder (`$OUT`), and the mail's
target is named in a comment. Values are numbers and names; a path is taken only where a
tool reads it (t/io_uring's and a read-only fio job's devices).

`check(tool, argv)` says why a command may not run, or that it may (""); `fio_targets`
rewrites a fio command's targets as above. The tables come from the tools' source (iproute2
ip/ip.c, tc/tc.c and the object files; procps sysctl.c; ethtool.c; fio init.c, options.c
and t/io_uring.c; iperf3 iperf_api.c; netperf netsh.c and nettest_omni.c; xdp-tools
xdp-bench.c; the kernel's samples/pktgen/parameters.sh).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

# A value: a number or a name, as experiment.WORD, but no path: `/`, `~` and `..` only in
# what is plainly an address, a prefix or a tc rate (`7.0.0.0/8`, `pass/pass`).
_VALUE = re.compile(r"[A-Za-z0-9_.,:+=%@-]{1,200}")
_SLASHED = re.compile(r"[0-9a-fA-F.:]{1,45}/\d{1,3}|[a-z_]{1,20}/[a-z_]{1,20}")
_DEVICE_PATH = re.compile(r"/dev/[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}(?:/[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}){0,3}")
_READ_PATH = re.compile(r"(?:/?[A-Za-z0-9_][A-Za-z0-9_.-]{0,63})(?:/[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}){0,7}")


def value_ok(word: str) -> bool:
    """A number or a name: no path, no shell, nothing a tool could take for a file."""
    if ".." in word and not re.fullmatch(r"[0-9.]+", word):
        return False
    return bool(_VALUE.fullmatch(word) or _SLASHED.fullmatch(word))


def _read_path(word: str) -> bool:
    """A file or device a tool only reads (t/io_uring's targets)."""
    return ".." not in word.split("/") and bool(_READ_PATH.fullmatch(word))


# --- getopt ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Getopt:
    """A getopt-style command line: the letters and long names allowed, and which take values.

    `short`: letter -> whether it takes a value ("x:" in the optstring). `long`: name -> None
    for a flag, "required" for a value that may be the next word, "optional" for one only
    after `=`. `values`: option (letter or long name) -> a check of its value, else
    value_ok. `positional`: a check for each word that is no option (None: none allowed).
    `long_only`: getopt_long_only, where `-name` is a long option too.
    `loose_value`: letters whose value is the next word only when it looks like one
    (netperf's -c/-C and omni's -k/-o/-O).
    """

    short: dict[str, bool]
    long: dict[str, str | None]
    values: dict[str, Callable[[str], bool]]
    positional: Callable[[str], bool] | None = None
    long_only: bool = False
    loose_value: dict[str, Callable[[str], bool]] | None = None
    ends_at_double_dash: bool = True


def _getopt(spec: Getopt, tool: str, argv: Sequence[str]) -> tuple[str, list[tuple[str, str]]]:
    """Why the words are refused ("" when not), and each option with its value, in order
    (positional words as ("", word))."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if word == "--" and spec.ends_at_double_dash:
            rest = argv[i:]
            for w in rest:
                if spec.positional is None or w.startswith("-") or not spec.positional(w):
                    return f"{tool} takes no word {w!r} here", out
                out.append(("", w))
            return "", out
        if word.startswith("--") or (spec.long_only and word.startswith("-") and len(word) > 2):
            name, eq, value = word.lstrip("-").partition("=")
            if word.startswith("---") or name not in spec.long:
                return _unknown(tool, word), out
            kind = spec.long[name]
            if kind is None and eq:
                return f"{tool}'s --{name} takes no value", out
            if kind == "required" and not eq:
                if i >= len(argv):
                    return f"{tool}'s --{name} needs a value", out
                value = argv[i]
                i += 1
            if (eq or kind == "required") and not spec.values.get(name, value_ok)(value):
                return f"{tool}'s --{name} {value[:40]!r} is not a value run.sh passes", out
            out.append((name, value if (eq or kind == "required") else ""))
            continue
        if word.startswith("-") and len(word) > 1:  # getopt reads `-1` as an option too
            k = 1
            while k < len(word):
                letter = word[k]
                k += 1
                if letter not in spec.short:
                    return _unknown(tool, f"-{letter}"), out
                if spec.short[letter]:
                    value = word[k:]
                    if not value:
                        if i >= len(argv):
                            return f"{tool}'s -{letter} needs a value", out
                        value = argv[i]
                        i += 1
                    if not spec.values.get(letter, value_ok)(value):
                        return f"{tool}'s -{letter} {value[:40]!r} is not a value run.sh passes", out
                    out.append((letter, value))
                    break
                loose = (spec.loose_value or {}).get(letter)
                if loose is not None and k == len(word) and i < len(argv) and loose(argv[i]):
                    out.append((letter, argv[i]))
                    i += 1
                    break
                out.append((letter, ""))
            continue
        if spec.positional is None or word.startswith("-") or not spec.positional(word):
            return f"{tool} takes no word {word[:40]!r} here", out
        out.append(("", word))
    return "", out


def _negative(word: str) -> bool:
    return bool(re.fullmatch(r"-\d+(?:\.\d+)?", word))


def _unknown(tool: str, word: str) -> str:
    return (f"{word[:40]} is not an option run.sh passes to {tool} (only the options it "
            "allows, written out in full)")


def _shorts(optstring: str, allowed: str) -> dict[str, bool]:
    """The allowed letters of a getopt optstring, each with whether it takes a value."""
    out: dict[str, bool] = {}
    for m in re.finditer(r"([A-Za-z0-9?])(:{0,2})", optstring):
        if m.group(1) in allowed:
            out[m.group(1)] = m.group(2) == ":"
    return out


def _one_of(*names: str) -> Callable[[str], bool]:
    choices = frozenset(names)
    return lambda v: v in choices


# --- iproute2 -------------------------------------------------------------------------------


def _prefix_of(word: str, name: str) -> bool:
    """iproute2's matches(word, name): word is a non-empty prefix of name."""
    return bool(word) and name.startswith(word)


def resolve_iproute2(word: str, table: Sequence[str], exact: Collection[str] = ()) -> str | None:
    """The keyword `word` means to iproute2: the first in source order it is a prefix of
    (`exact` keywords only when equal)."""
    for name in table:
        if (word == name) if name in exact else _prefix_of(word, name):
            return name
    return None


def _iproute2_word(word: str, table: Sequence[str], allowed: Collection[str],
                   exact: Collection[str] = ()) -> str | None:
    """The allowed keyword `word` stands for, or None: it must resolve to an allowed one
    and begin no keyword that is not allowed (whatever the order of a later iproute2)."""
    name = resolve_iproute2(word, table, exact)
    if name is None or name not in allowed:
        return None
    for other in table:
        if other not in allowed and ((word == other) if other in exact else _prefix_of(word, other)):
            return None
    return name


# ip/ip.c main(): global options in the order they are tested (`-4` ... `-echo` exactly).
IP_OPTIONS = ("-loops", "-family", "-4", "-6", "-0", "-M", "-B", "-human", "-human-readable",
              "-iec", "-stats", "-statistics", "-details", "-resolve", "-oneline",
              "-timestamp", "-tshort", "-Version", "-force", "-batch", "-brief", "-json",
              "-pretty", "-rcvbuf", "-color", "-help", "-netns", "-Numeric", "-all", "-echo")
IP_EXACT = frozenset({"-4", "-6", "-0", "-M", "-B", "-echo"})
IP_OPTIONS_ALLOWED = frozenset({"-4", "-6", "-human", "-human-readable", "-iec", "-stats",
                                "-statistics", "-details", "-oneline", "-timestamp", "-tshort",
                                "-brief", "-json", "-pretty", "-Numeric"})
# ip/ip.c cmds[]
IP_OBJECTS = ("address", "addrlabel", "maddress", "route", "rule", "neighbor", "neighbour",
              "ntable", "ntbl", "link", "l2tp", "fou", "ila", "macsec", "tunnel", "tunl",
              "tuntap", "tap", "token", "tcpmetrics", "tcp_metrics", "monitor", "xfrm",
              "mroute", "mrule", "netns", "netconf", "vrf", "sr", "nexthop", "mptcp", "ioam",
              "help", "stats")
# all but `monitor` (it reads a saved file, and never ends), `vrf` (`exec` runs a program)
# and `help`; `netns` only with the verbs below
IP_OBJECTS_ALLOWED = frozenset(IP_OBJECTS) - {"monitor", "vrf", "help"}
# ip/iplink.c and ip/ipnetns.c: verbs in source order. The other objects' verbs have nothing
# that runs or reads a file; they are taken written out in full only.
IP_VERBS = {
    "link": ("add", "set", "change", "replace", "delete", "show", "lst", "list", "xstats",
             "afstats", "property", "help"),
    "netns": ("list", "show", "lst", "list-id", "help", "add", "set", "delete", "identify",
              "pids", "exec", "monitor", "attach"),
}
IP_VERBS_ALLOWED = {
    "link": frozenset({"add", "set", "change", "replace", "delete", "show", "lst", "list"}),
    "netns": frozenset({"list", "show", "lst", "add", "delete"}),
}
_FULL_VERBS = frozenset({"add", "del", "delete", "change", "replace", "show", "list", "get",
                         "flush", "append", "prepend", "set", "lst", "ls"})

# tc/tc.c main(): no `--`, no dash stripped.
TC_OPTIONS = ("-stats", "-statistics", "-details", "-raw", "-pretty", "-graph", "-Version",
              "-iec", "-help", "-force", "-batch", "-netns", "-Numeric", "-names", "-nm",
              "-cf", "-conf", "-color", "-timestamp", "-tshort", "-json", "-oneline", "-brief",
              "-echo")
TC_EXACT = frozenset({"-echo"})
TC_OPTIONS_ALLOWED = frozenset({"-stats", "-statistics", "-details", "-raw", "-pretty",
                                "-graph", "-iec", "-Numeric", "-timestamp", "-tshort", "-json",
                                "-oneline", "-brief"})
TC_OBJECTS = ("qdisc", "class", "filter", "chain", "actions", "monitor", "exec", "help")
TC_OBJECTS_ALLOWED = frozenset({"qdisc", "class", "filter", "chain", "actions"})
TC_VERBS = {
    "qdisc": ("add", "change", "replace", "link", "delete", "list", "show", "lst", "help"),
    "class": ("add", "change", "replace", "delete", "list", "show", "lst", "help"),
    "filter": ("add", "change", "replace", "delete", "get", "list", "show", "lst", "help"),
    "chain": ("add", "delete", "get", "list", "show", "lst", "help"),
    "actions": ("add", "change", "replace", "delete", "get", "list", "show", "lst", "flush",
                "help"),
}
# words after the verb that make tc talk to a program or read a file: a BPF object's maps
# exported to a socket, a monitor's saved file
_TC_LATER_DENIED = ("export", "import", "file", "graft", "run")


def _iproute2_refused(tool: str, word: str, table: Sequence[str], allowed: Collection[str],
                      exact: Collection[str] = (), what: str = "option") -> str:
    """Why an iproute2 word is refused, in the tool's own terms."""
    word = word.split("=", 1)[0]
    meant = resolve_iproute2(word, table, exact)
    if meant is None:
        return f"{word[:40]} is no {what} {tool} knows"
    if meant not in allowed:
        said = "" if meant == word else f"{word[:40]} is {tool}'s {meant}: "
        return f"{said}run.sh does not pass the {what} {tool} {meant}"
    other = next(o for o in table if o not in allowed and _prefix_of(word, o))
    return f"{word[:40]} also begins {tool}'s {other}, which run.sh does not pass: write it in full"


def _ip(argv: Sequence[str]) -> str:
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        word = argv[i]
        if word == "--":
            i += 1
            break
        opt = word[1:] if word.startswith("--") else word
        if "=" in opt or _iproute2_word(opt, IP_OPTIONS, IP_OPTIONS_ALLOWED, IP_EXACT) is None:
            return _iproute2_refused("ip", opt, IP_OPTIONS, IP_OPTIONS_ALLOWED, IP_EXACT)
        i += 1
    if i >= len(argv):
        return "ip without an object"
    obj = _iproute2_word(argv[i], IP_OBJECTS, IP_OBJECTS_ALLOWED)
    if obj is None:
        return _iproute2_refused("ip", argv[i], IP_OBJECTS, IP_OBJECTS_ALLOWED, what="object")
    rest = list(argv[i + 1:])
    if obj == "netns" and rest and "/" in rest[0]:
        return "a namespace name is a name"
    if rest:
        verb_word = rest[0]
        if obj in IP_VERBS:
            verb = _iproute2_word(verb_word, IP_VERBS[obj], IP_VERBS_ALLOWED[obj])
            if verb is None:
                return _iproute2_refused(f"ip {obj}", verb_word, IP_VERBS[obj], IP_VERBS_ALLOWED[obj],
                                         what="verb")
        elif verb_word not in _FULL_VERBS:
            return f"ip {obj} {verb_word[:40]} is not a verb run.sh passes (written in full)"
    return _later_words("ip", rest[1:], ())


def _tc(argv: Sequence[str]) -> str:
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        word = argv[i]
        if "=" in word or _iproute2_word(word, TC_OPTIONS, TC_OPTIONS_ALLOWED, TC_EXACT) is None:
            return _iproute2_refused("tc", word, TC_OPTIONS, TC_OPTIONS_ALLOWED, TC_EXACT)
        i += 1
    if i >= len(argv):
        return "tc without an object"
    obj = _iproute2_word(argv[i], TC_OBJECTS, TC_OBJECTS_ALLOWED)
    if obj is None:
        return _iproute2_refused("tc", argv[i], TC_OBJECTS, TC_OBJECTS_ALLOWED, what="object")
    rest = list(argv[i + 1:])
    if rest:
        verbs = TC_VERBS[obj]
        if _iproute2_word(rest[0], verbs, frozenset(verbs) - {"help"}) is None:
            return _iproute2_refused(f"tc {obj}", rest[0], verbs, frozenset(verbs) - {"help"},
                                     what="verb")
    return _later_words("tc", rest[1:], _TC_LATER_DENIED)


def _later_words(tool: str, words: Sequence[str], denied: Sequence[str]) -> str:
    for word in words:
        if not value_ok(word) and not _negative(word):
            return f"the word {word[:40]!r} is not a number or a name"
        if any(_prefix_of(word, d) and len(word) >= 2 for d in denied):
            return f"{word[:40]} would make {tool} talk to a program or read a file"
    return ""


# --- ethtool ------------------------------------------------------------------------------

# ethtool.c args[]: modes matched exactly; those that read or set a NIC's configuration.
ETHTOOL_MODES_ALLOWED = frozenset({
    "-s", "--change", "-a", "--show-pause", "-A", "--pause", "-c", "--show-coalesce",
    "-C", "--coalesce", "-g", "--show-ring", "-G", "--set-ring", "-k", "--show-features",
    "--show-offload", "-K", "--features", "--offload", "-i", "--driver", "-S",
    "--statistics", "--phy-statistics", "-n", "-u", "--show-nfc", "--show-ntuple", "-N",
    "-U", "--config-nfc", "--config-ntuple", "-T", "--show-time-stamping", "-x",
    "--show-rxfh-indir", "--show-rxfh", "-X", "--set-rxfh-indir", "--rxfh", "-P",
    "--show-permaddr", "-l", "--show-channels", "-L", "--set-channels", "--show-priv-flags",
    "--set-priv-flags", "--show-eee", "--set-eee", "--show-fec",
})
ETHTOOL_GLOBAL_ALLOWED = frozenset({"--json", "-j", "-I", "--include-statistics"})


def _ethtool(argv: Sequence[str]) -> str:
    i = 0
    while i < len(argv) and argv[i] in ETHTOOL_GLOBAL_ALLOWED:
        i += 1
    if i >= len(argv):
        return "ethtool without a device"
    if argv[i].startswith("-"):
        if argv[i] not in ETHTOOL_MODES_ALLOWED:
            return _unknown("ethtool", argv[i])
        i += 1
    for word in argv[i:]:
        if word.startswith("-") and not _negative(word):
            return f"ethtool takes one mode; {word[:40]} is another"
        if not value_ok(word):
            return f"the word {word[:40]!r} is not a number or a name"
    return ""


# --- sysctl -------------------------------------------------------------------------------

_SYSCTL_KEY = re.compile(r"[a-z][a-z0-9_-]{0,40}(?:[./][A-Za-z0-9_-]{1,64}){1,8}")
_SYSCTL_KERNEL = frozenset({"numa_balancing", "perf_event_paranoid", "nmi_watchdog",
                            "timer_migration", "watchdog", "sched_autogroup_enabled",
                            "sched_child_runs_first", "sched_rt_runtime_us", "sched_rt_period_us",
                            "sched_schedstats", "randomize_va_space"})
# the names the kernel ships: another name makes it run modprobe to find the module
_SYSCTL_NAMED = {
    "net.ipv4.tcp_congestion_control": frozenset({"reno", "cubic", "bbr", "dctcp", "htcp",
                                                  "bic", "vegas", "westwood", "illinois",
                                                  "highspeed", "hybla", "scalable", "yeah",
                                                  "lp", "veno", "nv", "cdg"}),
    "net.core.default_qdisc": frozenset({"pfifo_fast", "fq", "fq_codel", "sfq", "pfifo",
                                         "bfifo", "cake", "noqueue", "mq", "fq_pie", "pie",
                                         "codel", "red", "tbf", "prio"}),
}


def sysctl_key_ok(key: str) -> bool:
    """A key run.sh may read or set: net.*, vm.* and scheduler keys of kernel.*."""
    if not _SYSCTL_KEY.fullmatch(key):
        return False
    dotted = key.replace("/", ".")
    top, _, rest = dotted.partition(".")
    if top in ("net", "vm"):
        return True
    return top == "kernel" and (rest in _SYSCTL_KERNEL or rest.startswith("sched_"))


def _sysctl_setting(word: str) -> bool:
    key, eq, value = word.partition("=")
    if not sysctl_key_ok(key):
        return False
    if not eq:
        return True
    named = _SYSCTL_NAMED.get(key.replace("/", "."))
    if named is not None:
        return value in named
    return all(value_ok(v) for v in value.split()) if value.strip() else False


SYSCTL = Getopt(
    short=_shorts("bneNwfp::qoxaAXr:Vdh", "neNwqaAX"),
    long={"all": None, "ignore": None, "names": None, "values": None, "quiet": None,
          "write": None, "dry-run": None},
    values={}, positional=_sysctl_setting,
)


def _sysctl(argv: Sequence[str]) -> str:
    why, _ = _getopt(SYSCTL, "sysctl", argv)
    if why.startswith("sysctl takes no word"):
        return ("sysctl sets only net.*, vm.* and kernel.sched_* keys (never one that makes "
                "the kernel run a program) to numbers and names")
    return why


# --- the traffic and I/O tools -----------------------------------------------------------

# samples/pktgen/parameters.sh: getopts "s:i:d:m:p:f:t:c:n:b:w:vxh6ak"; -h is usage
PKTGEN = Getopt(short=_shorts("s:i:d:m:p:f:t:c:n:b:w:vxh6ak", "sidmpftcnbwvx6ak"), long={},
                values={})

# netperf netsh.c: GLOBAL_CMD_LINE_ARGS; -F reads fill files, -h prints usage
NETPERF_GLOBAL = "A:a:b:B:CcdD:f:F:H:hi:I:jk:K:l:L:n:NO:o:P:p:rSs:t:T:v:VW:w:y:Y:Z:46"
# nettest_omni.c: OMNI_ARGS, for the tests omni runs (netperf's default build)
NETPERF_OMNI = "aBb:cCd:De:fFgG:hH:i:Ij:kK:l:L:m:M:nNoOp:P:q:r:R:s:S:t:T:u:UVw:W:46"
NETPERF_OMNI_TESTS = frozenset({"TCP_STREAM", "TCP_MAERTS", "TCP_RR", "TCP_CRR", "UDP_STREAM",
                                "UDP_RR", "OMNI"})


def _digits_first(word: str) -> bool:
    return word[:1].isdigit() and value_ok(word)


def _selectors(word: str) -> bool:
    """An output selection: a list of names (a lone word could be a file to read)."""
    return not word.startswith("-") and bool(re.fullmatch(r"[A-Z0-9_]+(?:,[A-Z0-9_]+)+", word))


NETPERF = Getopt(
    short=_shorts(NETPERF_GLOBAL, "AabBCcdDfHiIjkKlLnNOoPprSstTvVWwyY46"),
    long={}, values={}, loose_value={"c": _digits_first, "C": _digits_first},
    ends_at_double_dash=False,
)
# omni's -k, -o and -O take the next word when it is no option: a list of output names, or
# else a file it reads; only a list is passed
NETPERF_TEST = Getopt(
    short=_shorts(NETPERF_OMNI, "aBbcCdDegGHiIjkKlLmMnNoOpPqrRsStTuUVwW46"),
    long={}, values={}, loose_value={"k": _selectors, "o": _selectors, "O": _selectors},
)


def _netperf(argv: Sequence[str], tool: str = "netperf") -> str:
    split = list(argv).index("--") if "--" in argv else len(argv)
    why, opts = _getopt(NETPERF, tool, argv[:split])
    if why:
        return why
    if split < len(argv):
        tests = [v.upper() for k, v in opts if k == "t"] or ["TCP_STREAM"]
        if tests[-1] not in NETPERF_OMNI_TESTS:
            return f"run.sh passes test options only to netperf's omni tests, not {tests[-1][:40]}"
        why, _ = _getopt(NETPERF_TEST, tool, argv[split + 1:])
    return why


def _super_netperf(argv: Sequence[str]) -> str:
    """`super_netperf N [netperf] ARGS`: N instances of netperf; no other program."""
    if not argv or not re.fullmatch(r"\d{1,6}", argv[0]):
        return "super_netperf's first word is the number of instances"
    rest = list(argv[1:])
    if rest and rest[0] == "netperf":
        rest = rest[1:]
    elif rest and not rest[0].startswith("-"):
        return f"super_netperf would run {rest[0][:40]}; run.sh runs only netperf through it"
    return _netperf(rest, "super_netperf")


# iperf3 iperf_api.c: the client's options (the peer runs the server); no --file, --logfile,
# --pidfile, --daemon, --server or key files
IPERF3 = Getopt(
    short=_shorts("p:f:i:D1VJvsc:ub:t:n:k:l:P:Rw:B:M:N46S:L:ZO:F:A:T:C:dI:mhX:",
                  "pfiVJcubtnklPRwBMN46SLZOATCdm"),
    long={"port": "required", "format": "required", "interval": "required", "verbose": None,
          "json": None, "json-stream": None, "client": "required", "udp": None,
          "bitrate": "required", "bandwidth": "required", "time": "required",
          "bytes": "required", "blockcount": "required", "length": "required",
          "parallel": "required", "reverse": None, "bidir": None, "window": "required",
          "bind": "required", "bind-dev": "required", "cport": "required",
          "set-mss": "required", "no-delay": None, "version4": None, "version6": None,
          "tos": "required", "dscp": "required", "flowlabel": "required", "zerocopy": None,
          "omit": "required", "repeating-payload": None, "timestamps": "optional",
          "affinity": "required", "title": "required", "congestion": "required",
          "linux-congestion": "required", "forceflush": None, "get-server-output": None,
          "udp-counters-64bit": None, "no-fq-socket-pacing": None, "dont-fragment": None,
          "skip-rx-copy": None, "fq-rate": "required", "pacing-timer": "required",
          "connect-timeout": "required", "rcv-timeout": "required",
          "snd-timeout": "required", "cntl-ka": "optional", "mptcp": None, "gsro": None,
          "debug": "optional"},
    values={},
)

# xdp-tools xdp-bench: a subcommand written in full, then its options (none writes a file)
XDP_BENCH_COMMANDS = frozenset({"drop", "pass", "tx", "redirect", "redirect-cpu",
                                "redirect-map", "redirect-multi", "xsk-drop", "xsk-tx"})
XDP_BENCH = Getopt(
    short={"v": False, "p": True, "l": True, "r": False, "i": True, "e": False,
           "m": True, "s": False, "c": True, "D": True, "q": True, "x": False, "X": False,
           "A": True, "f": True, "d": True, "b": True, "I": True, "u": False, "M": False,
           "Q": False, "a": False, "B": False, "F": False, "C": True, "w": True, "W": True,
           "U": True},
    long={"verbose": None, "packet-operation": "required", "program-mode": "required",
          "load-mode": "required", "rxq-stats": None, "interval": "required",
          "extended": None, "xdp-mode": "required", "mode": "required", "stats": None,
          "cpu": "required", "remote-action": "required", "redirect-device": "required",
          "qsize": "required", "stress-mode": None, "load-egress": None,
          "egress-action": "required", "queue": "required", "frame-size": "required",
          "duration": "required", "batch-size": "required", "irq-string": "required",
          "poll": None, "no-need-wakeup": None, "unaligned": None, "shared-umem": None,
          "extra-stats": None, "quiet": None, "app-stats": None, "busy-poll": None,
          "frags": None, "copy-mode": "required", "clock": "required", "policy": "required",
          "schpri": "required", "attach-mode": "required"},
    values={}, positional=value_ok,
)


def _xdp_bench(argv: Sequence[str]) -> str:
    if not argv or argv[0] not in XDP_BENCH_COMMANDS:
        return "xdp-bench's first word is one of its benchmarks, written in full"
    return _getopt(XDP_BENCH, "xdp-bench", argv[1:])[0]


# fio's t/io_uring: getopt "e:d:s:c:b:p:B:F:H:n:N:O:t:T:a:r:D:R:X:S:P:V:u:h?". Its targets
# are only read (O_RDONLY); -T writes ./tsc-rate, -H maps a file writable, -D and -h print usage
IO_URING = Getopt(short=_shorts("e:d:s:c:b:p:B:F:H:n:N:O:t:T:a:r:D:R:X:S:P:V:u:h?",
                                "edscbpBFnNOtarRXSPVu"),
                  long={}, values={}, positional=_read_path)

# fio: getopt_long_only over fio's own options, then every job option (options.c) and the
# ioengine's. Allowed: what sets up and reports a job; no output or log file, no exec_*,
# trigger, server or client, verify (its state file), cgroup, ioscheduler, mem=mmap:FILE.
_FIO_FLAGS = ("norandommap", "time_based", "stonewall", "wait_for_previous", "new_group",
              "thread", "group_reporting", "zero_buffers", "refill_buffers", "exitall",
              "exitall_on_error")
_FIO_BARE = ("minimal", "readonly")
_FIO_VALUED = (
    "name", "description", "filename", "directory", "rw", "readwrite", "rw_sequencer",
    "ioengine", "iodepth", "iodepth_batch", "iodepth_batch_submit",
    "iodepth_batch_complete", "iodepth_batch_complete_min", "iodepth_batch_complete_max",
    "iodepth_low", "io_submit_mode", "size", "io_size", "io_limit", "filesize", "offset",
    "offset_increment", "number_ios", "bs", "blocksize", "ba", "blockalign", "bsrange",
    "blocksize_range", "bssplit", "bs_is_seq_rand", "randrepeat", "allrandrepeat", "randseed",
    "random_generator", "random_distribution", "percentage_random", "nrfiles", "nr_files",
    "openfiles", "file_service_type", "fallocate", "fadvise_hint", "fsync", "fdatasync",
    "sync_file_range", "direct", "atomic", "buffered", "overwrite", "loops", "numjobs",
    "startdelay", "runtime", "timeout", "ramp_time", "clocksource", "iomem_align",
    "mem_align", "rwmixread", "rwmixwrite", "nice", "prio", "prioclass", "thinktime",
    "thinktime_spin", "thinktime_blocks", "rate", "rate_min", "rate_iops", "rate_iops_min",
    "rate_process", "latency_target", "latency_window", "latency_percentile", "invalidate",
    "sync", "pre_read", "cpumask", "cpus_allowed", "cpus_allowed_policy", "numa_cpu_nodes",
    "numa_mem_policy", "end_fsync", "fsync_on_close", "log_avg_msec", "stats",
    "scramble_buffers", "buffer_pattern", "buffer_compress_percentage",
    "buffer_compress_chunk", "dedupe_percentage", "clat_percentiles", "lat_percentiles",
    "slat_percentiles", "percentile_list", "significant_figures", "disk_util", "gtod_reduce",
    "disable_lat", "disable_clat", "disable_slat", "disable_bw_measurement", "disable_bw",
    "gtod_cpu", "unified_rw_reporting", "continue_on_error", "ignore_error", "kb_base",
    "unit_base", "output-format", "eta", "eta-newline", "status-interval",
    "mem", "iomem",
    # engine options (fio adds them once --ioengine names the engine)
    "hipri", "fixedbufs", "registerfiles", "sqthread_poll", "sqthread_poll_cpu",
    "nonvectored", "uncached", "nowait", "force_async", "cmd_type", "userspace_reap",
    "cmdprio_percentage", "cmdprio_class", "cmdprio", "hipri_percentage",
)
FIO_ENGINES = frozenset({"sync", "psync", "vsync", "pvsync", "pvsync2", "libaio", "io_uring",
                         "io_uring_cmd", "posixaio", "mmap", "splice", "null", "sg"})
_FIO_READS = frozenset({"read", "randread"})
FIO = Getopt(
    short={},
    long={**{n: "required" for n in _FIO_VALUED}, **{n: "optional" for n in _FIO_FLAGS},
          **{n: None for n in _FIO_BARE}},
    values={"ioengine": lambda v: v in FIO_ENGINES,
            "name": lambda v: bool(re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", v)) and ".." not in v,
            "mem": _one_of("malloc", "shm", "shmhuge", "mmap", "mmaphuge", "mmapshared"),
            "iomem": _one_of("malloc", "shm", "shmhuge", "mmap", "mmaphuge", "mmapshared"),
            "filename": lambda v: all(_DEVICE_PATH.fullmatch(p) or _read_path(p)
                                      for p in v.split(":")),
            "directory": _read_path,
            "output-format": _one_of("normal", "terse", "json", "json+", "minimal")},
    long_only=True,
)


def _fio(argv: Sequence[str]) -> str:
    for word in argv:
        if re.fullmatch(r"-[A-Za-z0-9]", word):
            return f"{word} is one of fio's own short options; run.sh passes none"
        if word == "--":
            return "fio takes job files after `--`; run.sh passes none"
    return _getopt(FIO, "fio", argv)[0]


@dataclass(frozen=True, slots=True)
class FioTargets:
    """A fio command as run.sh runs it: the words, and the targets the mail named for jobs
    that write, which run.sh moved into its output folder."""

    words: tuple[str, ...]
    moved: str = ""


def fio_targets(argv: Sequence[str], words: Sequence[str], out_file: str,
                out_dir: str) -> FioTargets:
    """A checked fio command (check() gave "" for `argv`; `words` is the same command as
    the script writes it, word for word) with its files where run.sh may write them. When
    every job only reads (rw= read or randread, fio's default) it keeps its targets and gets
    `--readonly`, so fio writes nothing, not even to lay out a missing file. Otherwise each
    --filename becomes `out_file` and each --directory `out_dir`, and a command naming
    neither gets `out_dir` (fio would write in the current folder)."""
    _, opts = _getopt(FIO, "fio", argv)
    modes = [v.split(":", 1)[0] for k, v in opts if k in ("rw", "readwrite")]
    if all(m in _FIO_READS for m in modes):
        has = any(k == "readonly" for k, _ in opts)
        return FioTargets(tuple(words) if has else (*words, "--readonly"))
    out: list[str] = []
    moved: list[str] = []
    k = 0
    while k < len(argv):
        name, eq, value = argv[k].lstrip("-").partition("=")
        if argv[k].startswith("-") and name in ("filename", "directory"):
            if not eq and k + 1 < len(argv):
                k += 1
                value = argv[k]
            moved.append(value)
            out.append(f'"--{name}={out_file if name == "filename" else out_dir}"')
        else:
            out.append(words[k])
        k += 1
    if not moved:
        out.append(f'"--directory={out_dir}"')
    return FioTargets(tuple(out), ", ".join(dict.fromkeys(moved)))


# --- the list ---------------------------------------------------------------------------

_CHECKS: dict[str, Callable[[Sequence[str]], str]] = {
    "ip": _ip,
    "tc": _tc,
    "ethtool": _ethtool,
    "sysctl": _sysctl,
    "pktgen": lambda argv: _getopt(PKTGEN, "the pktgen script", argv)[0],
    "netperf": _netperf,
    "super_netperf": _super_netperf,
    "iperf3": lambda argv: _getopt(IPERF3, "iperf3", argv)[0],
    "xdp-bench": _xdp_bench,
    "fio": _fio,
    "io_uring": lambda argv: _getopt(IO_URING, "t/io_uring", argv)[0],
}


def check(tool: str, argv: Sequence[str]) -> str:
    """Why run.sh may not pass `argv` (the words after the program) to `tool`; "" when it
    may. An unknown tool runs nothing."""
    reader = _CHECKS.get(tool)
    if reader is None:
        return f"{tool[:40]} is not a tool run.sh runs"
    return reader(argv)
