"""Issue 5, acceptance 5 (its first half): `patchperf sync` with nothing new, against a
public-inbox shaped server on 127.0.0.1, timed as a user runs it (a fresh process)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/, for fake_lore

from fake_lore import Archive  # noqa: E402
from werkzeug import Request  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402


def run() -> list[tuple[str, str, str, bool]]:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    archive = Archive()
    for k in range(200):
        archive.add(f"t{k}@x", 2 * k)
        archive.add(f"r{k}@x", 2 * k + 1, root=f"t{k}@x")
    app = Request.application(archive.handle)
    server = make_server("127.0.0.1", 0, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    command = str(Path(sys.executable).with_name("patchperf"))
    env = {**os.environ, "PATCHPERF_LORE_URL": f"http://127.0.0.1:{server.server_port}"}
    try:
        with tempfile.TemporaryDirectory(prefix="patchperf-sync-bench-") as tmp:
            db = str(Path(tmp) / "s.db")
            argv = [command, "--quiet", "sync", "lore:netdev", "--db", db, "--since", "2024-09-01"]
            start = time.perf_counter()
            subprocess.run(argv, env=env, check=True, capture_output=True)
            first = time.perf_counter() - start
            best = float("inf")
            archive.requests.clear()
            for _ in range(3):
                start = time.perf_counter()
                subprocess.run(argv, env=env, check=True, capture_output=True)
                best = min(best, time.perf_counter() - start)
            per_run = len(archive.requests) // 3
    finally:
        server.shutdown()
    return [
        ("(g) patchperf sync, first run (400 messages, 200 threads)",
         f"{first:.2f} s = {len(archive.messages) / first:,.0f} msg/s", "", True),
        ("(g) patchperf sync with nothing new",
         f"{best:.2f} s, {per_run} request(s)", "< 1 s", best < 1.0),
    ]
