"""Find the repository and ref of a git pull request (`git request-pull` output).

    The following changes since commit 1a2b...:
    ...
    are available in the Git repository at:

      git://git.kernel.org/pub/scm/linux/kernel/git/davem/net.git tags/for-linus

    for you to fetch changes up to 3c4d...:

The answer is `URL REF`, whitespace (newlines included) collapsed to one space, as Patchwork
stores it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# `git` before 2.14 wrote "git repository", later "Git repository" (Patchwork's 0017).
_INTRO = re.compile(r"\s*are available in the git repository at:?\s*", re.IGNORECASE)
_URL = re.compile(
    r"(?:(?:git|git\+ssh|ssh|https?)://\S+"  # git://, git+ssh:// (0004), ssh:// (0005), http (0006)
    r"|[\w.-]+@[\w.-]+:\S+)"  # scp-like user@host:path
)
_REF = re.compile(r"[\w./+-]+")
_LOOKAHEAD = 4  # blank lines allowed between the intro and the URL


def find_pull_url(lines: Sequence[str], depths: Sequence[int]) -> str | None:
    """Return `URL REF` (or the URL alone) of the pull-request block at depth 0, or None."""
    if not any("repository at" in line for line in lines):
        return None
    n = len(lines)
    for i, line in enumerate(lines):
        if depths[i] != 0 or "repository at" not in line or not _INTRO.fullmatch(line):
            continue
        j = i + 1
        while j < n and j <= i + _LOOKAHEAD and depths[j] == 0 and not lines[j].strip():
            j += 1
        if j >= n or depths[j] != 0:
            continue
        parts = lines[j].split()
        if not parts or not _URL.fullmatch(parts[0]):
            continue
        if len(parts) > 1:
            return " ".join(parts)
        return _with_wrapped_ref(parts[0], lines, depths, j + 1)
    return None


def _with_wrapped_ref(url: str, lines: Sequence[str], depths: Sequence[int], k: int) -> str:
    # A mailer wrapped the long URL line and put the ref alone on the next line
    # (Patchwork's fixture 0023); a blank line instead means no ref was given (0017).
    if k < len(lines) and depths[k] == 0:
        words = lines[k].split()
        if len(words) == 1 and _REF.fullmatch(words[0]) and not words[0].endswith(":"):
            return f"{url} {words[0]}"
    return url
