"""Shell commands and loops written in mail, and what their variables mean.

Commands in mail are data: they are tokenised here (shlex, never a shell) so that a table's
`$c` column or a list of nine numbers can be named after what the loop varied. Seed 001 writes
`# for c in 1 2 4; do` / `> ./pktgen_bench_xmit_mode_queue_xmit.sh -v -s 64 -t $c ...` /
`> done`, so `$c` is the pktgen thread count; seed 004 writes `for i in {35,50,...,155};` /
`do super_netperf $i netperf -H $ip -t TCP_RR;` / `done`, so `i` counts netperf instances.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

MAX_LINE = 4096  # longer lines are not commands (a pasted blob, or hostile input)
MAX_STATEMENT = 16384  # characters of one statement joined over `\` continuations
MAX_CONTINUATIONS = 64
MAX_VALUES = 10_000  # values one loop may expand to (`{1..1000000}` stops here)
MAX_BODY_LINES = 64  # a loop without `done` stops collecting its body after this many lines
MAX_GAP = 3  # blank lines tolerated inside an open loop
MAX_ASSIGNMENTS = 256
MAX_COMMANDS = 10_000  # per call: beyond this the text is not a mail's test procedure
MAX_TOTAL_VALUES = 100_000  # loop values per call, all loops together
SHLEX_BUDGET = 1_000_000  # characters shlex may read per call; the rest is split on spaces


@dataclass(frozen=True)
class Command:
    """One simple command as written: `./pktgen_bench_xmit_mode_queue_xmit.sh -t $c ...`."""

    line: int  # index of the line the command starts on
    text: str  # the command, prompt and `\` continuations removed
    argv: tuple[str, ...]  # shlex tokens (whitespace split when the quoting is unbalanced)
    tool: str = ""  # the program: `pktgen`, `neper`, `iperf3`, `tc`, ... (`$TC` resolved)
    last: int = -1  # index of the line the command ends on


@dataclass(frozen=True)
class Loop:
    """A shell `for` loop: `for c in 1 2 4; do ... done`."""

    variable: str
    values: tuple[str, ...]  # expanded: `{1..4}` and `$(seq 1 4)` give ("1", "2", "3", "4")
    line: int  # index of the `for` line
    body: tuple[str, ...] = ()  # the commands inside, nested loops' commands included
    last: int = -1  # index of the `done` line (the last body line when `done` is missing)


@dataclass(frozen=True)
class Shell:
    """Every command and loop of a block of lines."""

    commands: tuple[Command, ...]
    loops: tuple[Loop, ...]


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
_OPTION = re.compile(r"--?[A-Za-z][\w-]*(?:=.*)?")
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w{0,63}=")
_VARIABLE = re.compile(r"\$\{?([A-Za-z_]\w{0,63})\}?")
_PKTGEN = re.compile(r"pktgen[\w.-]*\.sh")
_FOR = re.compile(r"for\s+(?:[A-Za-z_]\w*\s+in\b|\(\()")
_NEPER = frozenset({"tcp_rr", "tcp_crr", "tcp_stream", "udp_rr", "udp_stream", "psp_stream"})
_ALIASES = {"iperf": "iperf3", "wrk2": "wrk", "xdp_bench": "xdp-bench"}
_TOOLS = frozenset(
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
    + "|".join(re.escape(t) for t in sorted(_TOOLS, key=len, reverse=True))
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


def _canonical(token: str) -> str:
    """The program family of a token: `./samples/pktgen/pktgen_sample01.sh` is `pktgen`."""
    base = token.rsplit("/", 1)[-1]
    if _PKTGEN.fullmatch(base):
        return "pktgen"
    if base in _NEPER:
        return "neper"
    return _ALIASES.get(base, base)


def _program_index(tokens: Sequence[str]) -> int:
    """Index of the program after `sudo`, `time`, `env` and `VAR=value` prefixes."""
    i = 0
    while i < len(tokens) and (tokens[i] in _WRAPPERS or _ASSIGNMENT.match(tokens[i])):
        i += 1
    return i


def _resolve(token: str, assigns: dict[str, str]) -> str:
    m = _VARIABLE.fullmatch(token)
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
        return Shell(tuple(self.commands), tuple(self.loops))

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
            self._assign(_argv_plain(s))  # `TC=tc` above seed 000's `$TC qdisc add ...`
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
        first = tokens[_program_index(tokens)] if _program_index(tokens) < len(tokens) else ""
        prog = _canonical(_resolve(first, self.assigns))
        if first in _KEYWORDS or prog in _TOOLS or prog == "pktgen":
            return True
        if _ASSIGNMENT.match(tokens[0]) or _PATHISH.fullmatch(first):
            return True
        # `# uname -a` is a root prompt; `# Setup the device` and `# 1) ...` are comments.
        return bool(_PROGRAM.fullmatch(first)) and any(_OPTION.fullmatch(t) for t in tokens[1:])

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
        k = _program_index(tokens)
        if k >= len(tokens):
            return False
        first = tokens[k]
        if first in ("for", "while", "until"):
            if first == "for" and not _FOR.match(s[s.find("for") :]):
                return False
            return self._loop_header_with_do(tokens, i)
        if first.startswith("./") and len(first) > 2:
            return True
        prog = _canonical(_resolve(first, self.assigns))
        rest = tokens[k + 1 :]
        if prog == "pktgen":
            return True
        if prog not in _TOOLS or not rest:
            return False
        if prog in ("tc", "ip") and rest[0] in _SUBCOMMANDS[prog] and not rest[0].startswith("-"):
            # `tc filter add ...`, not "tc filter path (cls_bpf, 8 threads ...)" in prose
            return len(rest) > 1 and (rest[1] in _VERBS or bool(_OPTION.fullmatch(rest[1])))
        if prog in _SUBCOMMANDS:
            return rest[0] in _SUBCOMMANDS[prog] or bool(_OPTION.fullmatch(rest[0]))
        if prog == "super_netperf":
            return bool(re.fullmatch(r"\d{1,6}|\$\{?\w+\}?", rest[0]))
        if prog == "sysctl" and "=" in rest[0]:
            return True
        return any(_OPTION.fullmatch(t) for t in rest[:4])

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
        k = _program_index(argv)
        tool = _canonical(_resolve(argv[k], self.assigns)) if k < len(argv) else ""
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
        parsed = _parse_for(s, self.assigns, room) if room > 0 else None
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


def _argv_plain(s: str) -> tuple[str, ...]:
    if not any(c in s for c in "'\"\\"):
        return tuple(s.split())
    try:
        return tuple(shlex.split(s, posix=True))
    except ValueError:
        return tuple(s.split())


# --- loop values --------------------------------------------------------------------------

_FOR_IN = re.compile(r"for\s+([A-Za-z_]\w{0,63})\s+in\b(.*)", re.S)
_FOR_C = re.compile(
    r"for\s*\(\(\s*(\w+)\s*=\s*(-?\d{1,18})\s*;\s*\1\s*(<=|<|>=|>)\s*(-?\d{1,18})\s*;\s*"
    r"(?:(\1\s*\+\+|\+\+\s*\1)|(\1\s*--|--\s*\1)|\1\s*([+*-])=\s*(\d{1,18}))\s*\)\)"
)
_SEQ = re.compile(r"\$\(\s*seq\s+([^()]{0,200})\)|`\s*seq\s+([^`]{0,200})`")
_INT = re.compile(r"-?\d{1,18}")


def _parse_for(
    s: str, assigns: dict[str, str], room: int = MAX_VALUES
) -> tuple[str, tuple[str, ...]] | None:
    m = _FOR_C.match(s)
    if m:
        return m.group(1), _c_style(m, room)
    m = _FOR_IN.match(s)
    if not m:
        return None
    words = m.group(2).strip()
    if words.endswith(" do") or words == "do":
        words = words[:-2].strip()  # `for i in 1 2 4 do` (a missing `;`)
    values: list[str] = []
    pos = 0
    for sm in _SEQ.finditer(words):
        _expand_words(words[pos : sm.start()], assigns, values, room)
        values.extend(_seq(sm.group(1) or sm.group(2) or "", room - len(values)))
        pos = sm.end()
    _expand_words(words[pos:], assigns, values, room)
    return m.group(1), tuple(values[:room])


def _expand_words(text: str, assigns: dict[str, str], out: list[str], room: int) -> None:
    for word in _argv_plain(text):
        if len(out) >= room:
            return
        m = _VARIABLE.fullmatch(word)
        if m and m.group(1) in assigns:  # `SIZES="64 1500"` ... `for s in $SIZES`
            for part in assigns[m.group(1)].split():
                out.extend(_brace(part, room - len(out)))
        else:
            out.extend(_brace(word, room - len(out)))


def _c_style(m: re.Match[str], room: int) -> tuple[str, ...]:
    start, op, stop = int(m.group(2)), m.group(3), int(m.group(4))
    values: list[str] = []
    i = start
    while len(values) < room:
        if not _compare(i, op, stop):
            break
        values.append(str(i))
        if m.group(5):
            nxt = i + 1
        elif m.group(6):
            nxt = i - 1
        else:
            n = int(m.group(8))
            nxt = i + n if m.group(7) == "+" else i - n if m.group(7) == "-" else i * n
        if nxt == i:
            break
        i = nxt
    return tuple(values)


def _compare(a: int, op: str, b: int) -> bool:
    return {"<=": a <= b, "<": a < b, ">=": a >= b, ">": a > b}[op]


def _seq(args: str, room: int) -> list[str]:
    """`seq LAST`, `seq FIRST LAST`, `seq FIRST STEP LAST` (integers; options skipped)."""
    words = args.split()
    numbers: list[int] = []
    skip = False
    for w in words:
        if skip:
            skip = False
        elif w in ("-s", "-f"):
            skip = True
        elif _INT.fullmatch(w):
            numbers.append(int(w))
        elif not w.startswith("-"):
            return []
    if len(numbers) == 1:
        first, step, last = 1, 1, numbers[0]
    elif len(numbers) == 2:
        first, step, last = numbers[0], 1, numbers[1]
    elif len(numbers) == 3:
        first, step, last = numbers
    else:
        return []
    if step == 0 or (last - first) * step < 0:
        return []
    count = min(room, (last - first) // step + 1)
    return [str(first + k * step) for k in range(max(0, count))]


_RANGE = re.compile(r"(-?\d{1,18}|[A-Za-z])\.\.(-?\d{1,18}|[A-Za-z])(?:\.\.(-?\d{1,18}))?")


def _brace(word: str, room: int, depth: int = 0) -> list[str]:
    """Bash brace expansion of one word, bounded: `{1,2,4}`, `{1..16}`, `{0..64..8}`, `eth{0,1}`."""
    if room <= 0:
        return []
    if len(word) > 256 or depth > 8 or "{" not in word:
        return [word]
    i = word.find("{")
    while i >= 0:
        if i > 0 and word[i - 1] == "$":  # `${var}` is a parameter
            i = word.find("{", i + 1)
            continue
        close, commas = _matching(word, i)
        if close < 0:
            return [word]
        inner = word[i + 1 : close]
        alternatives = _range(inner, room) if _RANGE.fullmatch(inner) else None
        if alternatives is None and commas:
            alternatives = _split_commas(inner, commas, i + 1)
        if alternatives:
            out: list[str] = []
            prefix, suffix = word[:i], word[close + 1 :]
            for alt in alternatives:
                out.extend(_brace(prefix + alt + suffix, room - len(out), depth + 1))
                if len(out) >= room:
                    break
            return out[:room]
        i = word.find("{", i + 1)
    return [word]


def _matching(word: str, i: int) -> tuple[int, list[int]]:
    level = 0
    commas: list[int] = []
    for p in range(i, len(word)):
        ch = word[p]
        if ch == "{":
            level += 1
        elif ch == "}":
            level -= 1
            if level == 0:
                return p, commas
        elif ch == "," and level == 1:
            commas.append(p)
    return -1, commas


def _split_commas(inner: str, commas: list[int], offset: int) -> list[str]:
    parts: list[str] = []
    start = 0
    for c in commas:
        parts.append(inner[start : c - offset])
        start = c - offset + 1
    parts.append(inner[start:])
    return parts


def _range(inner: str, room: int) -> list[str] | None:
    m = _RANGE.fullmatch(inner)
    if m is None:
        return None
    a, b, s = m.group(1), m.group(2), m.group(3)
    step = abs(int(s)) if s else 1
    if step == 0:
        step = 1
    if a.isalpha() != b.isalpha() or (a.isalpha() and len(a) != 1):
        return None
    if a.isalpha():
        lo, hi = ord(a), ord(b)
        sign = 1 if hi >= lo else -1
        count = min(room, abs(hi - lo) // step + 1)
        return [chr(lo + sign * k * step) for k in range(count)]
    lo, hi = int(a), int(b)
    # bash pads to the wider end when either is written with a leading zero: {01..16}
    width = max(len(a), len(b)) if re.match(r"-?0\d", a) or re.match(r"-?0\d", b) else 0
    sign = 1 if hi >= lo else -1
    count = min(room, abs(hi - lo) // step + 1)
    return [str(lo + sign * k * step).zfill(width) for k in range(count)]


def loop_for_values(
    loops: Sequence[Loop], values: Sequence[str], line: int | None = None
) -> Loop | None:
    """The loop that produced a list of measurements or row labels.

    A loop whose values equal `values` (row labels `1 2 4`) wins; otherwise one with as many
    values as there are measurements (seed 004's two 9-number lists and its 9-value loop).
    Several candidates: the nearest one starting before `line`; without `line`, None unless
    they all have the same values.
    """
    wanted = [str(v).strip() for v in values]
    if not wanted:
        return None
    same = [lp for lp in loops if _same_values(lp.values, wanted)]
    return _nearest(same, line) or _nearest(
        [lp for lp in loops if len(lp.values) == len(wanted)], line
    )


def _same_values(have: Sequence[str], wanted: Sequence[str]) -> bool:
    if len(have) != len(wanted):
        return False
    for a, b in zip(have, wanted, strict=True):
        if a == b:
            continue
        try:
            if float(a) != float(b):
                return False
        except ValueError:
            return False
    return True


def _nearest(candidates: list[Loop], line: int | None) -> Loop | None:
    if not candidates:
        return None
    if line is not None:
        before = [lp for lp in candidates if lp.line <= line]
        return max(before, key=lambda lp: lp.line) if before else candidates[0]
    if all(lp.values == candidates[0].values for lp in candidates):
        return candidates[0]
    return None


# --- what a variable means ----------------------------------------------------------------

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
    elif before and _OPTION.fullmatch(before) and "=" not in before:
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
    if before and not before.startswith("-") and not _INT.fullmatch(before):
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
    at = _program_index(argv)
    prog = cmd.tool
    test_options = False
    for j in range(at + 1, k):
        token = argv[j]
        family = _canonical(token)
        if (family in _TOOLS or family == "pktgen") and not token.startswith("-"):
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
    m = _VARIABLE.fullmatch(s)
    if m or (loops and any(lp.variable == s for lp in loops)):
        return condition_of(m.group(1) if m else s, commands)
    low = re.sub(r"\([^)]{0,40}\)|\[[^\]]{0,40}\]", " ", s.lower())
    words = re.sub(r"[^a-z0-9]+", " ", low.replace("#", " nr ")).split()
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
