"""Local files and folders: every mail they hold, or a Problem naming what is wrong.

A path is a file or a folder (walked recursively in sorted order; a Maildir is recognised).
A file's format comes from its first bytes (ingest.detect), never its name; gzip is streamed
through ingest.gz and sniffed again (lore's `t.mbox.gz` is an mbox inside gzip). mbox and gzip
are read as streams; single messages and pages are read up to their limit and no further.

Nothing here raises on bad input: every problem becomes a `Problem(origin, reason)` and the
rest of the batch goes on. Errors that are bugs (anything not BadInput/OSError) surface.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from analyze.errors import BadInput, LimitExceeded
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Problem

from .detect import BOM, HEAD_BYTES, looks_binary, sniff_format
from .gz import open_gunzip
from .maildir import is_maildir, iter_maildir
from .mboxrd import iter_mboxrd
from .pages import PAGE_FORMATS, page_to_mail
from .raw import RawMail
from .text import text_to_mail

# folders that hold tools, not mail: never walked (hidden ones are skipped anyway)
SKIP_DIRS = frozenset({"venv", "__pycache__", "node_modules", "site-packages"})


class _Prefixed:
    """A stream whose first bytes were already read for sniffing: gives them back first."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = head
        self._rest = rest

    def read(self, size: int = -1) -> bytes:
        if self._head:
            if size is None or size < 0:
                out, self._head = self._head + self._rest.read(), b""
                return out
            out, self._head = self._head[:size], self._head[size:]
            return out
        return self._rest.read(size)


def _read_up_to(stream: BinaryIO | _Prefixed, size: int) -> bytes:
    """At most `size` bytes, looping over short reads."""
    parts, got = [], 0
    while got < size:
        chunk = stream.read(min(size - got, 1 << 20))
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def _os_reason(e: OSError) -> str:
    if e.errno == errno.ENOENT:
        return "no such file or directory"
    if e.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if e.errno == errno.ELOOP:
        return "symbolic link loop"
    return (e.strerror or str(e)).lower()


def _not_mail(origin: str, head: bytes, in_folder: bool) -> Problem:
    """A file that is no mail: rejected when named, a skipped warning inside a folder."""
    reason = "not a mail: binary data" if looks_binary(head) else "not a mail"
    if in_folder:
        return Problem(origin, reason + " (skipped)", skipped=True)
    return Problem(origin, reason)


def _is_blank(head: bytes) -> bool:
    return not head.removeprefix(BOM).strip()


def _single(data: bytes) -> bytes:
    """One message's bytes with a BOM and blank lines before its headers dropped."""
    return data.removeprefix(BOM).lstrip(b" \t\r\n")


def _deliver(
    stream: BinaryIO | _Prefixed,
    head: bytes,
    fmt: str | None,
    origin: str,
    limits: Limits,
    in_folder: bool,
    maildir: bool,
    any_text: bool = False,
) -> Iterator[RawMail | Problem]:
    if fmt is None and any_text and not in_folder and not looks_binary(head):
        data = _read_up_to(stream, limits.message_bytes + 1)
        if len(data) > limits.message_bytes:
            yield Problem(origin, str(LimitExceeded("message", limits.message_bytes)))
        else:
            yield RawMail(text_to_mail(data), origin, "text")
    elif fmt is None:
        yield _not_mail(origin, head, in_folder)
    elif fmt == "mbox":
        yield from iter_mboxrd(stream, origin, limits)  # type: ignore[arg-type]
    elif fmt == "eml":
        data = _read_up_to(stream, limits.message_bytes + 1)
        if len(data) > limits.message_bytes:
            yield Problem(origin, str(LimitExceeded("message", limits.message_bytes)))
        else:
            yield RawMail(_single(data), origin, "maildir" if maildir else "eml")
    elif fmt in PAGE_FORMATS:
        data = _read_up_to(stream, limits.page_bytes + 1)
        if len(data) > limits.page_bytes:
            yield Problem(origin, str(LimitExceeded("page", limits.page_bytes)))
        else:
            yield RawMail(page_to_mail(data, fmt), origin, fmt)
    else:  # gzip inside gzip: real archives never do this, bombs do
        yield Problem(origin, f"not a mail: {fmt} inside gzip")


