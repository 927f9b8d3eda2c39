"""`patchperf analyze PATH...`: files read and analysed in memory; the store is not touched."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Analysis, Problem
from analyze.pipeline import analyze_messages, parse_all
from ingest.local import read_sources


def analyze_files(paths: Iterable[str | Path], limits: Limits = DEFAULT_LIMITS) -> Analysis:
    """`patchperf analyze PATH...`: read and analyze in memory; the store is not touched.
    Inputs that could not be read are the Analysis's problems."""
    read_problems: list[Problem] = []

    def mails() -> Iterator[tuple[bytes, str]]:
        for item in read_sources(paths, limits, any_text=True):
            if isinstance(item, Problem):
                read_problems.append(item)
            else:
                yield item.data, item.origin

    messages, parse_problems = parse_all(mails(), limits)
    return analyze_messages(messages, read_problems + parse_problems, limits)
