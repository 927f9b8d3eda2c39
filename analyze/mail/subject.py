"""Subject lines: `Re: [PATCH net-next v2 3/7] tcp: ...` split into a `Subject`.

Rules follow Patchwork's parser (its tests are scored in tests/test_subject.py) and b4's
prefix handling, with netdev's tree tags on top. Only the leading bracket groups are prefixes:
`[PATCH] rewrite [a-z] regexes` keeps `[a-z]` in the name (Patchwork's test case).

Every regular expression here is anchored or works on one short token, and the subject is
cut to `MAX_SUBJECT_CHARS` first, so hostile subjects cannot make the parser slow.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analyze.errors import BadInput
from analyze.model import Subject

# Real subjects are < 200 characters; anything past this is junk or an attack.
MAX_SUBJECT_CHARS = 4096
# A series of a million patches does not exist; longer digit runs are not markers.
_MAX_DIGITS = 6

# `Re:`, `RE:`, `re:`, `Aw:` (German), `Sv:` (Nordic), `Antw:` (Dutch); `Re[2]:` is some
# clients' counter. Patchwork also takes `RE meep` (Re + whitespace) as a reply: only at the very
# start, so that `[PATCH] Re work ...` stays a patch.
_REPLY = re.compile(r"(?:re|aw|sv|antw)(?:\[\d{1,4}\])?:\s*", re.I)
_REPLY_BARE = re.compile(r"re\s+", re.I)
# `Fwd:` / `Fw:` are dropped from the name but do not make a reply.
_FORWARD = re.compile(r"(?:fwd?)(?:\[\d{1,4}\])?:\s*", re.I)
_BRACKET = re.compile(r"\[([^\[\]]*)\]\s*")
_SEPARATORS = re.compile(r"[\s,]+")

# One prefix token, with words glued together as seen in the wild: `PATCHv3`, `RFCv2`,
# `v2PATCH1/4`, `v2.3PATCH1/4`, `PATCH100/123` (Patchwork's test_series_markers).
# The three words start differently, so the alternation never backtracks.
_GLUED = re.compile(
    r"(?P<pre>(?:PATCH|RFC|RESEND)*)"
    r"(?:V(?P<version>\d{1,6})(?:\.\d{1,6})?)?"
    r"(?P<post>(?:PATCH|RFC|RESEND)*)"
    r"(?:(?P<index>\d{1,6})/(?P<total>\d{1,6}))?",
    re.I,
)
# A version at the start of a token, possibly after glued words (`PATCHv3`, `v2PATCH1/4`).
# Not `v4l2`: a letter may follow the digits only when it starts a glued word.
_VERSION_TOKEN = re.compile(
    r"(?:PATCH|RFC|RESEND)*V(\d{1,6})(?:(?![A-Za-z])|(?=PATCH|RFC|RESEND))", re.I
)

# Netdev trees that do not end in `-next`; every `*-next` token is a tree as well.
_TREES = frozenset(
    {
        "net",
        "bpf",
        "iwl-net",
        "wireless",
        "iproute2",
        "nf",
        "ipsec",
        "ethtool",
        "mptcp",
    }
)
_TREE_TOKEN = re.compile(r"[a-z0-9][a-z0-9._]{0,30}(?:-[a-z0-9._]{1,30}){0,3}")


def split_prefixes(prefix_string: str) -> list[str]:
    """Split the inside of one bracket group into tokens (commas and/or whitespace)."""
    return [token for token in _SEPARATORS.split(prefix_string) if token]


def _marker_in_token(token: str) -> tuple[int, int] | None:
    # `n/N`, possibly glued to a word before it (`PATCH1/8`); and `n of N` kept as one token,
    # as Patchwork's tests pass it (`1 of 2`, `PATCH1 of 8`).
    if "/" in token:
        left, _, right = token.rpartition("/")
    elif " of " in token:
        left, _, right = token.rpartition(" of ")
    else:
        return None
    right = right.strip()
    digits = len(left) - len(left.rstrip("0123456789"))
    if not right.isascii() or not right.isdigit() or digits == 0:
        return None
    index = left[len(left) - digits :]
    if len(index) > _MAX_DIGITS or len(right) > _MAX_DIGITS:
        return None
    return int(index), int(right)


def parse_series_marker(tokens: Sequence[str]) -> tuple[int | None, int | None]:
    """Find the `n/N` (or mercurial's `n of N`) marker among prefix tokens.

    Returns (index, total), or (None, None) when there is none.
    """
    for token in tokens:
        found = _marker_in_token(token)
        if found:
            return found
    # `[PATCH 1 of 2]` split on whitespace: three tokens, the first maybe glued (`PATCH1`).
    for i in range(len(tokens) - 2):
        if tokens[i + 1].lower() == "of":
            found = _marker_in_token(f"{tokens[i]} of {tokens[i + 2]}")
            if found:
                return found
    return None, None


def _trailing_version(name: str) -> int | None:
    # `Hello, world (v2)` (Patchwork's test_version); parsed by hand to stay linear.
    text = name.rstrip()
    if not text.endswith(")"):
        return None
    inner = text[text.rfind("(") + 1 : -1].strip()
    if len(inner) >= 2 and inner[0] in "vV" and inner[1:].isascii() and inner[1:].isdigit():
        digits = inner[1:]
        if len(digits) <= _MAX_DIGITS:
            return int(digits)
    return None


def _version(name: str, tokens: Sequence[str]) -> tuple[int, bool]:
    """The series version: a `vN` token (`v2`, `V6`, `PATCHv3`), else a trailing `(vN)`; 1,
    and whether it was written."""
    for token in tokens:
        match = _VERSION_TOKEN.match(token)
        if match:
            return int(match.group(1)), True
    trailing = _trailing_version(name)
    if trailing is not None:
        return trailing, True
    return 1, False


def _strip_leading(text: str) -> tuple[str, list[str], bool]:
    """Remove Re:/Fwd: markers and leading bracket groups, in any interleaving.

    `[netdev] Re: [PATCH] x` and `Re: [PATCH net-next 6/6] x` both occur on lists.
    """
    groups: list[str] = []
    reply = False
    pos = 0
    while pos < len(text):
        match = _REPLY.match(text, pos) or (_REPLY_BARE.match(text) if pos == 0 else None)
        if match:
            reply = True
            pos = match.end()
            continue
        match = _FORWARD.match(text, pos) or _BRACKET.match(text, pos)
        if match is None:
            break
        if match.re is _BRACKET:
            groups.append(match.group(1))
        pos = match.end()
    rest = text[pos:]
    if groups and rest.startswith(":"):
        rest = rest[1:]  # `[Patch 2/2]: powerpc/...` (Patchwork fixture 0007's style)
    return rest, groups, reply


def _fold(raw: str) -> str:
    return " ".join(raw[:MAX_SUBJECT_CHARS].split())


def _tree(token: str) -> str | None:
    lowered = token.lower()
    # Patchwork's `[PATCH -next]` means linux-next: reported as the tree `next`.
    if lowered == "-next":
        return "next"
    if lowered in _TREES:
        return lowered
    if lowered.endswith("-next") and _TREE_TOKEN.fullmatch(lowered):
        return lowered
    return None


def parse_subject(raw: object) -> Subject:
    """Split a decoded subject into name, prefixes, tree, version, series marker and flags.

    `raw` is folded (runs of whitespace, newlines included, become one space) and cut to
    `MAX_SUBJECT_CHARS` first. A subject with no prefixes is fine: everything is its name.
    """
    # (typed `object`: a caller's bytes get this error, not the compiled build's TypeError)
    if not isinstance(raw, str):
        raise BadInput(f"subject must be text, not {type(raw).__name__}")
    folded = _fold(raw)
    name, groups, reply = _strip_leading(folded)
    tokens = [token for group in groups for token in split_prefixes(group)]

    rfc = resend = False
    tree: str | None = None
    for token in tokens:
        match = _GLUED.fullmatch(token)
        if match and match.group(0):
            words = (match.group("pre") + match.group("post")).upper()
            rfc = rfc or "RFC" in words
            resend = resend or "RESEND" in words
            continue
        if tree is None:
            tree = _tree(token)

    index, total = parse_series_marker(tokens)
    version, written = _version(name, tokens)
    return Subject(
        raw=folded,
        name=name.strip(),
        prefixes=tuple(tokens),
        tree=tree,
        version=version,
        version_written=written,
        index=index,
        total=total,
        rfc=rfc,
        resend=resend,
        reply=reply,
    )
