"""public-inbox v2 git epochs: the bulk route for backfills (docs/sources.md, docs/sync.md).

A clone holds epochs `git/0.git`, `git/1.git`, … (or is one epoch itself). Each commit on
`master` is one message: its tree holds `m` (the raw message) or `d` (a deletion, commit
message `rm`). The last commit read is kept per epoch; when a purge rewrote history (that
commit is gone, or no longer behind `master`), the epoch is walked again from its start and
the store, keyed by Message-ID, keeps each message once.

Read with the `git` program, on repositories the user cloned: `rev-list` for the commits in
order and one `cat-file --batch` process streaming the blobs (about the speed of the disk).
Nothing from a message is ever passed to git; commit ids are checked to be hex first.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from analyze.errors import BadInput, LimitExceeded
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Problem

from .raw import RawMail

_HEX = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_EPOCH = re.compile(r"(\d+)\.git")


@dataclass
class EpochRead:
    """What a walk of one epoch gave: its new head, and whether history was rewritten."""

    epoch: str
    head: str | None = None
    rewritten: bool = False
    deletions: int = 0
    items: int = 0
    problems: list[Problem] = field(default_factory=list)


def epochs(path: Path) -> list[Path]:
    """The epoch repositories under `path` (`git/N.git`, or `N.git`, or `path` itself), in
    epoch order."""
    for base in (path / "git", path):
        found = [p for p in base.glob("*.git") if _EPOCH.fullmatch(p.name)]
        if found:
            return sorted(found, key=lambda p: int(_EPOCH.fullmatch(p.name).group(1)))  # type: ignore[union-attr]
    if (path / "HEAD").exists() or (path / ".git").exists():
        return [path]
    raise BadInput(f"{path}: no public-inbox epochs (git/N.git) and not a git repository")


def _git(repo: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                              check=False, timeout=600)
    except FileNotFoundError:
        raise BadInput("the git program is needed to read epochs and is not installed") from None
    except subprocess.TimeoutExpired:
        raise BadInput(f"{repo}: git {args[0]} took over 10 minutes") from None
    if done.returncode != 0:
        raise BadInput(f"{repo}: git {args[0]} failed: {done.stderr.strip()[:200]}")
    return done.stdout


def _behind(repo: Path, commit: str, head: str) -> bool:
    try:
        done = subprocess.run(["git", "-C", str(repo), "merge-base", "--is-ancestor", commit, head],
                              capture_output=True, check=False, timeout=600)
    except subprocess.TimeoutExpired:
        raise BadInput(f"{repo}: git merge-base took over 10 minutes") from None
    return done.returncode == 0


def read_epoch(repo: Path, last: str | None, limits: Limits = DEFAULT_LIMITS,
               branch: str = "master") -> tuple[EpochRead, Iterator[RawMail | Problem]]:
    """The messages added to `repo` since commit `last` (all of them when None or when
    history was rewritten past it), oldest first, with what the walk found."""
    read = EpochRead(repo.name)
    head = _git(repo, "rev-parse", "--verify", "--quiet", f"{branch}^{{commit}}").strip()
    if not _HEX.fullmatch(head):
        raise BadInput(f"{repo}: no {branch} branch")
    read.head = head
    since = last if last and _HEX.fullmatch(last) else None
    if since is not None and not _behind(repo, since, head):
        read.rewritten, since = True, None  # a purge rewrote history: walk it all again
    span = f"{since}..{head}" if since else head
    commits = _git(repo, "rev-list", "--reverse", span).split()
    return read, _blobs(repo, commits, read, limits)


def _blobs(repo: Path, commits: list[str], read: EpochRead,
           limits: Limits) -> Iterator[RawMail | Problem]:
    if not commits:
        return
    process = subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    try:
        for commit in commits:
            origin = f"{repo}@{commit[:12]}"
            process.stdin.write(f"{commit}:m\n".encode())
            process.stdin.flush()
            header = process.stdout.readline().split()
            if len(header) == 2 and header[1] == b"missing":
                read.deletions += 1  # a `d` commit: the archive removed a message
                continue
            if len(header) != 3:
                raise BadInput(f"{origin}: git cat-file answered {header!r}")
            size = int(header[2])
            if size > limits.message_bytes:
                left = size + 1
                while left > 0:  # skipped a megabyte at a time, never held
                    chunk = process.stdout.read(min(left, 1 << 20))
                    if not chunk:
                        break
                    left -= len(chunk)
                read.problems.append(Problem(origin, str(LimitExceeded("message", limits.message_bytes))))
                continue
            data = process.stdout.read(size)
            process.stdout.read(1)  # the newline after each object
            read.items += 1
            yield RawMail(data, origin, "eml")
    finally:
        process.stdin.close()
        process.wait(timeout=60)
