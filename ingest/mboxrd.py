"""A streaming mboxrd splitter (every mbox is read as mboxrd; docs/sources.md).

A message starts at a `From ` line that opens the file or follows a blank line; that
separator line is dropped, and so is the one blank line in front of the next separator.
Body lines matching `^>+From ` lose exactly one `>` (`>>From ` becomes `>From `).
Python's `mailbox.mbox` does neither, hence this module.

The reader works on chunks, never on the whole file: a lore `t.mbox.gz` or a year of a list can
be far larger than memory should hold, and one hostile message must not be buffered whole.

API: `iter_mboxrd` yields `RawMail` for each good message and `Problem` (origin `path#N`) for a
message that cannot be delivered (too large, empty, truncated inside its header block); the
rest of the file is still delivered. It raises only `BadInput` (or `LimitExceeded`), and only
for a fault of the whole stream: not an mbox at all, a read error, or an error the stream
itself raises (a truncated or oversized gzip stream from `ingest.gz`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO

from analyze.errors import BadInput, LimitExceeded
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Problem

from .detect import BOM, is_header_line
from .raw import RawMail

CHUNK = 1 << 20
_SEP = re.compile(rb"\n\r?\nFrom ")  # end of a line, a blank line, then a separator
_OVERLAP = 7  # a separator match is 8 bytes long at most: keep 7 across chunk borders
_ESCAPED = re.compile(rb"^>(>*From )", re.MULTILINE)


def _read(stream: BinaryIO, size: int) -> bytes:
    try:
        return stream.read(size) or b""
    except OSError as e:
        raise BadInput(f"read error: {e.strerror or e}") from e


def unescape(data: bytes) -> bytes:
    """Undo mboxrd quoting: strip one `>` from every line matching `^>+From `."""
    return _ESCAPED.sub(rb"\1", data) if b">From " in data else data


def escape(data: bytes) -> bytes:
    """mboxrd quoting, the inverse of `unescape`: add one `>` to lines matching `^>*From `."""
    return re.sub(rb"^(>*From )", rb">\1", data, flags=re.MULTILINE)


def _truncated(data: bytes) -> bool:
    """The message ends inside its header block: no blank line, and the last line is no
    header line or is cut before its newline (a download that stopped mid-header)."""
    if b"\n\n" in data or b"\n\r\n" in data or data.startswith((b"\n", b"\r\n")):
        return False
    if not data.endswith(b"\n"):
        return True
    last = data.rstrip(b"\r\n").rsplit(b"\n", 1)[-1].rstrip(b"\r")
    return not is_header_line(last)


def _start(stream: BinaryIO) -> bytearray:
    """The stream's bytes from its first separator on, a BOM and leading blank lines dropped."""
    buf = bytearray()
    while True:
        chunk = _read(stream, CHUNK)
        buf += chunk
        if buf.startswith(BOM):
            del buf[: len(BOM)]
        stripped = buf.lstrip(b" \t\r\n")
        if stripped or not chunk:
            break
        buf.clear()
    if not stripped:
        return bytearray()
    while len(stripped) < 5 and chunk:
        chunk = _read(stream, CHUNK)
        stripped += chunk
    if not stripped.startswith(b"From "):
        raise BadInput("not an mbox: the first line is not a 'From ' line")
    return stripped


def _split(stream: BinaryIO, limit: int) -> Iterator[bytes | None]:
    """Each message's bytes (separator dropped, not unescaped); None for one over `limit`."""
    buf = _start(stream)
    if not buf:
        return
    eof = False
    pos = 0  # where the current separator line begins in buf
    while True:
        nl = buf.find(b"\n", pos)
        endless = False
        while nl < 0 and not eof:
            chunk = _read(stream, CHUNK)
            eof = not chunk
            del buf[:pos]
            pos = 0
            seen = len(buf)
            buf += chunk
            nl = buf.find(b"\n", seen)
            if nl < 0 and len(buf) > limit:
                # one endless separator line: the message is over the limit whatever follows
                endless = True
                del buf[:]
        if nl < 0:
            yield None if endless or len(buf) > limit else b""
            return
        body = nl + 1
        search = nl
        oversize = endless
        while True:
            m = _SEP.search(buf, search)
            if m or eof:
                break
            if not oversize and len(buf) - body > limit:
                oversize = True
            if oversize:  # keep only what a separator spanning the chunk border needs
                keep = max(body, len(buf) - _OVERLAP)
                del buf[:keep]
                body = search = pos = 0
            else:
                search = max(nl, len(buf) - _OVERLAP)
            chunk = _read(stream, CHUNK)
            eof = not chunk
            if pos:
                del buf[:pos]
                body -= pos
                search -= pos
                nl -= pos
                pos = 0
            buf += chunk
        end = m.start() + 1 if m else len(buf)
        if oversize or end - body > limit:
            yield None
        else:
            yield bytes(buf[body:end])
        if not m:
            return
        pos = m.end() - 5


def _drop_final_blank(data: bytes) -> bytes:
    """mbox writers put a blank line after every message, the last one too."""
    if data.endswith(b"\n\r\n"):
        return data[:-2]
    if data.endswith(b"\n\n"):
        return data[:-1]
    return data


def iter_mboxrd(
    stream: BinaryIO, origin: str, limits: Limits = DEFAULT_LIMITS
) -> Iterator[RawMail | Problem]:
    """Split an mboxrd stream into `RawMail(data, f"{origin}#{n}", "mbox")`, n from 1.

    A message that cannot be delivered becomes `Problem(f"{origin}#{n}", reason)` and the
    rest of the file goes on. Raises `BadInput` only when the whole stream is at fault.
    """
    pending: bytes | None = None
    n = 0
    for data in _split(stream, limits.message_bytes):
        if n:
            yield _item(pending, f"{origin}#{n}", limits, last=False)
        n += 1
        pending = data
    if n:
        yield _item(pending, f"{origin}#{n}", limits, last=True)


def _item(data: bytes | None, origin: str, limits: Limits, last: bool) -> RawMail | Problem:
    if data is None:
        return Problem(origin, str(LimitExceeded("message", limits.message_bytes)))
    if last:
        data = _drop_final_blank(data)
    if not data.strip():
        return Problem(origin, "empty message")
    if last and _truncated(data):
        return Problem(origin, "truncated message: the file ends inside its header block")
    return RawMail(unescape(data), origin, "mbox")
