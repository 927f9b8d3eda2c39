"""`make eval-real`: the claim readers scored on real mail, the development corpus of annotated
posts in ../shared/corpus/real (docs/claims.md), overall and per group (io-, nf-, iwl-, nd-,
arc-, blk-), and for the two parts of the shared split (../shared/tools/split_corpus.py: the
arc- and blk- threads, a seeded third held out): tune on `dev`, quote both.

The matching is the shared scorer's own (../shared/tools/score_claims.py, loaded as a module:
`scorable`, `matches`, the `Source:` line stripped, one-to-one in gold order); only the reading
differs: each post is analysed in this process, through the same path `patchperf analyze FILE
--format json` takes (corpus.jobs.files.analyze_files, then the JSON document), instead of one
process per post. `--cli PATCHPERF` runs the shared scorer itself, to check the two agree.

    python tests/eval_real.py [DIR] [-q] [--group io] [--cli .venv/bin/patchperf]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PATCHPERF_SHARED", REPO.parent / "shared"))
CORPUS = SHARED / "corpus" / "real"
SCORER = SHARED / "tools" / "score_claims.py"
SPLITTER = SHARED / "tools" / "split_corpus.py"
GROUPS = ("io", "nf", "iwl", "nd", "arc", "blk")
SHOWN = ("metric", "unit", "baseline", "patched", "stated_change_pct", "condition")


def scorer(path: Path = SCORER) -> ModuleType:
    """The shared scorer as a module: its matching rules, exactly."""
    spec = importlib.util.spec_from_file_location("score_claims", path)
    assert spec and spec.loader, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class Post:
    name: str
    gold: tuple[dict[str, Any], ...]  # scorable gold claims
    predicted: tuple[dict[str, Any], ...]  # scorable predicted claims
    missed: tuple[dict[str, Any], ...]
    spurious: tuple[dict[str, Any], ...]
    failed: str = ""  # why the post could not be read at all

    @property
    def group(self) -> str:
        return self.name.split("-", 1)[0]


@dataclass(frozen=True)
class Score:
    gold: int
    found: int
    predicted: int
    right: int
    failed: int

    @property
    def recall(self) -> float:
        return self.found / self.gold if self.gold else 1.0

    @property
    def precision(self) -> float:
        return self.right / self.predicted if self.predicted else 1.0

    def line(self, label: str) -> str:
        return (f"{label:8} precision {self.precision:.3f} ({self.right}/{self.predicted})  "
                f"recall {self.recall:.3f} ({self.found}/{self.gold})"
                + (f"  failed files {self.failed}" if self.failed else ""))


def _predicted(text: bytes, name: str) -> list[dict[str, Any]]:
    """The claims `patchperf analyze FILE --format json` prints for a post's bytes."""
    from analyze.errors import PatchperfError
    from corpus.jobs.files import analyze_files
    from reports.document import analysis_document

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(text)
        analysis = analyze_files([path])
        if not analysis.messages:
            reasons = "; ".join(p.reason for p in analysis.problems) or "no message"
            raise PatchperfError(reasons)
        # through JSON, as the scorer reads it (floats, nulls, keys)
        return json.loads(json.dumps(analysis_document(analysis)["claims"]))


def score_post(gold_path: Path, rules: ModuleType) -> Post:
    from analyze.errors import PatchperfError

    post = gold_path.with_suffix(".txt")
    gold = [g for g in json.loads(gold_path.read_text()).get("claims", []) if rules.scorable(g)]
    text = post.read_bytes()
    if text.startswith(b"Source: "):  # the scorer's own rule: the tool sees only the post
        text = text.split(b"\n\n", 1)[1] if b"\n\n" in text else b""
    try:
        predicted = [p for p in _predicted(text, post.name)
                     if isinstance(p, dict) and rules.scorable(p)]
    except PatchperfError as exc:
        return Post(post.stem, tuple(gold), (), tuple(gold), (), failed=str(exc))
    used: set[int] = set()
    missed = []
    for g in gold:  # one-to-one: each gold claim takes the first unused prediction matching it
        hit = next((i for i, p in enumerate(predicted) if i not in used and rules.matches(p, g)),
                   None)
        if hit is None:
            missed.append(g)
        else:
            used.add(hit)
    spurious = [p for i, p in enumerate(predicted) if i not in used]
    return Post(post.stem, tuple(gold), tuple(predicted), tuple(missed), tuple(spurious))


def evaluate(folder: Path = CORPUS, groups: Sequence[str] = GROUPS) -> list[Post]:
    rules = scorer()
    paths = sorted(p for p in folder.glob("*.json")
                   if p.with_suffix(".txt").exists() and p.name.split("-", 1)[0] in groups)
    return [score_post(p, rules) for p in paths]


def tally(posts: Iterable[Post]) -> Score:
    posts = list(posts)
    return Score(
        gold=sum(len(p.gold) for p in posts),
        found=sum(len(p.gold) - len(p.missed) for p in posts),
        predicted=sum(len(p.predicted) for p in posts),
        right=sum(len(p.predicted) - len(p.spurious) for p in posts),
        failed=sum(bool(p.failed) for p in posts),
    )


def held_out(folder: Path = CORPUS) -> frozenset[str]:
    """The posts the shared split holds out (their names, without suffix): the splitter
    itself, run into a temporary folder, so the split is exactly its own."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, str(SPLITTER), str(folder), tmp], check=True,
                       capture_output=True)
        return frozenset(p.stem for p in (Path(tmp) / "heldout").glob("*.txt"))


def by_part(posts: Sequence[Post], held: frozenset[str]) -> dict[str, Score]:
    """The split groups' posts (arc-, blk-) scored by part: `dev` and `heldout`."""
    split = [p for p in posts if p.group in ("arc", "blk")]
    return {"dev": tally(p for p in split if p.name not in held),
            "heldout": tally(p for p in split if p.name in held)}


