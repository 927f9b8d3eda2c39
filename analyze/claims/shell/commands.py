"""Shell commands written in mail, recognised and tokenised (shlex, never a shell).

Commands in mail are data: they are read here so that a table's `$c` column or a list of nine
numbers can be named after what the loop varied (analyze/claims/shell/conditions.py). Seed 001 writes
`# for c in 1 2 4; do` / `> ./pktgen_bench_xmit_mode_queue_xmit.sh -v -s 64 -t $c ...` /
`> done`; seed 004 writes `for i in {35,50,...,155};` / `do super_netperf $i netperf -H $ip -t
TCP_RR;` / `done`. One pass over the lines keeps open loops and `\\` continuations.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

from .loops import MAX_VALUES, VARIABLE, Loop, argv_plain, parse_for

MAX_LINE = 4096  # longer lines are not commands (a pasted blob, or hostile input)
MAX_STATEMENT = 16384  # characters of one statement joined over `\` continuations
MAX_CONTINUATIONS = 64
MAX_BODY_LINES = 64  # a loop without `done` stops collecting its body after this many lines
MAX_GAP = 3  # blank lines tolerated inside an open loop
MAX_ASSIGNMENTS = 256
MAX_COMMANDS = 10_000  # per call: beyond this the text is not a mail's test procedure
MAX_TOTAL_VALUES = 100_000  # loop values per call, all loops together
SHLEX_BUDGET = 1_000_000  # characters shlex may read per call; the rest is split on spaces


@dataclass(frozen=True, slots=True)
class Command:
    """One simple command as written: `./pktgen_bench_xmit_mode_queue_xmit.sh -t $c ...`."""

    line: int  # index of the line the command starts on
    text: str  # the command, prompt and `\` continuations removed
    argv: tuple[str, ...]  # shlex tokens (whitespace split when the quoting is unbalanced)
    tool: str = ""  # the program: `pktgen`, `neper`, `iperf3`, `tc`, ... (`$TC` resolved)
    last: int = -1  # index of the line the command ends on


@dataclass(frozen=True, slots=True)
class Shell:
    """Every command and loop of a block of lines."""

    commands: tuple[Command, ...]
    loops: tuple[Loop, ...]
    # `NAME=value` lines, as the last one left them (`TC=tc` above seed 000's `$TC qdisc ...`)
    assignments: tuple[tuple[str, str], ...] = ()


def find_commands(lines: Sequence[str]) -> list[Command]:
    """The shell commands written in `lines`, prompted or recognisable by their program."""
    return list(read_shell(lines).commands)


def find_loops(lines: Sequence[str]) -> list[Loop]:
    """The `for` loops written in `lines`, with their values expanded (bounded)."""
    return list(read_shell(lines).loops)


def read_shell(lines: Sequence[str]) -> Shell:
    """Commands and loops of `lines` in one pass (what find_commands and find_loops return)."""
    return _Scanner(lines).run()


# --- recognising command lines ------------------------------------------------------------

# `# `, `$ `, `~# `, `root@host:~# `, `[root@host ~]# `, `dut:~$ `, `host# `.
_PROMPT = re.compile(
    r"(?:\[[^\]\n]{1,80}\]\s?"
    r"|[\w.-]{1,64}@[\w.-]{1,64}(?::[^\s#$]{0,120})?\s?"
    r"|[\w.-]{1,64}:[~/][^\s#$]{0,120}\s?"
    r"|~\s?"
    r"|[\w.-]{1,32})?"
    r"[#$]\s+"
)
OPTION = re.compile(r"--?[A-Za-z][\w-]*(?:=.*)?")
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w{0,63}=")
_PKTGEN = re.compile(r"pktgen[\w.-]*\.sh")
_FOR = re.compile(r"for\s+(?:[A-Za-z_]\w*\s+in\b|\(\()")
_NEPER = frozenset({"tcp_rr", "tcp_crr", "tcp_stream", "udp_rr", "udp_stream", "psp_stream"})
_ALIASES = {"iperf": "iperf3", "wrk2": "wrk", "xdp_bench": "xdp-bench"}
TOOLS = frozenset(
    {
        "pktgen", "super_netperf", "netperf", "netserver", "iperf3", "wrk", "neper", "sockperf",
        "xdp-bench", "xdpsock", "xdp-trafficgen", "trafgen", "mausezahn", "taskset", "numactl",
        "ethtool", "tc", "ip", "perf", "sysctl", "bpftool", "devlink", "modprobe", "ping",
        "nstat", "mpstat", "sar", "ss", "uperf", "qperf", "memtier_benchmark", "fio",
        "redis-benchmark", "stress-ng", "hping3", "udpgso_bench_tx", "udpgso_bench_rx",
    }
)  # fmt: skip
# Without a prompt `ip`, `tc`, `perf` are English-looking words; their subcommand tells.
_SUBCOMMANDS = {
    "ip": frozenset({"link", "addr", "address", "a", "l", "r", "route", "rule", "neigh", "netns",
                     "tuntap", "maddr", "monitor", "xfrm", "mptcp", "nexthop", "-s", "-d", "-n",
                     "-j", "-4", "-6", "-br"}),
    "tc": frozenset({"qdisc", "filter", "class", "action", "actions", "chain", "monitor", "exec",
                     "-s", "-d", "-j"}),
    "perf": frozenset({"stat", "record", "top", "report", "bench", "trace", "script", "sched",
                       "lock", "annotate", "c2c", "mem", "probe"}),
    "bpftool": frozenset({"prog", "map", "net", "link", "btf", "feature", "cgroup", "perf",
                          "struct_ops"}),
    "devlink": frozenset({"dev", "port", "sb", "resource", "health", "trap"}),
}  # fmt: skip
# A line that may be an unprompted command starts like one (checked fully by _tool_like).
_CANDIDATE = re.compile(
    r"(?:(?:sudo|time|env|nohup)\s+)*(?:[A-Za-z_]\w*=\S*\s+)*"
    r"(?:\.{0,2}/|~/|\$|\S*pktgen|(?:for|while|until|"
    + "|".join(re.escape(t) for t in sorted(TOOLS, key=len, reverse=True))
    + r")(?:\s|$))"
)
_WRAPPERS = frozenset({"sudo", "env", "time", "nohup", "exec", "command"})
_KEYWORDS = frozenset({"do", "done", "then", "else", "elif", "fi", "if", "for", "while",
                       "until", "case", "esac", "{", "}", "echo", "sleep", "cat", "cd",
                       "export", "wait", "kill", "printf", "mount", "insmod", "rmmod"})  # fmt: skip
_PROGRAM = re.compile(r"[a-z][\w.+-]{0,63}")
_VERBS = frozenset({"add", "del", "delete", "change", "replace", "show", "list", "ls", "get",
                    "set", "flush", "save", "restore", "exec", "monitor", "help", "append",
                    "prepend", "link", "dev"})  # fmt: skip
# Words that end a command written inside a sentence: "iperf3 -P 16 between two hosts, TCP".
_PROSE_WORDS = frozenset({"the", "is", "are", "was", "were", "shows", "gives", "give", "between",
                          "and", "we", "it", "this", "that", "which", "has", "have", "with", "vs",
                          "versus", "results", "numbers", "gets", "got", "reaches", "reports",
                          "yields", "before", "after"})  # fmt: skip
_PATHISH = re.compile(r"(?:\.{1,2}/|~/|/)\S+|\$\{?\w+\}?\S*")


def program_family(token: str) -> str:
    """The program family of a token: `./samples/pktgen/pktgen_sample01.sh` is `pktgen`."""
    base = token.rsplit("/", 1)[-1]
    if _PKTGEN.fullmatch(base):
        return "pktgen"
    if base in _NEPER:
        return "neper"
    return _ALIASES.get(base, base)


def program_index(tokens: Sequence[str]) -> int:
    """Index of the program after `sudo`, `time`, `env` and `VAR=value` prefixes."""
    i = 0
    while i < len(tokens) and (tokens[i] in _WRAPPERS or _ASSIGNMENT.match(tokens[i])):
        i += 1
    return i


def _resolve(token: str, assigns: dict[str, str]) -> str:
    m = VARIABLE.fullmatch(token)
    if m and m.group(1) in assigns:
        return assigns[m.group(1)]
    return token


def _looks_like_prose(s: str, tokens: Sequence[str]) -> bool:
    words = tokens[:5]
    return s[-1:] in ".?!" or (len(words) >= 5 and all(w.isalpha() for w in words))


# --- splitting statements -----------------------------------------------------------------

# A run of words and quoted strings, consumed by the regex engine (possessive, so no
# backtracking); only the operator after it reaches Python. An unbalanced quote is a literal
# character (`echo "it's`).
_RUN = re.compile(
    r"""(?:[^;&|()#'"`\\]++|'[^']*+'|"(?:[^"\\]++|\\.)*+"|`[^`]*+`|\\.|['"`\\]|(?<=\S)#)*+""",
    re.S,
)


def _split(text: str) -> list[tuple[int, str]]:
    """Split at unquoted `;`, `&&`, `||`, `|`, `&`; drop a trailing `# comment`."""
    out: list[tuple[int, str]] = []
    start = 0
    depth = 0
    end = n = len(text)
    pos = 0
    while True:
        m = _RUN.match(text, pos)
        p = m.end() if m else pos
        if p >= n:
            break
        op = text[p]
        pos = p + 1
        if op == "(":
            depth += 1
        elif op == ")":
            depth = max(0, depth - 1)
        elif op == "#":  # at a word start: a comment
            end = p
            break
        elif depth == 0:
            if op == "&" and (text[p - 1 : p] in ("<", ">") or text[p + 1 : p + 2] == ">"):
                continue  # `2>&1`, `&>log` are redirections
            if text[p + 1 : p + 2] == op:
                pos += 1  # `&&`, `||`, `;;`
            out.append((start, text[start:p]))
            start = pos
    out.append((start, text[start:end]))
    return [(off, seg) for off, seg in out if seg.strip()]


# --- the scanner --------------------------------------------------------------------------


@dataclass
class _Frame:
    kind: str  # for | while
    line: int
    variable: str = ""
    values: tuple[str, ...] = ()
    body: list[str] = field(default_factory=list)
    last: int = -1


class _Scanner:
    """Walks the lines once, keeping open loops and `\\` continuations across lines."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self.commands: list[Command] = []
        self.loops: list[Loop] = []
        self.frames: list[_Frame] = []
        self.assigns: dict[str, str] = {}
        self.prompted = False  # the open block began at a prompt, so `> ` (PS2) continues it
        self.last_shell = -1
        self.shlex_budget = SHLEX_BUDGET
        self.values_budget = MAX_TOTAL_VALUES

    def run(self) -> Shell:
        i = 0
        while i < len(self.lines) and len(self.commands) < MAX_COMMANDS:
            i = self._line(i)
        self._abandon()
        self.loops.sort(key=lambda loop: loop.line)
        return Shell(tuple(self.commands), tuple(self.loops), tuple(self.assigns.items()))

    def _line(self, i: int) -> int:
        raw = self.lines[i]
        if not isinstance(raw, str) or len(raw) > MAX_LINE:
            self._abandon()
            return i + 1
        text = self._shell_text(i, raw.strip())
        if text is None:
            return i + 1
        pieces = [(i, text)]
        j = i
        while pieces[-1][1].endswith("\\") and len(pieces) < MAX_CONTINUATIONS:
            pieces[-1] = (pieces[-1][0], pieces[-1][1][:-1].rstrip())
            if j + 1 >= len(self.lines) or len(self.lines[j + 1]) > MAX_LINE:
                break
            j += 1
            nxt = self.lines[j].strip()
            if self.prompted and nxt.startswith(">"):
                nxt = nxt[1:].strip()
            pieces.append((j, nxt))
        if pieces[-1][1].endswith("\\"):
            pieces[-1] = (pieces[-1][0], pieces[-1][1][:-1].rstrip())
        self.last_shell = j
        self._statement(pieces)
        return j + 1

    def _shell_text(self, i: int, s: str) -> str | None:
        """The command on line i without its prompt, or None when the line is not shell."""
        if self.frames and (
            i - self.last_shell > MAX_GAP + 1 or i - self.frames[0].line > MAX_BODY_LINES
        ):
            self._abandon()
        if not s:
            return None
        head = s[:200]
        m = _PROMPT.match(s) if "#" in head or "$" in head else None
        if m:
            rest = s[m.end() :].strip()
            if rest and self._after_prompt(rest):
                if not self.frames:
                    self.prompted = True
                return rest
        if self.frames:
            if self.prompted and s.startswith(">"):
                return s[1:].strip() or None
            if self._body_like(s):
                return s
            self._abandon()
        if "=" in head and _ASSIGNMENT.match(s) and len(s) < 512:
            self._assign(argv_plain(s))  # `TC=tc` above seed 000's `$TC qdisc add ...`
            return None
        if not _CANDIDATE.match(s):
            return None  # most lines of a mail stop here
        s = _cut_prose(s)
        if s and self._tool_like(s, i):
            self.prompted = False
            return s
        return None

    def _after_prompt(self, rest: str) -> bool:
        tokens = rest.split(None, 8)
        first = tokens[program_index(tokens)] if program_index(tokens) < len(tokens) else ""
        prog = program_family(_resolve(first, self.assigns))
        if first in _KEYWORDS or prog in TOOLS or prog == "pktgen":
            return True
        if _ASSIGNMENT.match(tokens[0]) or _PATHISH.fullmatch(first):
            return True
        # `# uname -a` is a root prompt; `# Setup the device` and `# 1) ...` are comments.
        return bool(_PROGRAM.fullmatch(first)) and any(OPTION.fullmatch(t) for t in tokens[1:])

    def _body_like(self, s: str) -> bool:
        """Whether a line inside an open loop is part of it (`do ...`, `done`, a command)."""
        tokens = s.split(None, 8)
        first = tokens[0]
        if first in _KEYWORDS or first.startswith(("do;", "done;")):
            return True
        if self._tool_like(s, -1) or _PATHISH.fullmatch(first) or _ASSIGNMENT.match(first):
            return True
        # a lone word (`one`, a list item) is not a command
        return (
            len(tokens) > 1 and bool(_PROGRAM.fullmatch(first)) and not _looks_like_prose(s, tokens)
        )

    def _tool_like(self, s: str, i: int) -> bool:
        """An unprompted line that is a command: a known tool with options, or a loop."""
        tokens = s.split(None, 8)
        k = program_index(tokens)
        if k >= len(tokens):
            return False
        first = tokens[k]
        if first in ("for", "while", "until"):
            if first == "for" and not _FOR.match(s[s.find("for") :]):
                return False
            return self._loop_header_with_do(tokens, i)
        if first.startswith("./") and len(first) > 2:
            return True
        prog = program_family(_resolve(first, self.assigns))
        rest = tokens[k + 1 :]
        if prog == "pktgen":
            return True
        if prog not in TOOLS or not rest:
            return False
        if prog in ("tc", "ip") and rest[0] in _SUBCOMMANDS[prog] and not rest[0].startswith("-"):
            # `tc filter add ...`, not "tc filter path (cls_bpf, 8 threads ...)" in prose
            return len(rest) > 1 and (rest[1] in _VERBS or bool(OPTION.fullmatch(rest[1])))
        if prog in _SUBCOMMANDS:
            return rest[0] in _SUBCOMMANDS[prog] or bool(OPTION.fullmatch(rest[0]))
        if prog == "super_netperf":
            return bool(re.fullmatch(r"\d{1,6}|\$\{?\w+\}?", rest[0]))
        if prog == "sysctl" and "=" in rest[0]:
            return True
        return any(OPTION.fullmatch(t) for t in rest[:4])

    def _loop_header_with_do(self, tokens: Sequence[str], i: int) -> bool:
        if any(t in ("do", ";do", "do;") or t.endswith(";do") for t in tokens):
            return True
        if "do" in " ".join(tokens).replace(";", " ").split():
            return True
        if i < 0 or i + 1 >= len(self.lines):
            return False
        nxt = self.lines[i + 1].lstrip(" \t>")
        return nxt[:2] == "do" and nxt[2:3] in ("", " ", "\t", ";")

    # --- statements -----------------------------------------------------------------------

    def _statement(self, pieces: list[tuple[int, str]]) -> None:
        text = ""
        starts: list[tuple[int, int]] = []  # (offset in text, line index)
        for line, piece in pieces:
            if len(text) + len(piece) > MAX_STATEMENT:
                break
            if text:
                text += " "
            starts.append((len(text), line))
            text += piece

        def line_at(offset: int) -> int:
            found = starts[0][1]
            for off, line in starts:
                if off > offset:
                    break
                found = line
            return found

        for off, seg in _split(text):
            self._segment(seg, line_at(off), line_at(off + max(0, len(seg.rstrip()) - 1)))
        for frame in self.frames:
            frame.last = max(frame.last, pieces[-1][0])

    def _segment(self, seg: str, line: int, last: int) -> None:
        s = seg.strip()
        while True:
            head, _, tail = s.partition(" ")
            if head not in ("do", "then", "else", "{", "!", "(", "time"):
                break
            s = tail.strip()
        if not s:
            return
        head = s.split(None, 1)[0]
        if head in ("done", "done)"):
            self._close(last)
            return
        if head in ("fi", "esac", "}", ")", "}>"):
            return
        if head == "for":
            self._open_for(s, line)
            return
        if head in ("while", "until"):
            self.frames.append(_Frame("while", line, last=line))
            return
        if head in ("if", "elif"):
            s = s[len(head) :].strip()
        argv = self._argv(s)
        if not argv or len(self.commands) >= MAX_COMMANDS:
            return
        if argv[0] == "export" or all(_ASSIGNMENT.match(t) for t in argv):
            self._assign(argv)
            return
        k = program_index(argv)
        tool = program_family(_resolve(argv[k], self.assigns)) if k < len(argv) else ""
        self.commands.append(Command(line, s, argv, tool, last))
        for frame in self.frames:
            frame.body.append(s)

    def _argv(self, s: str) -> tuple[str, ...]:
        if not any(c in s for c in "'\"\\") or self.shlex_budget < len(s):
            return tuple(s.split())
        self.shlex_budget -= len(s)
        try:
            return tuple(shlex.split(s, posix=True))
        except ValueError:  # unbalanced quotes: `echo "it's`
            return tuple(s.split())

    def _assign(self, argv: Sequence[str]) -> None:
        for token in argv:
            name, eq, value = token.partition("=")
            room = len(self.assigns) < MAX_ASSIGNMENTS or name in self.assigns
            if eq and room and re.fullmatch(r"[A-Za-z_]\w{0,63}", name):
                self.assigns[name] = value.strip("'\"")[:MAX_LINE]

    def _open_for(self, s: str, line: int) -> None:
        room = min(MAX_VALUES, self.values_budget)
        parsed = parse_for(s, self.assigns, room) if room > 0 else None
        if parsed is None:
            self.frames.append(_Frame("while", line, last=line))  # `for x; do` walks "$@"
            return
        variable, values = parsed
        self.values_budget -= len(values)
        self.frames.append(_Frame("for", line, variable, values, last=line))

    def _close(self, last: int) -> None:
        if not self.frames:
            return
        frame = self.frames.pop()
        frame.last = last
        self._emit(frame)

    def _abandon(self) -> None:
        """Close loops whose `done` never came (the mail elided it, or it was not a loop)."""
        while self.frames:
            self._emit(self.frames.pop())
        self.prompted = False

    def _emit(self, frame: _Frame) -> None:
        if frame.kind == "for":
            body = tuple(frame.body)
            self.loops.append(Loop(frame.variable, frame.values, frame.line, body, frame.last))


def _cut_prose(s: str) -> str:
    """An unprompted line up to where prose takes over: a `, ` or a sentence word.

    Seen in cover letters: "netperf -H 192.0.2.20 -t TCP_STREAM -l 60 -- -m 16384, before:".
    Quoted text is not looked into (`echo "a, b"` stays whole).
    """
    if "'" in s or '"' in s:
        return s
    cut = s.find(", ")
    if cut >= 0:
        s = s[:cut]
    words = s.split(" ")
    for k, word in enumerate(words[1:], 1):
        if word.lower() in _PROSE_WORDS:
            s = " ".join(words[:k])
            break
    return s.rstrip(" .,")
