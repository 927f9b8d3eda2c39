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
    r"capabilit\w*|layers?|levels? of|entries|bytes?|buffer size|window|wait\w*|"
    r"interval|polling period|factor|version|patches|commits|cachelines?|struct\w*|"
    r"fields?|members?|registers?|max(?:imum)? number|up to|at most|timers?|every|sleeps?|delays?"
    r"|poll(?:ing)?)\b"
    # (a parameter's name: `max_sectors from 32767 to 64`, `nr_requests from 64 to 256`)
    r"|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b",
    re.IGNORECASE)
RESULT = re.compile(
    r"\b(?:perform\w*|faster|slower|speed\w*|throughput|latenc\w*|bandwidth|improv\w*|"
    r"regress\w*|overhead|took|takes?|taking|costs?|usage|utili[sz]ation|iops|pps|rates?|"
    r"gain\w*|boost\w*|benchmark\w*|measured|results?)\b",
    re.IGNORECASE)


# The word a figure describes, right after it (and its unit): `20 ms sleep`, `10 ms delay`,
# `16 byte descriptors`, `500 entries`: what was set or built, not what was measured.
SETTING_AFTER = re.compile(
    r"\s*(?:[A-Za-z]{1,6}\s+)?(?:sleeps?|delays?|timers?|timeouts?|intervals?|period|"
    r"descriptors?|entries|slots?|limits?|caps?|thresholds?|budgets?|polls?|ticks?)\b", re.I)