def by_group(posts: Sequence[Post]) -> dict[str, Score]:
    return {g: tally(p for p in posts if p.group == g) for g in GROUPS
            if any(p.group == g for p in posts)}


def _fields(claim: Mapping[str, Any]) -> str:
    shown = ", ".join(f"{k}={claim.get(k)!r}" for k in SHOWN if claim.get(k) not in (None, {}))
    quote = " ".join(str(claim.get("quote") or "").split())
    return f"{shown} | {quote[:110]}"


def report(posts: Sequence[Post], misses: bool = True, folder: Path = CORPUS) -> str:
    out = []
    if misses:
        for p in posts:
            if p.failed:
                out.append(f"FAILED {p.name}: {p.failed}")
            elif p.missed or p.spurious:
                out.append(f"{p.name}: gold {len(p.gold) - len(p.missed)}/{len(p.gold)} found, "
                           f"predicted {len(p.predicted) - len(p.spurious)}/{len(p.predicted)} right")
            out += [f"    missed:   {_fields(c)}" for c in p.missed if not p.failed]
            out += [f"    spurious: {_fields(c)}" for c in p.spurious]
        out.append("")
    for group, score in by_group(posts).items():
        out.append(score.line(group))
    out.append(tally(posts).line("overall"))
    if SPLITTER.exists() and any(p.group in ("arc", "blk") for p in posts):
        out.append("")
        out.append("the split groups (arc, blk) by part of ../shared/tools/split_corpus.py:")
        for part, score in by_part(posts, held_out(folder)).items():
            out.append(score.line(part))
    return "\n".join(out)


@dataclass(frozen=True)
class Verdicts:
    """What `--verdicts` says of the claims read from the corpus: each claim's status (None
    when a claim got no verdict at all), and which claims' messages carry a diff with a
    mechanism patchperf recognises."""

    statuses: tuple[str | None, ...]
    with_mechanism: tuple[str | None, ...]  # the statuses of those claims
    reasons: dict[str, int]  # the no_model reasons, by what is missing

    def lines(self) -> list[str]:
        total = len(self.statuses)
        counts: dict[str, int] = {}
        for status in self.statuses:
            counts[str(status)] = counts.get(str(status), 0) + 1
        out = [f"verdicts of the {total} claims read (analyze --verdicts):"]
        out += [f"    {k:15} {n:4}  {100 * n / total:5.1f} %"
                for k, n in sorted(counts.items(), key=lambda kv: -kv[1])]
        out.append("  no_model, by what is missing:")
        out += [f"    {n:4}  {reason}" for reason, n in
                sorted(self.reasons.items(), key=lambda kv: -kv[1])]
        predicted = sum(s not in (None, "no_model") for s in self.with_mechanism)
        n = len(self.with_mechanism)
        out.append(f"  claims whose message carries a diff with a recognised mechanism: {n}; "
                   f"with a prediction or a band: {predicted}"
                   + (f" ({100 * predicted / n:.0f} %)" if n else ""))
        return out


def _what_is_missing(reason: str) -> str:
    """A no_model reason, up to its first colon (the kind of thing missing)."""
    return reason.split(":", 1)[0]


def verdicts(folder: Path = CORPUS, groups: Sequence[str] = GROUPS) -> Verdicts:
    """Each post analysed as `patchperf analyze FILE --verdicts` does, its claims judged."""
    from analyze.errors import PatchperfError
    from analyze.sim.mechanisms import from_diff
    from corpus.jobs.files import analyze_files
    from corpus.jobs.verdicts import judge_claims

    statuses: list[str | None] = []
    with_mechanism: list[str | None] = []
    reasons: dict[str, int] = {}
    posts = sorted(p for p in folder.glob("*.txt") if p.name.split("-", 1)[0] in groups)
    for post in posts:
        text = post.read_bytes()
        if text.startswith(b"Source: "):
            text = text.split(b"\n\n", 1)[1] if b"\n\n" in text else b""
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / post.name
            path.write_bytes(text)
            try:
                analysis = analyze_files([path])
            except PatchperfError:
                continue
        judged = judge_claims(analysis.claims, analysis.messages)
        diffs = "\n".join(m.patch.text for m in analysis.messages if m.patch is not None)
        mechanism = bool(diffs) and bool(from_diff(diffs).tags)
        for claim in analysis.claims:
            verdict = judged.verdicts.get(claim.id, (None, None))[1]
            status = None if not verdict or not verdict.get("reason") else str(verdict["status"])
            statuses.append(status)
            if mechanism:
                with_mechanism.append(status)
            if status == "no_model":
                key = _what_is_missing(verdict["reason"])  # type: ignore[index]
                reasons[key] = reasons.get(key, 0) + 1
    return Verdicts(tuple(statuses), tuple(with_mechanism), reasons)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=CORPUS)
    parser.add_argument("-q", "--quiet", action="store_true", help="the figures only")
    parser.add_argument("--group", action="append", choices=GROUPS, help="one group (repeatable)")
    parser.add_argument("--cli", metavar="PATCHPERF",
                        help="run the shared scorer itself on the folder with this command")
    args = parser.parse_args(argv)
    if not (args.folder.is_dir() and SCORER.exists()):
        print(f"eval-real: {args.folder} or {SCORER} is absent (../shared beside the clone)",
              file=sys.stderr)
        return 2
    if args.cli:
        return subprocess.run([sys.executable, str(SCORER), args.cli, str(args.folder)]).returncode
    posts = evaluate(args.folder, args.group or GROUPS)
    print(report(posts, misses=not args.quiet, folder=args.folder))
    print()
    print("\n".join(verdicts(args.folder, args.group or GROUPS).lines()))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
