"""Words that make a sentence's pair of figures a setting, a size or a limit rather than a
result, and the words that make it a result whatever else the sentence names. Read by the
sentence readers (read.py, carried.py)."""

from __future__ import annotations

import re

# What a sentence's pair may be a setting of: the words before the pair in its clause
# (`the default launch time changed from 1s to 0.1s`, `raise the limit from 255 to 65535`,
# `bytes 24 to 31`, a maximum: `tracking of up to 65535 packets instead of 255`); and the
# words that make the pair a result whatever else it names.
SETTING = re.compile(
    r"\b(?:default|timeouts?|limits?|thresholds?|offsets?|budget|ring size|mtu|granularity|"
    r"capabilit\w*|layers?|levels? of|entries|bytes?|buffer size|batch sizes?|queue depths?|"
    r"window|wait\w*|"
    r"interval|polling period|factor|version|patches|commits|cachelines?|struct\w*|"
    r"fields?|members?|registers?|max(?:imum)? number|up to|at most|timers?|every|sleeps?|delays?"
    r"|poll(?:ing)?)\b"
    # (a parameter's name: `max_sectors from 32767 to 64`, `nr_requests from 64 to 256`)
    r"|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b",
    re.IGNORECASE)
RESULT = re.compile(
    # (`due to performance reasons` is a motive, not a result)
    r"\b(?:perform\w*(?!\s+reasons?\b)|faster|slower|speed\w*|throughput|latenc\w*|bandwidth|improv\w*|"
    r"regress\w*|overhead|took|takes?|taking|costs?|usage|utili[sz]ation|iops|pps|rates?|"
    r"gain\w*|boost\w*|benchmark\w*|measured|results?)\b",
    re.IGNORECASE)


# The word a figure describes, right after it (and its unit): `20 ms sleep`, `10 ms delay`,
# `16 byte descriptors`, `500 entries`: what was set or built, not what was measured.
SETTING_AFTER = re.compile(
    r"\s*(?:[A-Za-z]{1,6}\s+)?(?:sleeps?|delays?|timers?|timeouts?|intervals?|period|"
    r"descriptors?|entries|slots?|limits?|caps?|thresholds?|budgets?|polls?|ticks?|"
    # (what a structure is built of, or where a field lies: `9 to 5 layers`, `24 to 31
    # byte area`)
    r"layers?|leaves|levels?|buckets?|area|region|range)\b", re.I)


# Words that make a pair of sizes a measured result: memory used, a footprint, a structure's
# size; without them two sizes are what was set, planned or found wrong (`80 bytes instead
# of 120`, `64k --> 2 MiB`).
SIZE_MEASURED = re.compile(
    r"\b(?:mem\w*|footprint|usage|used|rss|consum\w*|alloc\w*|slab\w*|overhead|struct\w*"
    r"|size\s+of|sizeof|text|data|bss|kmalloc|cache|pages?|heap|resident)\b", re.I)
# A pair of release numbers: `from 5.10 to 6.6 in downstream kernel`, `kernel 6.1 vs 6.6`
VERSION_AFTER = re.compile(r"\s*(?:(?:in|on|of|with)\s+)?(?:[\w-]+\s+){0,2}?(?:kernels?|releases?)\b", re.I)
VERSION_BEFORE = re.compile(r"\b(?:kernels?|linux|releases?|versions?|v)\s*$", re.I)


# A profile's share, said by the sentence: a profiler, a profile, time spent somewhere, a
# function named beside the percentages (`io_req_local_work_add() from 3% -> 0.5%`)
PROFILE_SHARE = re.compile(
    r"\bperf\s+(?:profile|top|report|record|annotate)\b|\bprofil(?:e|es|ing)\b|\bflame\s?graph"
    r"|\b[a-z_][a-z0-9_]{2,}\(\)|\btime\s+spent\b|\bspent\s+(?:in|on|waiting)\b", re.I)
