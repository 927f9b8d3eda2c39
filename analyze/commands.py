"""Shell commands and loops written in mail, and what their variables mean.

The three ideas live in their own modules: `analyze/shell.py` recognises and tokenises commands
(seed 001's `./pktgen_bench_xmit_mode_queue_xmit.sh -t $c`), `analyze/loops.py` expands `for`
loops (seed 004's `for i in {35,50,...,155}`) and `analyze/conditions.py` says what a variable,
a header or a row label names (`threads`, `instances`). This module keeps the names tables,
lists and prose import.
"""

from __future__ import annotations

from .conditions import condition_from_header, condition_of, counted_condition, label_condition
from .loops import Loop, loop_for_values
from .shell import Command, Shell, find_commands, find_loops, read_shell

__all__ = [
    "Command",
    "Loop",
    "Shell",
    "condition_from_header",
    "condition_of",
    "counted_condition",
    "label_condition",
    "find_commands",
    "find_loops",
    "loop_for_values",
    "read_shell",
]
