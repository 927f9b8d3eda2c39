"""`--since 7d`: an age (`30m`, `12h`, `7d`, `2w`) or a date (`2024-03-01`) to a UTC instant."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import click

_AGE = re.compile(r"^\s*(\d+)\s*([mhdw])\s*$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime | None = None) -> datetime:
    match = _AGE.match(text)
    now = now or datetime.now(UTC)
    if match:
        try:
            return now - timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
        except (OverflowError, ValueError):
            raise click.BadParameter(f"{text!r}: too far back") from None
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise click.BadParameter(f"{text!r}: expected an age like 7d, 12h, 2w or a date like 2024-03-01") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)
