"""Maildir folders: `cur/`, `new/` and `tmp/` side by side, one message per file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

_SUBDIRS = ("cur", "new", "tmp")


def is_maildir(path: Path) -> bool:
    """True when `path` is a folder holding `cur/`, `new/` and `tmp/`."""
    return all((path / sub).is_dir() for sub in _SUBDIRS)


def iter_maildir(path: Path) -> Iterator[Path]:
    """The message files of a Maildir: `cur/` then `new/`, sorted by name.

    `tmp/` holds mail still being delivered and is skipped; so are hidden files (`.` names
    are dovecot and mutt bookkeeping).
    """
    for sub in ("cur", "new"):
        try:
            entries = sorted((path / sub).iterdir())
        except OSError:
            continue
        for entry in entries:
            if not entry.name.startswith(".") and entry.is_file():
                yield entry
