"""The terminal rendering: rich tables. Mail text enters only as `Text` built from inert
strings, never as markup."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .document import (
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
from .safe import one_line

_DIRECTION_STYLE = {"improvement": "green", "regression": "red", "neutral": ""}
_VERDICT_STYLE = {"reproduced": "green", "consistent": "green", "not_reproduced": "red",
                  "outside_band": "red", "within_noise": "yellow"}
_KIND_STYLE = {"patch": "green", "cover": "cyan", "pull_request": "magenta", "reply": "", "other": "dim"}


def _t(value: object, width: int | None = None, style: str = "") -> Text:
    return Text(one_line(None if value is None else str(value), width), style=style)


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
        for col in ("metric", "condition", "before → after", "change", "stated", "agrees", "source",
                    "verdict", "from message"):
            table.add_column(col, overflow="fold")
        for c in doc["claims"]:
            style = _DIRECTION_STYLE.get(c["direction"], "")
            table.add_row(
                _t(c["metric"]),
                _t(condition_text(c)),
                _t(before_after(c), style=style),
                _t(percent(c.get("change_pct")), style=style),
                _t(percent(c.get("stated_change_pct"))),
                _t(agreement(c), style="" if c.get("consistent") is not False else "red"),
                _t(c["source"] + (" (quoted)" if c["quoted"] else "")),
                _t(verdict_text(c), style=_VERDICT_STYLE.get((c.get("verdict") or {}).get("status") or "", "")),
                _t(c.get("message_id") or c["found_in"], 40),
            )
        console.print(table)
    if not doc["series"] and not doc["messages"] and not doc["claims"]:
        console.print(Text("Nothing to report."))
