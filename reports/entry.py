"""The installed `patchperf` command's first code: a Ctrl-C while Python is still importing
the command ends it quietly (exit 130) instead of printing a traceback from whichever
import it interrupted. Nothing is open yet, so there is nothing to lose; `reports.cli.run`
gives Ctrl-C back to Python before any work starts, where it rolls back what is open."""

from __future__ import annotations

import os
import signal
from types import FrameType


def _quit_quietly(_signum: int, _frame: FrameType | None) -> None:
    os.write(2, b"patchperf: interrupted\n")
    os._exit(130)


def run() -> None:
    signal.signal(signal.SIGINT, _quit_quietly)
    from .cli import run as run_cli

    run_cli()
