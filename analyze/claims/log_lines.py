"""Lines of tool output and kernel logs that print figures but never a result.

A mail pastes what a machine printed: an oops with its registers, a NIC's counters
(`ethtool -S`), iperf3's sender line beside its receiver line, a benchmark's bookkeeping
(time_bench's measurement period beside its per-element cost), a latency histogram's
buckets. Their figures pair as well as any run's,
and a reader that pairs by shape would pair them: `RSP: 0018:ffffb8...` before and after,
`rx_bytes: 1234` before and after. By docs/claims.md these are no claims (rule 2: iperf3's
receiver summary; counters beside a result), so the run readers
leave such lines out of every run.
"""

from __future__ import annotations

import re

_LOG = re.compile(
    # an oops: registers, the trace, the code bytes
    r"\b(?:RIP|RSP|RAX|RBX|RCX|RDX|RSI|RDI|RBP|R(?:8|9|1[0-5])|[CDEFGS]S|CR[0-4]|EFLAGS"
    r"|ORIG_RAX|DR[0-7]):\s*[0-9a-f]"
    r"|^\s*(?:\[\s*\d+\.\d+\]\s*)?(?:Call Trace:|Code: |Hardware name:|Modules linked in:"
    r"|CPU: \d+ (?:UID: \d+ )?PID:|Workqueue: |<TASK>|</TASK>)"
    # a NIC's counters, one a line (`rx_bytes: 1234`, `tx_queue_3_packets: 12`)
    r"|^\s*[a-z][\w.\[\]-]*(?:bytes|packets|pkts|errors|dropped|drops|missed|frames|csum\w*"
    r"|restart\w*|busy|timeout\w*):\s+\d+\s*$"
    # iperf3's sender summary (the receiver's is the result); time_bench's loop total
    r"|\bsender\s*$|\bmeasurement period\b"
    # a report of when something happened, not how long it took
    r"|\(\d+(?:\.\d+)?s ago\)"
    # `ls -l`'s lines: a file's mode, links, owner, size and time, never a result
    r"|^\s*[-dlcbps][rwxsStT-]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+\d"
    # fstests' line for a test, its last run's time and this run's (`xfs/288 1s ...  2s`):
    # a functional test's log
    r"|^\s*(?:generic|xfs|ext[234]|btrfs|overlay|nfs|f2fs|shared|cifs|udf|ceph|tmpfs)/\d{3}\s+\d+s\s+\.\.\."
    # a drive's SMART log (`Percentage Used: 4%`, `Data Units Read: 32,373,823`): its wear
    r"|^\s*(?:Critical Warning|Available Spare(?: Threshold)?|Percentage Used|Data Units (?:Read|Written)"
    r"|Host (?:Read|Write) Commands|Controller Busy Time|Power Cycles|Power On Hours|Unsafe Shutdowns"
    r"|Media and Data Integrity Errors|Error Information Log Entries|percentage_used|data_units_(?:read|written)"
    r"|host_(?:read|write)_commands|controller_busy_time|power_on_hours|unsafe_shutdowns)\s*:"
    # lspci's capability lines (`Exit Latency L0s <512ns`): what the hardware is, never how
    # fast a run went
    r"|\b(?:LnkCap|LnkSta|LnkCtl|DevCap|DevCtl|DevSta)\d?:"
    # a histogram's bucket (bcc's `131072 -> 262143 : 1842 |****|`, bpftrace's
    # `[128, 256)  12 |@@@  |`): its bounds are no pair, its count no result
    r"|\d\s*\|(?:[*@#]+\s*|\s{10,})\|\s*$",
    re.I)


def is_log_line(line: str) -> bool:
    """Whether a line is one of the above: never part of a run of results."""
    return bool(_LOG.search(line))
