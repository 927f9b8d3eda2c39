"""The commits an "applied" mail names: the maintainer's (or patchwork-bot's) answer that a
series went into a tree, which ties the series to the commit ids a later report names.

    This series was applied to netdev/net-next.git (main) by Jakub Kicinski <kuba@kernel.org>:
      - [net-next,v2,1/3] net: foo
        https://git.kernel.org/netdev/net-next/c/1a2b3c4d5e6f

and b4's thank-you mail (`Applied, thanks!` over `[1/3] foo` and `commit: 1a2b3c4d5e6f`).
Only unquoted lines count, and only in a mail that says it applied something.
"""

from __future__ import annotations

import re

from analyze.model import Message

_APPLIED = re.compile(r"\bapplied\b", re.I)
_COMMIT_URL = re.compile(r"https?://git\.kernel\.org/\S*?(?:/c/|[?&;]id=)([0-9a-f]{7,40})\b", re.I)
_COMMIT_LINE = re.compile(r"^\s*commit:?\s+([0-9a-f]{12,40})\b", re.I)
_MAX = 200  # a pull of a whole cycle names a few hundred; more is not one series


def applied_commits(message: Message) -> tuple[str, ...]:
    """The commit ids (lower-case, as written: 7 to 40 hex digits) an applied mail names,
    in order; () for any other mail."""
    text = message.body.text
    if "pplied" not in text and "PPLIED" not in text:  # a substring search: few mails say it
        return ()
    lines = [line for line, depth in zip(message.body.lines, message.body.depths, strict=False)
             if depth == 0]
    if not any(_APPLIED.search(line) for line in lines):
        return ()
    found: dict[str, None] = {}
    for line in lines:
        for m in (*_COMMIT_URL.finditer(line), *_COMMIT_LINE.finditer(line)):
            found.setdefault(m.group(1).lower(), None)
            if len(found) >= _MAX:
                return tuple(found)
    return tuple(found)
