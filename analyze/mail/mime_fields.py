"""What decoding asks of a parsed mail's headers, read once per part and without the stdlib's
general machinery where the header is plain.

The stdlib answers `msg.get(name)` by walking every header, lowercasing each name, and
`get_content_charset` / `get_filename` by parsing the whole parameter list with RFC 2231 in
mind: about a fifth of decoding a mail, for the dozen lookups decoding makes. Here each part's
headers are indexed once (the first of each name, as `get` returns it), and a Content-Type or
Content-Disposition whose parameters are plain (`charset=UTF-8; format=flowed`, no quoted
`;`, no backslash, no RFC 2231 `*`, no comment, no `name`) is read directly. Anything else is
answered by the stdlib itself, so the results are the stdlib's in every case
(tests/test_mime_fields.py compares the two on generated and real headers).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from email.message import Message as EmailMessage
from typing import Any

# A parameter list the stdlib reads as plain `key=value` pairs: a `type/subtype` with no
# blank inside, then values with no quote holding `;` or `\`, no RFC 2231 `*`, no comment,
# no `<...>` (which the stdlib unquotes too). Checked on the whole value: anything else goes
# to the stdlib. (Each piece is told from the next by one character, so no run of blanks can
# be split between two of them in many ways: a hostile value costs linear time.)
_PLAIN_PARAMS = re.compile(
    r'\s*[^;"\\*()<>=/\s]+/[^;"\\*()<>=/\s]+(?:\s*;\s*[A-Za-z0-9_.-]+\s*=\s*'
    r'(?:"[^";\\*()<>]*"|[^;"\\*()<>\s]*(?:\s+[^;"\\*()<>\s]+)*))*[\s;]*')
# Longer values are no plain header (a real Content-Type is a few dozen characters): the
# stdlib reads them, as it did before this module.
_MAX_PLAIN = 512
_PARAM = re.compile(r'\s*([A-Za-z0-9_.-]+)\s*=\s*(?:"([^"]*)"|([^;]*?))\s*(?:;|$)')


class Fields:
    """One MIME part's headers, each name's first value, as `part.get(name)` returns it."""

    __slots__ = ("_part", "_raw")

    def __init__(self, part: EmailMessage) -> None:
        self._part = part
        raw: dict[str, tuple[str, Any]] = {}
        items: Any = part.raw_items()  # (values are str or Header, whatever the hints say)
        for name, value in items:
            raw.setdefault(name.lower(), (name, value))
        self._raw = raw

    def get(self, name: str) -> Any:
        found = self._raw.get(name.lower())
        if found is None:
            return None
        # (the policy's own fetch: compat32 turns raw 8-bit bytes into a Header object, which
        # its type hints do not say: called untyped, so the compiled build does not refuse it)
        policy: Any = self._part.policy
        return policy.header_fetch_parse(*found)

    def content_type(self) -> str:
        """`get_content_type()`: lowercased `maintype/subtype`, the default when absent,
        text/plain when malformed."""
        value = self.get("content-type")
        if value is None:
            return self._part.get_default_type()
        if not isinstance(value, str):
            return self._part.get_content_type()
        ctype = value.split(";", 1)[0].strip().lower()
        return ctype if ctype.count("/") == 1 else "text/plain"

    def charset(self, fallback: Callable[[], str | None]) -> str | None:
        """`get_content_charset()`: the charset parameter, lowercased; `fallback` (the stdlib)
        when the header is not plain."""
        params = self._plain_params("content-type")
        if params is None:
            return fallback()
        value = params.get("charset")
        if value is None or not value.isascii():
            return None
        return value.lower()

    def filename(self, fallback: Callable[[], str | None]) -> str | None:
        """`get_filename()`: None when neither header can name a file; else the stdlib."""
        for header in ("content-disposition", "content-type"):
            value = self.get(header)
            if value is not None and (not isinstance(value, str) or "name" in value.lower()):
                return fallback()
        return None

    def _plain_params(self, header: str) -> dict[str, str] | None:
        value = self.get(header)
        if value is None:
            return {}
        if not isinstance(value, str) or len(value) > _MAX_PLAIN or "name" in value.lower() \
                or not _PLAIN_PARAMS.fullmatch(value):
            return None
        rest = value.partition(";")[2]
        params: dict[str, str] = {}
        pos = 0
        while pos < len(rest):
            if rest[pos] == ";" or rest[pos].isspace():
                pos += 1
                continue
            match = _PARAM.match(rest, pos)
            if match is None:
                return None  # a shape the pattern above let through: ask the stdlib
            key = match.group(1).lower()
            text = match.group(2) if match.group(2) is not None else match.group(3)
            params.setdefault(key, text.strip() if match.group(2) is None else text)
            pos = match.end()
        return params
