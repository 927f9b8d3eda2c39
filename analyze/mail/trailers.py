"""Trailers (`Signed-off-by:`, `Acked-by:`, `Fixes:` ...) read from a message body.

A trailer counts when it starts an unquoted line (quote depth 0) before the first diff, `---`
separator or signature. It does not have to sit in a final block: reviewers write their
`Acked-by:` in the middle of a reply (seed 000, under a quoted `> Signed-off-by:` that must not
count). Quoted and indented lines are never trailers: an indented `Signed-off-by:` is usually a
pasted `git log` (b4's `trailers-followup-already-present` restates trailers that way).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analyze.errors import BadInput
from analyze.model import Trailer

_PERSON_KEYS = (
    "Signed-off-by",
    "Acked-by",
    "Nacked-by",
    "Reviewed-by",
    "Tested-by",
    "Reported-by",
    "Suggested-by",
    "Co-developed-by",
    "Reviewed-and-tested-by",
    "Reported-and-tested-by",  # syzbot's replies
    "Cc",
)
_UTILITY_KEYS = ("Fixes", "Link", "Closes")
_CANONICAL = {key.lower(): key for key in _PERSON_KEYS + _UTILITY_KEYS}
_PERSON = frozenset(_PERSON_KEYS)
_URL_KEYS = frozenset({"Link", "Closes"})

# A trailer line is short; a longer line is prose (and would only cost time).
_MAX_LINE = 4096
# A wrapped trailer spans a few lines at most; don't let a hostile one swallow the body.
_MAX_CONTINUATIONS = 4

_KEY = re.compile(r"([A-Za-z][A-Za-z-]{0,40}):[ \t]*")
# b4 accepts a bare id and ids up to SHA-256 length (inline_cases `fixes_trailer_validation`);
# 8 hex digits is the shortest id seen in real Fixes: tags (checkpatch asks for 12).
_FIXES = re.compile(r"[0-9a-fA-F]{8,64}(?![0-9A-Za-z])")
# Outlook rewrites `<a@b>` as `<a@b<mailto:a@b>>` (b4 sample `trailers-followup-htmljunk`).
_MAILTO = re.compile(r"<mailto:[^<>\s]*>", re.I)
# b4's trailing comment: `Link: https://...  # initial submission`, `Cc: stable@... # 6.1+`.
_COMMENT = re.compile(r"[ \t]#")
_ANGLE_ADDR = re.compile(r"<([^<>\s]+@[^<>\s]+)>")
_BARE_ADDR = re.compile(r"[^<>\s@]+@[^<>\s@]+")


def _key_of(line: str) -> tuple[str, str] | None:
    """(canonical key, value) when the line starts with a known trailer key."""
    match = _KEY.match(line)
    if match is None:
        return None
    key = _CANONICAL.get(match.group(1).lower())
    if key is None:
        return None
    return key, line[match.end() :].rstrip()


def _ends_body(line: str, next_line: str | None) -> bool:
    """The commit message ends here: `---`, a diff, or the signature."""
    stripped = line.rstrip()
    if stripped in ("---", "--") or line == "-- ":
        return True
    if line.startswith(("diff --git ", "Index: ")):
        return True
    # A diff without a `diff --git` line (b4 sample `trailers-followup-non-git-patch`).
    return line.startswith("--- ") and next_line is not None and next_line.startswith("+++ ")


def split_person(value: str) -> tuple[str | None, str | None]:
    """(name, email) of `Name <addr>`, `<addr>`, `addr`, `"Last, First" <addr>`.

    The name is kept as written, quotes and `(Company)` included (b4's rule); None when absent.
    """
    match = _ANGLE_ADDR.search(value)
    if match:
        name = value[: match.start()].strip()
        return (name or None), match.group(1)
    if _BARE_ADDR.fullmatch(value):
        return None, value
    return (value or None), None


def _person_incomplete(value: str) -> bool:
    return "@" not in value or ("<" in value and ">" not in value.rpartition("<")[2])


def _is_extinfo(line: str) -> bool:
    # b4: a `[for the parts that are bogus]` line under a trailer is a note on it.
    stripped = line.strip()
    return stripped.startswith("[") and stripped.endswith("]")


def _continues(key: str, value: str, line: str) -> str | None:
    """The text `line` adds to the trailer `key: value`, or None when it does not continue it."""
    if not line.strip() or _is_extinfo(line) or len(line) > _MAX_LINE:
        return None
    if _key_of(line.lstrip()) is not None:
        return None
    indented = line[0] in " \t"
    text = line.strip()
    if key in _URL_KEYS:
        # A URL wrapped by the mail client: glue the pieces back without a space.
        if indented and value and " " not in text:
            return text
        return None
    if key == "Fixes":
        # `Fixes: 1234abcd5678 ("net: a subject long enough to be\nwrapped")`
        if indented or value.count("(") > value.count(")"):
            return " " + text
        return None
    if key in _PERSON and _person_incomplete(value) and (indented or text.startswith("<")):
        # `Signed-off-by: Wrapped Persontrailer\n<broken@example.com>` (b4 trailers-test-extinfo)
        return " " + text
    return None


def _clean(key: str, value: str) -> Trailer | None:
    value = " ".join(value.split())
    if key != "Fixes":
        match = _COMMENT.search(value)
        if match:
            value = value[: match.start()].rstrip()
    if not value:
        return None
    if key == "Fixes":
        # `Fixes: ?` and `Fixes: some description` are not trailers (b4's validation).
        return Trailer(key, value) if _FIXES.match(value) else None
    if key in _PERSON:
        value = _MAILTO.sub("", value)
        name, email = split_person(value)
        if name is None and email is not None:
            value = email  # `<bare@example.com>` is written `bare@example.com`, as b4 does
        return Trailer(key, value, name, email)
    return Trailer(key, value)


def parse_trailers(lines: Sequence[str], depths: Sequence[int]) -> tuple[Trailer, ...]:
    """The trailers of a message body given line by line with each line's quote depth.

    Only unquoted lines count, from the top down to the first `---`, diff or signature line.
    Keys are matched case-insensitively and returned in canonical case. A `Fixes:` needs a
    commit id; wrapped values are joined back.
    """
    if len(lines) != len(depths):
        raise BadInput(f"body has {len(lines)} lines but {len(depths)} quote depths")
    found: list[Trailer] = []
    count = len(lines)
    i = 0
    while i < count:
        line = lines[i]
        if depths[i] != 0 or len(line) > _MAX_LINE:
            i += 1
            continue
        following = lines[i + 1] if i + 1 < count else None
        if _ends_body(line, following):
            break
        keyed = _key_of(line)
        i += 1
        if keyed is None:
            continue
        key, value = keyed
        if not value and key in _PERSON | _URL_KEYS and i < count and depths[i] == 0:
            # `Link:` alone with the URL on the next line.
            candidate = lines[i].strip()
            wanted = "@" in candidate if key in _PERSON else candidate.startswith("http")
            if wanted and _key_of(candidate) is None and len(candidate) < _MAX_LINE:
                value = candidate
                i += 1
        for _ in range(_MAX_CONTINUATIONS):
            if i >= count or depths[i] != 0:
                break
            more = _continues(key, value, lines[i])
            if more is None:
                break
            value += more
            i += 1
        trailer = _clean(key, value)
        if trailer is not None:
            found.append(trailer)
    return tuple(found)
