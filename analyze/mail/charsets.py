"""Turning mail bytes into text: the declared charset, then utf-8, windows-1252, latin-1.

Mail in the wild declares charsets that do not exist (Patchwork fixture 0010 says
`charset=invalid`), sends raw 8-bit headers (0014, b4's save-8bit-clean) and mislabels
windows-1252 as iso-8859-1. latin-1 decodes any byte string, so the chain always ends.
"""

from __future__ import annotations

import codecs

_FALLBACKS = ("utf-8", "windows-1252", "latin-1")
_NOT_CHARSETS = {"undefined", "punycode", "idna", "raw-unicode-escape", "unicode-escape"}

def known_charset(name: str | None) -> str | None:
    """The Python codec name for a declared charset, or None if Python has no such codec."""
    if not name:
        return None
    name = name.strip().strip('"').lower()
    if name in ("unknown-8bit", "x-unknown", "default", "us-ascii"):
        return "utf-8" if name != "us-ascii" else "ascii"
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError):
        return None
    # only charsets: not bytes-to-bytes codecs (`base64`, `zlib`) nor `undefined`
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_CHARSETS:
        return None
    return info.name


def decode_bytes(data: bytes, declared: str | None = None) -> str:
    """Decode `data` with the declared charset if it works, else the fallback chain."""
    first = known_charset(declared)
    for name in ((first,) if first else ()) + _FALLBACKS:
        try:
            return data.decode(name)
        except (ValueError, LookupError):
            # UnicodeDecodeError, and the plain UnicodeError of codecs that are no charset
            # (`charset=undefined` always fails, `punycode` and `idna` on most bytes)
            continue
    raise AssertionError("latin-1 decodes every byte string")  # pragma: no cover

