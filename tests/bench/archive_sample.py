"""Issue 20 acceptance 4: the claim readers on a real public-inbox archive.

Backfills one list's real public-inbox git epochs (the io_uring list's epoch 0, cloned
outside the project, is `linux-mailinglist-archives/io-uring.vger.kernel.org.0`) into a fresh temporary SQLite store with the real CLI,
`patchperf sync lore:LIST --git DIR --jobs N`, and times it; then reads the store and prints
the messages stored, the claims, the messages with claims and the sync's messages a second;
and draws a seeded random sample of claims into a Markdown table to be judged by hand
against the definition of a claim (docs/claims.md; the `judgement` and `why` columns are
left empty).

The sample depends only on the store's claim ids and the seed: the n ids that rank first
by SHA-256 of seed and id. The mirror is never written: the script links it into
a temporary folder as `git/N.git`, the layout `sync --git` reads. No mail is copied into
the project; the table holds only each claim's quoted line.

    .venv/bin/python tests/bench/archive_sample.py --git CLONE.git -j "$(nproc)"
    .venv/bin/python tests/bench/archive_sample.py --store KEPT.db --seed 7   # no sync
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from corpus.store import Store  # noqa: E402

PATCHPERF = Path(sys.executable).with_name("patchperf")
COLUMNS = ("#", "claim id", "Message-ID", "line: quote", "metric", "unit", "baseline",
           "patched", "stated change", "direction", "condition", "judgement", "why")


def link_epochs(repos: list[Path], folder: Path) -> Path:
    """`folder/git/N.git` -> each repository in the order given (N from 0): the layout
    `patchperf sync --git` reads, without touching the clones."""
    git = folder / "git"
    git.mkdir(parents=True)
    for n, repo in enumerate(repos):
        (git / f"{n}.git").symlink_to(repo.resolve(), target_is_directory=True)
    return folder


def run_sync(db: Path, feed: str, inbox: Path, jobs: int) -> tuple[float, int, str]:
    """Wall seconds, exit code and stdout of the backfill (0: done; 1: done, some mail
    rejected, each named on stderr; anything else stops the script)."""
    argv = [str(PATCHPERF), "--db", str(db), "sync", feed, "--git", str(inbox), "--jobs", str(jobs)]
    print("$ " + " ".join(argv), file=sys.stderr)
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.stderr:
        lines = done.stderr.strip().splitlines()
        tail = lines[-15:]
        print(f"sync stderr ({len(lines)} lines, last {len(tail)}):", file=sys.stderr)
        print("\n".join("  " + line for line in tail), file=sys.stderr)
    if done.returncode not in (0, 1):
        sys.exit(f"sync failed with exit {done.returncode}")
    return seconds, done.returncode, done.stdout.strip()


def store_figures(db: Path) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """What the store holds, and its claims (one per id, as `patchperf claims` lists them)."""
    with Store.open(db, readonly=True) as store:
        counts = store.counts()
        claims = store.claim_docs()
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        analysed = conn.execute("SELECT count(*) FROM analyses").fetchone()[0]
        rejected = conn.execute("SELECT count(*) FROM rejections").fetchone()[0]
        rows_with_claims = conn.execute("SELECT count(DISTINCT found_row) FROM claims").fetchone()[0]
        stored_rows = conn.execute("SELECT count(*) FROM claims").fetchone()[0]
    first_hand = {c["message_id"] or c["found_in"] for c in claims}
    read_in = {c["found_in"] for c in claims}
    figures = {
        "messages stored": counts.messages,
        "variants": counts.variants,
        "analysed": analysed,
        "refused by analysis": rejected,
        "series": counts.series,
        "claims (distinct ids)": len(claims),
        "claim rows (each message a claim was read from)": stored_rows,
        "messages with claims (read from, found_in)": len(read_in),
        "messages with claims (stored messages holding claim rows)": rows_with_claims,
        "messages with claims (first written in, message_id)": len(first_hand),
        "claims with a baseline and a patched figure": sum(
            c.get("baseline") is not None and c.get("patched") is not None for c in claims),
    }
    return figures, claims


def cell(value: Any) -> str:
    """A value as one Markdown table cell: pipes escaped, line breaks shown, HTML inert."""
    if value is None:
        return ""
    if isinstance(value, float):
        text = str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    elif isinstance(value, dict):
        text = ", ".join(f"{k}={v}" for k, v in sorted(value.items()))
    else:
        text = str(value)
    text = text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    return "<br>".join(part.strip() for part in text.split("\n")) if "\n" in text else text


def sample(claims: list[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """`n` claims drawn with `seed` (all of them if fewer): those whose ids rank first by
    SHA-256 of the seed and the id. A uniform random sample that depends only on the set
    of ids, and that a store with a few claims more or fewer (the readers changed) keeps
    mostly the same, so judgements carry over between runs."""
    def rank(claim: dict[str, Any]) -> bytes:
        return hashlib.sha256(f"{seed}:{claim['id']}".encode()).digest()
    return sorted(claims, key=rank)[:n]


def table(rows: Iterable[dict[str, Any]]) -> list[str]:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for i, c in enumerate(rows, 1):
        quote = f"{c.get('line')}: {c.get('quote') or ''}"
        stated = c.get("stated_change_pct")
        values = [i, c["id"], c.get("message_id") or c.get("found_in"), quote, c.get("metric"),
                  c.get("unit"), c.get("baseline"), c.get("patched"),
                  None if stated is None else f"{'+' if stated >= 0 else ''}{cell(stated)} %", c.get("direction"),
                  c.get("condition") or None, "", ""]
        lines.append("| " + " | ".join(cell(v) for v in values) + " |")
    return lines


def provenance() -> str:
    """The commit the readers ran from, whether the tree was edited, and the compiled lane."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                              check=False)
        return done.stdout.strip()
    head = git("rev-parse", "--short=12", "HEAD") or "unknown"
    dirty = [line[3:] for line in git("status", "--porcelain").splitlines()
             if line[3:] != "tests/bench/archive_sample.py"]
    try:
        from analyze.compiled import build_dir, is_fresh
        lane = "compiled" if is_fresh(build_dir()) and not os.environ.get("PATCHPERF_PURE") else "pure Python"
    except Exception:  # noqa: BLE001 - the lane is only reported
        lane = "unknown"
    diff = hashlib.sha256(git("diff", "HEAD", "--", ".", ":!tests/bench/archive_sample.py").encode())
    edited = f", with {len(dirty)} uncommitted paths (diff sha256 {diff.hexdigest()[:12]})" if dirty else ""
    return f"commit {head}{edited}; claim readers: {lane}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--git", type=Path, action="append", default=None, metavar="REPO",
                        help="an epoch repository (a bare clone), repeatable, in epoch order")
    parser.add_argument("--feed", default="lore:io-uring", help="the feed synced (default lore:io-uring)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="sync's worker processes (default: one a core)")
    parser.add_argument("-n", type=int, default=100, help="claims in the sample (default 100)")
    parser.add_argument("--seed", type=int, default=20, help="the sample's seed (default 20)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/archive-sample.md"),
                        help="the Markdown table (default /tmp/archive-sample.md)")
    parser.add_argument("--keep", type=Path, default=None, metavar="DB",
                        help="keep the synced store at DB (a file that must not exist yet)")
    parser.add_argument("--store", type=Path, default=None, metavar="DB",
                        help="sample this store as it is: no sync, no timing")
    args = parser.parse_args(argv)

    seconds = code = None
    summary = ""
    with tempfile.TemporaryDirectory(prefix="patchperf-archive-") as tmp:
        if args.store is not None:
            db = args.store
            if not db.is_file():
                sys.exit(f"{db}: no such store")
        else:
            if not args.git:
                sys.exit("--git REPO: the epoch to sync (or --store DB to sample a kept store)")
            repos = args.git
            for repo in repos:
                if not (repo / "HEAD").exists():
                    sys.exit(f"{repo}: not a bare git repository")
            if args.keep is not None and args.keep.exists():
                sys.exit(f"{args.keep}: exists; --keep wants a new file")
            db = args.keep or Path(tmp) / "archive.db"
            inbox = link_epochs(repos, Path(tmp) / "inbox")
            seconds, code, summary = run_sync(db, args.feed, inbox, args.jobs)
        figures, claims = store_figures(db)
        drawn = sample(claims, args.n, args.seed)

    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    report = [f"{provenance()}; {when}"]
    if seconds is not None:
        report.append(f"sync: `{summary}` (exit {code})")
        report.append(f"sync wall time: {seconds:,.1f} s, --jobs {args.jobs}")
        report.append(f"sync messages/second: {figures['messages stored'] / seconds:,.0f}")
    width = max(len(k) for k in figures)
    report += [f"{k:<{width}}  {v:,}" for k, v in figures.items()]
    report.append(f"sample: {len(drawn)} of {len(claims):,} claims, seed {args.seed}")
    print("\n".join(report))

    heading = [f"# Claims sampled from a real archive ({args.feed})", "",
               "Judged against the definition of a claim (docs/claims.md): **right** when it is",
               "a claim by its rules and its figures, unit and direction match the mail.", "",
               "```",
               *report, "```", ""]
    args.out.write_text("\n".join(heading + table(drawn)) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
