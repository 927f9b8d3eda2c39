"""Scorer for the claims evaluation set in tests/data/claims/ (issue 3, acceptance 2).

Each post `NN-name.eml` or `NN-name.mbox` has a hand-written `NN-name.gold.json` (written
before the extractor existed). Every post is read on its own with the project's reader and
pipeline (`corpus.jobs.files.analyze_files`), and its claims are matched one to one against its gold.

Matching rule: a predicted claim matches a gold claim when `message_id`, `metric`, `bound`
and `condition` are equal (condition values compared as strings, keys as written) and
`baseline` and `patched` are equal within a relative tolerance of 1e-6 (both null counts as
equal). Unit, stated change, direction, quoted and source are not part of the match: they are
reported, not scored. Precision = matched predicted / predicted; recall = matched gold / gold,
over the whole set; per source kind as well (precision by the predicted claim's source, recall
by the gold claim's source).

Run `python tests/claims_eval.py [FOLDER]`: prints each post's result and every unmatched
claim with its fields, then the totals; exits 1 when precision or recall is below 0.95.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

THRESHOLD = 0.95  # issue 3, acceptance 2: precision and recall both at least 95 %
DEFAULT_FOLDER = Path(__file__).parent / "data" / "claims"
POST_SUFFIXES = (".eml", ".mbox")
MATCH_KEYS = ("message_id", "metric", "baseline", "patched", "bound", "condition")
SHOWN_KEYS = MATCH_KEYS + ("unit", "stated_change_pct", "direction", "quoted", "source")
SOURCES = ("table", "list", "prose")


@dataclass(frozen=True)
class PostResult:
    """One post: its gold claims, the predicted ones, and what was left unmatched."""

    name: str
    gold: tuple[dict[str, Any], ...]
    predicted: tuple[dict[str, Any], ...]
    missed: tuple[dict[str, Any], ...]  # gold claims nothing matched
    spurious: tuple[dict[str, Any], ...]  # predicted claims matching no gold claim


@dataclass(frozen=True)
class Counts:
    predicted: int = 0
    predicted_matched: int = 0
    gold: int = 0
    gold_matched: int = 0

    @property
    def precision(self) -> float:
        # nothing predicted on a set with no gold is perfect; nothing predicted otherwise
        # is caught by recall
        return self.predicted_matched / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.gold_matched / self.gold if self.gold else 1.0


@dataclass(frozen=True)
class Report:
    """The whole set: each post's result, overall and per-source counts."""

    posts: tuple[PostResult, ...]
    overall: Counts
    by_source: Mapping[str, Counts] = field(default_factory=dict)

    @property
    def precision(self) -> float:
        return self.overall.precision

    @property
    def recall(self) -> float:
        return self.overall.recall

    @property
    def passed(self) -> bool:
        return self.precision >= THRESHOLD and self.recall >= THRESHOLD


def post_paths(folder: Path) -> list[Path]:
    """The posts of the set, in name order (the gold and README files are not posts)."""
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in POST_SUFFIXES)


def gold_path(post: Path) -> Path:
    return post.with_name(post.stem + ".gold.json")


