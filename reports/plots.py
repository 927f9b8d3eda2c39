"""Plots for the HTML report: the claimed curve beside the simulated one, as inline SVG.

matplotlib (already pulled in with spaCy's numpy, and the library kernel people plot their
own results with) draws through its object API — no pyplot, no global figure state — into
an SVG string. Imported only by `--format html`.

Labels may carry mail text (a metric as written, a scenario id built from a subject): it is
drawn as text with math parsing off, so `$...$` is not read as TeX, and the SVG writer
escapes it as XML text.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .safe import one_line

_STYLE: dict[str, Any] = {
    "svg.fonttype": "none",  # text stays text: smaller, selectable, searchable
    "svg.hashsalt": "patchperf",  # stable ids: the same report gives the same file
    "font.size": 9,
    "font.family": "sans-serif",
}


@dataclass(frozen=True, slots=True)
class Line:
    label: str
    ys: tuple[float | None, ...]
    style: str  # "claimed" or "predicted"
    side: str  # "before" or "after"


@dataclass(frozen=True, slots=True)
class Curve:
    """One plot: figures against a swept condition."""

    title: str
    x_label: str
    y_label: str
    xs: tuple[float, ...]
    lines: tuple[Line, ...]
    band: tuple[tuple[float, float], ...] = ()  # (low, high) of `after`, band verdicts


_COLOURS = {"before": "#6b7280", "after": "#2563eb"}


def curve_svg(curve: Curve, number: int = 0, width_in: float = 5.6, height_in: float = 3.0) -> str:
    """The curve as an `<svg>` element (no XML prolog), ready to inline in HTML. `number`
    tells the plots of one page apart: matplotlib names the elements of every figure alike
    (`figure_1`, `axes_1`, clip paths by a hash), and ids must be unique on a page."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    with rc_context(_STYLE):  # type: ignore[arg-type]  # its stubs list every key as a Literal
        fig = Figure(figsize=(width_in, height_in), layout="constrained")
        ax = fig.add_subplot()
        if curve.band:
            ax.fill_between(curve.xs, [b[0] for b in curve.band], [b[1] for b in curve.band],
                            color=_COLOURS["after"], alpha=0.12, linewidth=0,
                            label="simulated band (after)")
        for line in curve.lines:
            points = [(x, y) for x, y in zip(curve.xs, line.ys, strict=True) if y is not None]
            if not points:
                continue
            claimed = line.style == "claimed"
            ax.plot([p[0] for p in points], [p[1] for p in points],
                    color=_COLOURS[line.side], linestyle="-" if claimed else "--",
                    marker="o" if claimed else "s", markersize=4 if claimed else 3,
                    label=_text(line.label))
        ax.set_title(_text(curve.title, 70), parse_math=False, loc="left")
        ax.set_xlabel(_text(curve.x_label), parse_math=False)
        ax.set_ylabel(_text(curve.y_label), parse_math=False)
        if len(curve.xs) > 1 and min(curve.xs) > 0 and max(curve.xs) / min(curve.xs) >= 16:
            ax.set_xscale("log", base=2)
        if len(set(curve.xs)) <= 12:  # ticks at the measured points: 1, 2, 4 threads
            ax.set_xticks(sorted(set(curve.xs)), [f"{x:g}" for x in sorted(set(curve.xs))])
            ax.minorticks_off()
        ax.grid(True, alpha=0.3)
        legend = ax.legend(fontsize=7, frameon=False)
        for text in legend.get_texts():
            text.set_parse_math(False)
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    return _svg_element(out.getvalue(), f"plot{number}-")


def _text(value: str, width: int = 60) -> str:
    return one_line(value, width)


_PROLOG = re.compile(r"^.*?(?=<svg)", re.S)


_ID = re.compile(r'(\bid="|\bhref="#|\burl\(#)')


def _svg_element(document: str, prefix: str) -> str:
    """Drop the XML declaration and doctype (inline SVG in HTML starts at `<svg`), and
    prefix every id and every reference to one (`href="#…"`, `url(#…)`)."""
    return _ID.sub(lambda m: m.group(1) + prefix, _PROLOG.sub("", document, count=1))


def numeric(values: Sequence[str]) -> list[float] | None:
    """The values as numbers, or None when one is not a plain number (`64B`, `a-b`)."""
    out = []
    for v in values:
        try:
            out.append(float(v))
        except (TypeError, ValueError):
            return None
    return out
