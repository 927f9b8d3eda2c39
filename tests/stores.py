"""Stores and mail the tests build: ingesting through the real command, and the benchmark's
netdev-like mail generator (tests/bench/gen_mbox.py) as a module."""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

# tests/conftest.py: which store the store-touching tests run on
ON_POSTGRESQL = os.environ.get("PATCHPERF_TEST_BACKEND", "sqlite") == "postgresql"

GEN_MBOX = Path(__file__).resolve().parent / "bench" / "gen_mbox.py"
# A mail analysis refuses (1,500 MIME parts), and one whose table is past a 30-line limit.
REFUSED = (b"From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: a@b\nSubject: x\nMessage-ID: <parts@x>\n"
           b"Content-Type: multipart/mixed; boundary=\"\"\n\n" + b"--\n\n" * 1500)
LONG_TABLE = (b"From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: a@b\nSubject: [PATCH] t\n"
              b"Message-ID: <table@x>\n\nsize | before | after\n"
              + b"".join(b"%d | %d Mpps | %d Mpps\n" % (i, i + 1, i + 2) for i in range(40)))


def ingest_into(db: str | Path, *paths: Path, codes: tuple[int, ...] = (0,)) -> str | Path:
    """`patchperf --db DB ingest PATHS...` in-process; the store (as given)."""
    from reports.cli import main

    code = main(["--db", str(db), "--quiet", "ingest", *map(str, paths)])
    assert code in codes, f"ingest exited {code}"
    return db


def variants_of(store, key: str) -> list[bytes]:
    """The other copies kept under the message with this key, oldest first (nothing in the
    product reads them back: they are kept so that nothing received is lost)."""
    with store._guard():
        rows = store._conn.execute(
            "SELECT v.raw FROM variants v JOIN messages m ON m.id = v.message_row"
            " WHERE m.message_id = ? ORDER BY v.id", (key,)).fetchall()
    return [bytes(raw) for (raw,) in rows]


def patchwork_of(store, message_id: str) -> dict | None:
    """Patchwork's ids and CI checks kept for a message."""
    import json

    with store._guard():
        row = store._conn.execute("SELECT patch_id, series_id, checks FROM patchwork"
                                  " WHERE message_id = ?", (message_id,)).fetchone()
    return None if row is None else {"patch_id": row[0], "series_id": row[1],
                                     "checks": json.loads(row[2])}


@functools.cache
def gen_mbox() -> ModuleType:
    """tests/bench/gen_mbox.py (a script, not a package module), loaded once."""
    spec = importlib.util.spec_from_file_location("gen_mbox", GEN_MBOX)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def unanalysed_store(root: Path, n: int = 900, db: str | Path | None = None) -> Path | str:
    """A store (`db`, else a file in `root`) of `n` generated mails, the bundled threads,
    REFUSED and LONG_TABLE, stored but not analysed: what `analyze --all` on any number of
    workers must give the same results for."""
    from corpus.bundled import bundled_threads
    from reports.cli import main

    mbox = root / "gen.mbox"
    gen_mbox().generate(mbox, n=n, seed=5)
    odd = root / "odd.mbox"
    odd.write_bytes(REFUSED + LONG_TABLE)
    db = root / "store.db" if db is None else db
    with bundled_threads() as folder:
        assert main(["--db", str(db), "--quiet", "ingest", "--no-analyze", str(mbox), str(odd),
                     *map(str, sorted(folder.glob("*.mbox")))]) == 0
    return db


# The smallest diff that makes a mail a patch (and so a series the TUI and reports list),
# for tests whose point is the mail's prose.
SMALL_PATCH = """\
---
 net/core/dev.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/net/core/dev.c b/net/core/dev.c
--- a/net/core/dev.c
+++ b/net/core/dev.c
@@ -1,3 +1,3 @@
 int a;
-int b;
+int c;
 int d;
"""