def _read_open_file(
    f: BinaryIO, origin: str, limits: Limits, in_folder: bool, maildir: bool,
    any_text: bool = False,
) -> Iterator[RawMail | Problem]:
    head = _read_up_to(f, HEAD_BYTES)
    if _is_blank(head):
        yield Problem(origin, "empty file")
        return
    fmt = sniff_format(head)
    if fmt != "gz":
        yield from _deliver(_Prefixed(head, f), head, fmt, origin, limits, in_folder, maildir,
                            any_text)
        return
    try:
        stream = open_gunzip(_Prefixed(head, f), origin, limits.decompressed_bytes)  # type: ignore[arg-type]
        inner = _read_up_to(stream, HEAD_BYTES)
        if _is_blank(inner):
            yield Problem(origin, "empty file (after gunzip)")
            return
        inner_fmt = sniff_format(inner)
        yield from _deliver(
            _Prefixed(inner, stream), inner, inner_fmt, origin, limits, in_folder, maildir,
            any_text,
        )
    except LimitExceeded as e:
        yield Problem(origin, f"decompressed size exceeds the limit of {e.limit:,} bytes")


def read_file(
    path: Path, limits: Limits = DEFAULT_LIMITS, in_folder: bool = False, maildir: bool = False,
    any_text: bool = False,
) -> Iterator[RawMail | Problem]:
    """The mail(s) in one file; `in_folder` marks non-mail as skipped, `maildir` sets fmt;
    `any_text` reads a file of text that is no mail as one message's body (ingest.text)."""
    origin = str(path)
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            yield Problem(origin, "not a regular file")
            return
        if st.st_size == 0:
            yield Problem(origin, "empty file")
            return
        with open(path, "rb") as f:
            yield from _read_open_file(f, origin, limits, in_folder, maildir, any_text)
    except OSError as e:
        yield Problem(origin, _os_reason(e))
    except BadInput as e:
        yield Problem(origin, str(e))


def _listing(folder: Path) -> Iterator[tuple[Path, bool] | Path | Problem]:
    """One folder: its Maildir messages, or its entries in sorted order."""
    try:
        if is_maildir(folder):
            return iter([(f, True) for f in iter_maildir(folder)])
        return iter(sorted(folder.iterdir()))
    except OSError as e:
        return iter([Problem(str(folder), _os_reason(e))])


def _walk(folder: Path) -> Iterator[tuple[Path, bool] | Problem]:
    """(file, in_maildir) for every file under `folder` in sorted path order; a Problem for
    a folder that cannot be listed. An explicit stack: no recursion limit to hit on a deep
    tree. Symlinked folders are not followed (they can loop)."""
    stack = [_listing(folder)]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
        elif isinstance(entry, tuple | Problem):
            yield entry
        elif entry.name.startswith(".") or entry.name in SKIP_DIRS:
            continue
        elif entry.is_dir():
            if not entry.is_symlink():
                stack.append(_listing(entry))
        else:
            yield entry, False


def read_folder(folder: Path, limits: Limits = DEFAULT_LIMITS) -> Iterator[RawMail | Problem]:
    """Every mail under `folder`; a Problem per file that is no mail, and one when none is."""
    found = False
    for walked in _walk(folder):
        if isinstance(walked, Problem):
            yield walked
            continue
        path, maildir = walked
        for item in read_file(path, limits, in_folder=True, maildir=maildir):
            found = found or isinstance(item, RawMail)
            yield item
    if not found:
        yield Problem(str(folder), "no mail in this folder")


STDIN = "-"


def read_sources(
    paths: Iterable[str | os.PathLike[str]], limits: Limits = DEFAULT_LIMITS,
    any_text: bool = False,
) -> Iterator[RawMail | Problem]:
    """Every mail in the given files and folders, in order; a Problem for each bad input.
    `-` is standard input. With `any_text` (`patchperf analyze`), a named file or standard
    input that holds text but no mail is read as one message's body; in a folder such a file
    is still skipped."""
    for given in paths:
        if os.fspath(given) == STDIN:
            try:
                yield from _read_open_file(sys.stdin.buffer, "<stdin>", limits, False, False,
                                           any_text)
            except BadInput as e:
                yield Problem("<stdin>", str(e))
            continue
        path = Path(given)
        try:
            is_dir = stat.S_ISDIR(path.stat().st_mode)
        except OSError as e:  # missing, unreadable, or a symbolic link loop: say which
            yield Problem(str(path), _os_reason(e))
            continue
        if is_dir:
            yield from read_folder(path, limits)
        else:
            yield from read_file(path, limits, any_text=any_text)
