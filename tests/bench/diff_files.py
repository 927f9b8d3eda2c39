"""Issue 32, item 13: patches whose diff unidiff reads but the store holds no files for.

For every stored patch (analysis kind `patch`) of each store, the raw mail's first text part
is given to unidiff from its first `diff --git` line on, as a reader of the mail would; when
unidiff finds files there and the store's analysis holds none, the patch counts. Prints the
count per store and the first few Message-IDs.

    .venv/bin/python tests/bench/diff_files.py STORE.db [STORE.db ...]
"""

from __future__ import annotations

import email
import email.policy
import json
import sqlite3
import sys
from pathlib import Path

from unidiff import PatchSet, UnidiffParseError


def _unidiff_files(raw: bytes) -> int:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    try:
        part = msg.get_body(("plain",))
        text = part.get_content() if part is not None else ""
    except (LookupError, KeyError, ValueError):
        return 0
    at = text.find("\ndiff --git ")
    if at < 0:
        return 0
    body = text[at + 1:].split("\n-- \n", 1)[0]
    try:
        return len(PatchSet(body))
    except (UnidiffParseError, ValueError):
        return 0


def count(db: Path) -> tuple[int, int, list[str]]:
    """(patches, patches unidiff reads files in that the store holds none for, examples)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute("SELECT m.message_id, m.raw, a.doc FROM analyses a "
                       "JOIN messages m ON m.id = a.message_row WHERE a.kind = 'patch'")
    patches = lost = 0
    examples: list[str] = []
    for mid, raw, doc in rows:
        patches += 1
        patch = json.loads(doc).get("patch")
        if patch and patch.get("files"):
            continue
        if _unidiff_files(raw):
            lost += 1
            if len(examples) < 5:
                examples.append(mid)
    return patches, lost, examples


def main(argv: list[str]) -> int:
    print("| store | patches | unidiff reads files, the store has none |")
    print("|---|---|---|")
    for name in argv:
        patches, lost, examples = count(Path(name))
        print(f"| {Path(name).name} | {patches} | {lost} |" + (f" e.g. {', '.join(examples[:3])}" if examples else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
