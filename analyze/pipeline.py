"""Analysis of a batch of mails: messages, threads, series and claims.

Pure: bytes in, values out; no store, no network. The caller decides where bytes come from
and where results go.
"""

from __future__ import annotations

from collections.abc import Iterable

from analyze.claims.extract import claims_or_warning, merge_claims
from analyze.mail.message import parse_message
from analyze.mail.series import assemble_series

from .errors import BadInput
from .limits import DEFAULT_LIMITS, Limits
from .model import Analysis, Claim, Message, Problem

# Bumped when derived results change, so `analyze --all` is worth running. 2: claims; 3: the
# robot's benchmark rows only; 4: robot reports, applied commits, each claim's benchmark; 5:
# claims read structure first (issue 31: `runs`, `section`, IOPS as throughput) and diffs
# whose last hunk ends on an empty context line; 6: siblings told apart by row, column and
# what a sentence's figure is for, a caption's metric, spread and `time`'s user/sys lines
# dropped; 7: a job's wall-clock time as metric `time`; 8: rows named by what they ran
# (`tables/named_rows.py`), a structure's bytes as metric `size`, versions, field sizes and
# kernel log ids no pairs.
ANALYZER_VERSION = "9"


def parse_all(
    items: Iterable[tuple[bytes, str]], limits: Limits = DEFAULT_LIMITS
) -> tuple[list[Message], list[Problem]]:
    """Parse each (raw bytes, origin); a mail that cannot be read becomes a Problem."""
    messages: list[Message] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    for data, origin in items:
        try:
            message = parse_message(data, origin, limits)
        except BadInput as exc:
            problems.append(Problem(origin, str(exc)))
            continue
        if message.key in seen:  # the same mail twice in one batch is one mail
            continue
        seen.add(message.key)
        messages.append(message)
    return messages, problems


def analyze_messages(messages: list[Message], problems: Iterable[Problem] = (),
                     limits: Limits = DEFAULT_LIMITS) -> Analysis:
    """Series and claims over already parsed messages."""
    ordered = sorted(messages, key=_date_order)
    claims: list[Claim] = []
    warnings: list[Problem] = []
    for message in ordered:
        found, warning = claims_or_warning(message, limits)
        claims += found
        if warning:
            warnings.append(Problem(message.origin, warning))
    return Analysis(
        messages=tuple(ordered),
        series=assemble_series(ordered),
        claims=merge_claims(claims),
        problems=tuple(problems),
        warnings=tuple(warnings),
    )


def _date_order(message: Message) -> tuple[float, str]:
    return (message.date.timestamp() if message.date else float("-inf"), message.key)