def load_gold(post: Path) -> list[dict[str, Any]]:
    """The gold claims of one post; a missing or malformed gold file is an error of the set."""
    doc = json.loads(gold_path(post).read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or not isinstance(doc.get("claims"), list):
        raise ValueError(f"{gold_path(post).name}: expected an object with a 'claims' list")
    return doc["claims"]


def as_dict(claim: Any) -> dict[str, Any]:
    """A predicted claim as a dict with the schema's keys, whatever the pipeline returns."""
    if isinstance(claim, Mapping):
        return dict(claim)
    try:
        from analyze.serialize import claim_to_dict
    except ImportError:  # the serializer is written with the extractor
        return {key: getattr(claim, key, None) for key in SHOWN_KEYS}
    return claim_to_dict(claim)


def _same_number(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    try:
        x, y = float(a), float(b)
    except (TypeError, ValueError):
        return False
    return math.isclose(x, y, rel_tol=1e-6, abs_tol=0.0) or x == y


def _condition(value: Any) -> dict[str, str]:
    if not value:
        return {}
    if isinstance(value, Mapping):
        return {str(k): str(v) for k, v in value.items()}
    return {"?": str(value)}


def matches(predicted: Mapping[str, Any], gold: Mapping[str, Any]) -> bool:
    """The matching rule of the module docstring."""
    return (
        predicted.get("message_id") == gold.get("message_id")
        and predicted.get("metric") == gold.get("metric")
        and predicted.get("bound") == gold.get("bound")
        and _condition(predicted.get("condition")) == _condition(gold.get("condition"))
        and _same_number(predicted.get("baseline"), gold.get("baseline"))
        and _same_number(predicted.get("patched"), gold.get("patched"))
    )


def pair_up(
    predicted: Iterable[dict[str, Any]], gold: Iterable[dict[str, Any]]
) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], list[dict[str, Any]], list[dict[str, Any]]]:
    """One-to-one greedy matching, in order: (pairs, unmatched predicted, unmatched gold).
    Greedy is exact here: `matches` is an equivalence up to the float tolerance."""
    free = list(gold)
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    spurious: list[dict[str, Any]] = []
    for p in predicted:
        for i, g in enumerate(free):
            if matches(p, g):
                pairs.append((p, g))
                del free[i]
                break
        else:
            spurious.append(p)
    return pairs, spurious, free


def evaluate_post(post: Path) -> PostResult:
    """Read one post with the project's pipeline and match its claims to its gold. A crash
    is not caught: on a negative post it would otherwise pass as "nothing found"."""
    from corpus.jobs.files import analyze_files

    gold = load_gold(post)
    analysis = analyze_files([post])
    predicted = [as_dict(c) for c in analysis.claims]
    _, spurious, missed = pair_up(predicted, gold)
    return PostResult(post.stem, tuple(gold), tuple(predicted), tuple(missed), tuple(spurious))


def _tally(posts: Iterable[PostResult], source: str | None = None) -> Counts:
    def keep(c: Mapping[str, Any]) -> bool:
        return source is None or c.get("source") == source

    pred = pred_ok = gold = gold_ok = 0
    for r in posts:
        pred += sum(keep(c) for c in r.predicted)
        pred_ok += sum(keep(c) for c in r.predicted) - sum(keep(c) for c in r.spurious)
        gold += sum(keep(c) for c in r.gold)
        gold_ok += sum(keep(c) for c in r.gold) - sum(keep(c) for c in r.missed)
    return Counts(pred, pred_ok, gold, gold_ok)


def evaluate(folder: Path | str = DEFAULT_FOLDER) -> Report:
    """Score every post of `folder` against its gold file."""
    posts = tuple(evaluate_post(p) for p in post_paths(Path(folder)))
    by_source = {s: _tally(posts, s) for s in SOURCES}
    return Report(posts, _tally(posts), by_source)


def _fields(claim: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={claim.get(k)!r}" for k in SHOWN_KEYS if k in claim)


def format_report(report: Report) -> str:
    """Per-post lines with every unmatched claim, then per-source and overall figures."""
    out: list[str] = []
    for r in report.posts:
        ok = not r.missed and not r.spurious
        found = len(r.predicted) - len(r.spurious)
        out.append(
            f"{'ok  ' if ok else 'FAIL'} {r.name}: gold {len(r.gold)}, "
            f"predicted {len(r.predicted)}, matched {found}"
        )
        out.extend(f"       missed:   {_fields(c)}" for c in r.missed)
        out.extend(f"       spurious: {_fields(c)}" for c in r.spurious)
    out.append("")
    for source, c in report.by_source.items():
        out.append(
            f"{source:6} precision {c.precision:.3f} ({c.predicted_matched}/{c.predicted})"
            f"  recall {c.recall:.3f} ({c.gold_matched}/{c.gold})"
        )
    o = report.overall
    out.append(
        f"overall precision {o.precision:.3f} ({o.predicted_matched}/{o.predicted})"
        f"  recall {o.recall:.3f} ({o.gold_matched}/{o.gold})"
        f"  threshold {THRESHOLD:.2f}: {'PASS' if report.passed else 'FAIL'}"
    )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Print the report; 1 when precision or recall is below the threshold."""
    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0]) if args else DEFAULT_FOLDER
    report = evaluate(folder)
    print(format_report(report))
    return 0 if report.passed else 1


if __name__ == "__main__":
    # run as a script from the repository root: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main())
