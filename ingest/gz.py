"""Bounded streaming gunzip: a file-like that never yields more than the limit allows.

lore serves `t.mbox.gz` as gzip'd mboxrd and may send several gzip members back to back
(docs/sources.md), so every member is read. A small file can inflate to gigabytes (a gzip bomb):
output is produced in bounded steps and counted, and reading stops at the limit.
"""

from __future__ import annotations

import io
import zlib
from typing import BinaryIO

from analyze.errors import BadInput, LimitExceeded

IN_CHUNK = 64 * 1024
OUT_CHUNK = 1 << 20


class GunzipReader(io.RawIOBase):
    """Read the decompressed bytes of `raw` (one or more gzip members).

    Raises `LimitExceeded(f"decompressed {origin}", limit)` once the output passes `limit`
    bytes, `BadInput("truncated gzip stream")` when the input ends inside a member and
    `BadInput("corrupt gzip stream: ...")` on bad data.
    """

    def __init__(self, raw: BinaryIO, origin: str, limit: int) -> None:
        super().__init__()
        self._raw = raw
        self._origin = origin
        self._limit = limit
        self._inflate = zlib.decompressobj(wbits=31)
        self._in_member = False
        self._carry = b""  # input left over after a member ended: the next member's start
        self._pending = memoryview(b"")
        self._produced = 0
        self._done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self._pending and not self._done:
            self._step()
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def _read_raw(self) -> bytes:
        try:
            return self._raw.read(IN_CHUNK) or b""
        except OSError as e:
            raise BadInput(f"read error: {e.strerror or e}") from e

    def _step(self) -> None:
        inflate = self._inflate
        if inflate.unconsumed_tail:
            data = inflate.unconsumed_tail
        elif self._carry:
            data, self._carry = self._carry, b""
        else:
            data = self._read_raw()
            if not data:
                if self._in_member:
                    self._drain()
                    return
                self._done = True
                return
        if not self._in_member:
            # gzip(1) accepts zero padding after the last member (tape blocking)
            data = data.lstrip(b"\0")
            if not data:
                return
            self._in_member = True
        self._inflate_step(data)

    def _drain(self) -> None:
        """At the end of the input: output zlib still holds, or the member is cut short."""
        if not self._inflate_step(b"") and self._in_member:
            raise BadInput("truncated gzip stream")

    def _inflate_step(self, data: bytes) -> int:
        inflate = self._inflate
        try:
            out = inflate.decompress(data, OUT_CHUNK)
        except zlib.error as e:
            raise BadInput(f"corrupt gzip stream: {e}") from e
        if inflate.eof:
            self._carry = inflate.unused_data
            self._inflate = zlib.decompressobj(wbits=31)
            self._in_member = False
        self._produced += len(out)
        if self._produced > self._limit:
            raise LimitExceeded(f"decompressed {self._origin}", self._limit)
        self._pending = memoryview(out)
        return len(out)


def open_gunzip(raw: BinaryIO, origin: str, limit: int) -> io.BufferedReader:
    """A buffered reader over `GunzipReader`, for callers that read lines or small pieces."""
    return io.BufferedReader(GunzipReader(raw, origin, limit), buffer_size=OUT_CHUNK)
