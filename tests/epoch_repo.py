"""A public-inbox v2 epoch made with `git fast-import`, for the epoch tests and the fuzzer."""

from __future__ import annotations

import subprocess
from pathlib import Path


def fast_import(repo: Path, commits: list[tuple[str, bytes]], *, fresh_root: bool = False) -> None:
    """Append commits to master: ("m", raw) adds a message, ("d", raw) deletes one. With
    `fresh_root`, master starts over (a purge that rewrote history)."""
    existing = repo.exists()
    if not existing:
        subprocess.run(["git", "init", "-q", "--bare", "-b", "master", str(repo)], check=True)
    stream = bytearray()
    for k, (kind, raw) in enumerate(commits):
        stream += b"commit refs/heads/master\n"
        stream += f"committer A <a@x> {1700000000 + k} +0000\n".encode()
        message = b"rm" if kind == "d" else b"m"
        stream += b"data %d\n%s\n" % (len(message), message)
        if k == 0 and existing and not fresh_root:
            stream += b"from refs/heads/master^0\n"  # continue the branch
        stream += b"deleteall\n"
        stream += b"M 100644 inline %s\ndata %d\n%s\n" % (kind.encode(), len(raw), raw)
    force = ["--force"] if fresh_root else []
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet", *force],
                   input=bytes(stream), check=True)
