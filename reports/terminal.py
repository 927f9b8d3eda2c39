"""The terminal rendering: rich tables. Mail text enters only as `Text` built from inert
strings, never as markup."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.panel import Panel
from rich.style import Style
from rich.table import Table
from rich.text import Text

from analyze.robot_series import Disagreement

from .document import (
    VERDICT_STYLE,
    Document,
    agreement,
    before_after,
    condition_text,
    patch_summary,
    percent,
    received,
    trailer_counts,
    verdict_text,
)
from .links import lore_url
from .robot import disagreement_text, robot_rows
from .safe import one_line
from .tracks import point_texts, track_title
from .view import ReportView, build_view, series_heading, trailer_people

_DIRECTION_STYLE = {"improvement": "green", "regression": "red", "neutral": ""}
_KIND_STYLE = {"patch": "green", "cover": "cyan", "pull_request": "magenta", "reply": "", "other": "dim"}


def _t(value: object, width: int | None = None, style: str | Style = "") -> Text:
    return Text(one_line(None if value is None else str(value), width), style=style)


def _message_cell(message_id: str | None) -> Text:
    """The Message-ID, as inert text, linked to lore's permalink (a terminal hyperlink:
    the URL is percent-encoded, so no mail text reaches the escape sequence)."""
    url = lore_url(message_id)
    return _t(message_id, 60, style=Style(link=url) if url else "")


def render_terminal(doc: Document, console: Console) -> None:
    if doc["series"]:
        table = Table(title="Series", title_justify="left", expand=False)
        for col in ("series", "v", "tree", "patches", "complete", "acks", "reviews", "tests", "author", "date"):
            table.add_column(col, overflow="fold")
        for s in doc["series"]:
            counts = trailer_counts(s)
            complete = s.get("complete")
            table.add_row(
                _t(s["name"], 60, "bold"),
                _t(s["version"]),
                _t(s.get("tree") or "-"),
                _t(received(s)),
                _t("?" if complete is None else ("yes" if complete else "no"),
                   style="green" if complete else ("yellow" if complete is False else "")),
                _t(counts["Acked-by"]),
                _t(counts["Reviewed-by"]),
                _t(counts["Tested-by"]),
                _t(s.get("author"), 30),
                _t((s.get("date") or "")[:16]),
            )
        console.print(table)
    if doc["messages"]:
        table = Table(title="Messages", title_justify="left")
        for col in ("date", "kind", "subject", "from", "diff", "trailers"):
            table.add_column(col, overflow="fold")
        for m in doc["messages"]:
            table.add_row(
                _t((m.get("date") or "")[:16]),
                _t(m["kind"], style=_KIND_STYLE.get(m["kind"], "")),
                _t(m["subject"], 70),
                _t(m["from"], 32),
                _t(patch_summary(m)),
                _t(len(m.get("trailers", []))),
            )
        console.print(table)
    if doc["claims"]:
        table = Table(title="Claims", title_justify="left")
        # the id first: `simulate` and `scenario` take it; the message last, cut to its
        # start and linked to lore (where the terminal shows hyperlinks)
        table.add_column("id", no_wrap=True)
        for col in ("metric", "condition", "before → after", "change", "stated", "agrees", "source",
                    "verdict"):
            table.add_column(col, overflow="fold")
        table.add_column("message", no_wrap=True, overflow="ellipsis", max_width=30)
        for c in doc["claims"]:
            style = _DIRECTION_STYLE.get(c["direction"], "")
            table.add_row(
                _t(c["id"]),
                _t(c["metric"]),
                _t(condition_text(c)),
                _t(before_after(c), style=style),
                _t(percent(c.get("change_pct")), style=style),
                _t(percent(c.get("stated_change_pct"))),
                _t(agreement(c), style="" if c.get("consistent") is not False else "red"),
                _t(c["source"] + (" (quoted)" if c["quoted"] else "")),
                _t(verdict_text(c), style=VERDICT_STYLE.get((c.get("verdict") or {}).get("status") or "", "")),
                _message_cell(c.get("message_id") or c["found_in"]),
            )
        console.print(table)
    view = build_view(doc, rank="date")
    for v in view.series:
        if v.robot or v.tracks:
            console.print(Text.assemble(("Series ", "bold"),
                                        (one_line(v.series["name"], 80), "bold"),
                                        (f" v{v.series['version']}", "bold")))
        if v.robot:
            console.print(robot_lines(v.robot, v.disagreements), soft_wrap=True)
        if v.tracks:
            console.print(track_lines(v.tracks), soft_wrap=True)
    _unlinked(view, console)
    if not doc["series"] and not doc["messages"] and not doc["claims"]:
        console.print(Text("Nothing to report."))


_CLAIM_COLUMNS = (("metric", 12), ("condition", 30), ("before → after", 40), ("change", 10),
                  ("stated", 10), ("agrees", 6), ("verdict", 44))


def _claim_cells(c: dict[str, Any]) -> list[tuple[str, str]]:
    style = _DIRECTION_STYLE.get(c["direction"], "")
    return [
        (one_line(c["metric"]), ""),
        (one_line(condition_text(c)), ""),
        (one_line(before_after(c)), style),
        (percent(c.get("change_pct")), style),
        (percent(c.get("stated_change_pct")), ""),
        (agreement(c), "" if c.get("consistent") is not False else "red"),
        (one_line(verdict_text(c)), VERDICT_STYLE.get((c.get("verdict") or {}).get("status") or "", "")),
    ]


def claim_lines(claims: Sequence[dict[str, Any]], indent: str = "  ") -> Text:
    """The claims as aligned columns under a header. Written out rather than a rich Table:
    a digest of a week of netdev is ~250 series, and measuring every cell of 250 tables (in
    panels) took 1.3 s of a 1.4 s `report --since 7d`; fixed columns take a tenth of it."""
    return _aligned(_CLAIM_COLUMNS, [_claim_cells(c) for c in claims], indent)


def _aligned(columns: Sequence[tuple[str, int]], rows: Sequence[Sequence[tuple[str, str]]],
             indent: str = "") -> Text:
    """Rows of (text, style) cells under a bold header, each column as wide as its widest
    cell up to its cap; a longer cell is cut with an ellipsis."""
    widths = [min(cap, max([cell_len(name)] + [cell_len(r[i][0]) for r in rows]))
              for i, (name, cap) in enumerate(columns)]
    lines = [Text(indent + "  ".join(name.ljust(w) for (name, _), w in
                                     zip(columns, widths, strict=True)), style="bold")]
    for row in rows:
        line = Text(indent)
        for (text, style), w in zip(row, widths, strict=True):
            # in terminal cells, not characters: a CJK name takes two each
            cell = set_cell_size(text, w) if cell_len(text) <= w else set_cell_size(text, w - 1) + "…"
            line.append(cell + "  ", style=style)
        lines.append(line)
    for line in lines:
        line.rstrip()
    return Text("\n").join(lines)


_ROBOT_COLUMNS = (("date", 10), ("rule", 10), ("test", 16), ("measure", 40),
                  ("change", 10), ("finding", 40), ("machine", 40))


def robot_lines(reports: Sequence[dict[str, Any]], disagreements: Sequence[Disagreement]) -> Text:
    """The robot's findings on a series, under its claims, in the same fixed columns; a
    finding that disagrees with a claim in red, and what it disagrees with below."""
    rows = robot_rows(reports, disagreements)
    cells = [[(r.date, ""), (r.rule, ""), (one_line(r.test), ""), (one_line(r.measure), ""),
              (r.change, _DIRECTION_STYLE.get(r.direction, "")),
              (r.finding, "bold red" if r.disagrees else _DIRECTION_STYLE.get(r.direction, "")),
              (one_line(r.machine), "dim")] for r in rows]
    lines = [Text("kernel test robot", style="bold"), _aligned(_ROBOT_COLUMNS, cells)]
    for said in dict.fromkeys(disagreement_text(d) for d in disagreements):
        lines.append(Text("≠ " + one_line(said, 200), style="red"))
    return Text("\n").join(lines)


def track_lines(tracks: Sequence[dict[str, Any]]) -> Text:
    """Each claim across the series' versions: one line a claim, a flagged move in red with
    why below it."""
    lines = [Text("across versions", style="bold")]
    for track in tracks:
        line = Text(one_line(track_title(track), 60) + ": ")
        notes = []
        for i, p in enumerate(point_texts(track)):
            if i:
                line.append(" · ")
            line.append(f"{p.version} ", style="bold")
            line.append(one_line(p.figures, 60), style="red" if p.flagged else "")
            if p.moved:
                line.append(f" ({p.moved}{', flagged' if p.flagged else ''})",
                            style="red" if p.flagged else "dim")
            if p.note:
                notes.append(Text(f"  {p.version}: " + one_line(p.note, 160),
                                  style="red" if p.flagged else "dim"))
        lines += [line, *notes]
    return Text("\n").join(lines)


def _unlinked(view: ReportView, console: Console) -> None:
    if view.unlinked_robot:
        console.print(Text("Kernel test robot reports linked to no series", style="bold"))
        for r in view.unlinked_robot:
            console.print(Text.assemble("  ", ((r.get("date") or "")[:10], "dim"), " ",
                                        one_line(str(r.get("message_id") or ""), 60), "  ",
                                        (one_line(str(r.get("reason") or ""), 120), "dim")))


def render_report(view: ReportView, console: Console) -> None:
    """The report series by series: a heading each, with files, trailers and claims."""
    for v in view.series:
        parts = [Text(one_line(series_heading(v)), style="dim")]
        if v.files:
            shown = ", ".join(v.files[:6]) + (f" and {len(v.files) - 6} more" if len(v.files) > 6 else "")
            parts.append(Text.assemble(("files ", "bold"), one_line(shown)))
        people = trailer_people(v.series)
        if people:
            parts.append(Text.assemble(("trailers ", "bold"), one_line(
                "; ".join(f"{k}: {p}" for k, p in people[:6])
                + (f"; {len(people) - 6} more" if len(people) > 6 else ""))))
        parts.append(claim_lines(v.claims, indent="") if v.claims
                     else Text("no performance claims", style="dim"))
        if v.robot:
            parts.append(robot_lines(v.robot, v.disagreements))
        if v.tracks:
            parts.append(track_lines(v.tracks))
        effect = None if v.effect is None else Text(f"largest claimed change {v.effect:.1f} %",
                                                    style="cyan")
        console.print(Panel(Text("\n").join(parts), title=_t(v.series["name"], 100, "bold"),
                            title_align="left", subtitle=effect, subtitle_align="right",
                            box=box.ROUNDED, expand=False))
    if view.other_messages:
        table = Table(title="Messages outside the series shown", title_justify="left",
                      box=box.SIMPLE_HEAD)
        for col in ("date", "kind", "subject", "from", "diff"):
            table.add_column(col, overflow="fold")
        for m in view.other_messages:
            table.add_row(_t((m.get("date") or "")[:16]), _t(m["kind"], style=_KIND_STYLE.get(m["kind"], "")),
                          _t(m["subject"], 70), _t(m["from"], 32), _t(patch_summary(m)))
        console.print(table)
    if view.other_claims:
        console.print(Text("Claims outside the series shown", style="bold"))
        console.print(claim_lines(view.other_claims), soft_wrap=True)
    _unlinked(view, console)
    if not view.series and not view.other_claims and not view.other_messages:
        console.print(Text("Nothing to report."))
