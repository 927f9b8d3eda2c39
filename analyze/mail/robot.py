"""The kernel test robot's reports (LKP / 0-DAY CI), read as what they are: which commit the
robot tested, where that commit came from, and what it found.

A report is the robot's text, unquoted (a reply quoting one is a reply), in the robot's own
mail or forwarded by a person with its fields (smatch's warnings come from their
maintainer). Its shapes:

    kernel test robot noticed a -51.1% regression of fio.read_bw_MBps on:
    commit: 8cf0c459993ee2911f4f01fba21b1987b102c887 ("io_uring/rw: Allocate async data ...")
    patch link:    https://lore.kernel.org/r/20240528131429.3012910-9-a.b%40intel.com
    testcase: fio-basic
    test machine: 96 threads 2 sockets Intel(R) Xeon(R) Platinum 8260L CPU @ 2.40GHz ...

and the older "FYI, we noticed a +23.0% improvement of netperf.Throughput_Mbps due to
commit:". A report on a merged commit names the commit and its subject; one on a patch
posted to a list also carries `patch link:` (the patch's Message-ID, its `@` written `%40`).
The robot's other reports — "noticed \"BUG:...\"", "noticed the following build
warnings" — are read too (they link to a series the same way), with no measured change.
The measured findings themselves are the report's claims (analyze/claims/tables/lkp.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from analyze.model import Message

# who the robot is: its name in From (also misspelt `kerne test robot` in real mail) or the
# LKP addresses, and the words it opens with
_SENDER = re.compile(r"\btest robot\b|\blkp@intel\.com\b", re.I)
_NOTICED = re.compile(r"^\s*(?:kernel test robot|FYI, we|we) noticed\b", re.I)
_ROBOT_WORDS = re.compile(r"^\s*kernel test robot noticed\b", re.I)
_PERF = re.compile(r"noticed an? ([-+]?\d+(?:\.\d+)?)% (improvement|regression) of (\S+?)"
                   r"(?:\s+(?:on|due to)\b|:|$)", re.I)
_BUILD = re.compile(r"noticed the following build (?:errors|warnings)", re.I)
_COMMIT = re.compile(r"^\s*commit:\s*([0-9a-f]{7,40})\b\s*(.*)$", re.I)
_COMMIT_SUBJECT = re.compile(r'^\(\s*"(.*)"\s*\)\s*$|^\[\d+/\d+\]\s*(.*)$')
_PATCH_LINK = re.compile(r"^\s*patch link:\s*(https?://\S+)", re.I)
_FIELD = re.compile(r"^\s*(?:in\s+)?(testcase|test machine):\s*(.+?)\s*$", re.I)
_HEAD_LINES = 80  # the report's fields are in its first lines; its tables follow


@dataclass(frozen=True, slots=True)
class RobotReport:
    key: str  # the report's own message key
    kind: str  # performance | failure | build
    commit: str | None  # the tested commit, as written (7 to 40 hex digits)
    commit_subject: str | None  # its subject line, when the report names it
    patch_link: str | None  # the Message-ID of the tested patch (`patch link:`)
    testcase: str | None  # `fio-basic`, `stress-ng`, `netperf`
    machine: str | None
    metric: str | None  # the headline's row: `fio.read_bw_MBps` (performance only)
    change_pct: float | None  # the headline's change, signed as the robot signs it
    direction: str | None  # regression | improvement

    @property
    def family(self) -> str | None:
        """The benchmark: the headline row's first part (`fio`, `will-it-scale`), else the
        testcase without its variant (`fio-basic` -> `fio`)."""
        if self.metric and "." in self.metric:
            return self.metric.split(".", 1)[0]
        if self.testcase:
            return self.testcase.removesuffix("-basic")
        return None


def read_robot_report(message: Message) -> RobotReport | None:
    """The report this mail is, or None when it is not the robot's report."""
    # one search of the head in C before any line is looked at: few mails are reports
    # (the robot writes it in lower case, as every shape below does)
    if "noticed" not in "\n".join(message.body.lines[:_HEAD_LINES * 4]):
        return None
    lines = [line for line, depth in zip(message.body.lines[:_HEAD_LINES * 4],
                                         message.body.depths, strict=False) if depth == 0]
    opening = next((i for i, line in enumerate(lines[:_HEAD_LINES]) if _NOTICED.match(line)), None)
    if opening is None:
        return None
    head = lines[opening:opening + _HEAD_LINES]
    # The robot's words may come from a person: smatch's reports are the robot's text sent
    # by their maintainer. They count when the report's own fields follow; "we noticed"
    # only from the robot itself.
    robot_sender = bool(_SENDER.search(f"{message.from_name} <{message.from_addr}>"))
    if not robot_sender and (not _ROBOT_WORDS.match(lines[opening])
                             or not any(_COMMIT.match(x) or _PATCH_LINK.match(x) for x in head)):
        return None
    said = " ".join(head[:3])  # (the headline may wrap: "... due to\ncommit:")
    perf = _PERF.search(said)
    kind = "performance" if perf else "build" if _BUILD.search(said) else "failure"
    commit = commit_subject = patch_link = testcase = machine = None
    for line in head:
        m = _COMMIT.match(line)
        if m and commit is None:
            commit, rest = m.group(1).lower(), m.group(2).strip()
            found = _COMMIT_SUBJECT.match(rest)
            if found:
                commit_subject = found.group(1) or found.group(2)
            continue
        m = _PATCH_LINK.match(line)
        if m and patch_link is None:
            patch_link = _message_id_of(m.group(1))
            continue
        m = _FIELD.match(line)
        if m:
            if m.group(1).lower() == "testcase" and testcase is None:
                testcase = m.group(2)
            elif m.group(1).lower() == "test machine" and machine is None:
                machine = m.group(2)
    metric = change = direction = None
    if perf:
        change, direction, metric = float(perf.group(1)), perf.group(2).lower(), perf.group(3)
        metric = metric.rstrip(".,:")
    return RobotReport(message.key, kind, commit, commit_subject, patch_link, testcase,
                       machine, metric, change, direction)


def _message_id_of(url: str) -> str | None:
    """`https://lore.kernel.org/r/2024...-9-a.b%40intel.com` -> `2024...-9-a.b@intel.com`."""
    tail = url.rstrip("/").rsplit("/", 1)[-1]
    mid = unquote(tail).strip("<>")
    return mid if "@" in mid else None
