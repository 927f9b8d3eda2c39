"""Analysis of a batch of mails: messages, threads, series and claims.

Pure: bytes in, values out; no store, no network. The caller decides where bytes come from
and where results go.
"""

from __future__ import annotations

from collections.abc import Iterable

from .claims import claims_of
from .errors import BadInput
from .limits import DEFAULT_LIMITS, Limits
from .message import parse_message
from .model import Analysis, Message, Problem
from .series import assemble_series

ANALYZER_VERSION = "2"  # 2: claims  # bump when derived results change, so `analyze --all` is worth running


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


def analyze_messages(messages: list[Message], problems: Iterable[Problem] = ()) -> Analysis:
    """Series and (later) claims over already parsed messages."""
    ordered = sorted(messages, key=_date_order)
    return Analysis(
        messages=tuple(ordered),
        series=assemble_series(ordered),
        claims=claims_of(ordered),
        problems=tuple(problems),
    )


def _date_order(message: Message) -> tuple[float, str]:
    return (message.date.timestamp() if message.date else float("-inf"), message.key)
