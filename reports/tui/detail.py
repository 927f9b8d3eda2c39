"""What the detail pane's tabs show for one series, as rich renderables built from text.

Mail text only ever enters as `Text` made from inert strings (`safe.inert`): never markup,
never an escape sequence the terminal would obey."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

from corpus.browse import SeriesDetail, ThreadMessage

from ..document import VERDICT_STYLE, agreement, before_after, condition_text, percent, verdict_text
from ..safe import inert, one_line
from ..view import trailer_people

MAX_DIFF_LINES = 5000  # a diff longer than this is cut, with a line saying so


def thread_text(detail: SeriesDetail, unfold: bool = False) -> Text:
    """Every message of the series in thread order; runs of quoted lines folded into one
    line (`unfold` shows them, dimmed)."""
    out = Text()
    for m in detail.messages:
        _message(out, m, unfold)
    if not detail.messages:
        out.append("No message of this series is stored.", style="dim")
    return out


def _message(out: Text, m: ThreadMessage, unfold: bool) -> None:
    out.append(f"── {m.role} ", style="bold cyan")
    out.append(one_line(m.date[:16]), style="dim")
    out.append("  ")
    out.append(one_line(m.sender, 60), style="bold")
    out.append("\n")
    if m.problem:
        out.append(one_line(f"cannot be read again: {m.problem}", 200) + "\n\n", style="red")
        return
    out.append(one_line(m.subject, 200) + "\n\n", style="bold")
    i, n = 0, len(m.lines)
    while i < n:
        if m.depths[i] == 0:
            out.append(inert(m.lines[i]) + "\n")
            i += 1
            continue
        j = i
        while j < n and m.depths[j] > 0:
            j += 1
        if unfold:
            for line in m.lines[i:j]:
                out.append(inert(line) + "\n", style="dim")
        else:
            out.append(f"  ┆ {j - i} quoted line{'s' if j - i > 1 else ''} (z unfolds)\n",
                       style="dim italic")
        i = j
    out.append("\n")


def diff_renderable(detail: SeriesDetail) -> RenderableType:
    """The diffs of the series' own patches, highlighted (pygments' diff lexer: text in,
    colours out, no markup read)."""
    parts: list[RenderableType] = []
    for m in detail.messages:
        if not m.diff:
            continue
        lines = m.diff.splitlines()
        text = inert("\n".join(lines[:MAX_DIFF_LINES]))
        parts.append(Text(one_line(m.subject, 200), style="bold cyan"))
        parts.append(Syntax(text, "diff", theme="ansi_dark", background_color="default",
                            word_wrap=False))
        if len(lines) > MAX_DIFF_LINES:
            parts.append(Text(f"… {len(lines) - MAX_DIFF_LINES:,} more lines", style="dim"))
        parts.append(Text(""))
    if not parts:
        return Text("This series carries no diff of its own (a pull request, or its patches "
                    "are not stored).", style="dim")
    return Group(*parts)


CLAIM_COLUMNS = ("metric", "condition", "before → after", "change", "stated", "agrees", "verdict")
_DIRECTION = {"improvement": "green", "regression": "red"}


def claim_cells(c: dict[str, Any]) -> tuple[Text, ...]:
    style = _DIRECTION.get(c.get("direction") or "", "")
    status = (c.get("verdict") or {}).get("status") or ""
    return (
        Text(one_line(c["metric"])),
        Text(one_line(condition_text(c), 30)),
        Text(one_line(before_after(c), 40), style=style),
        Text(percent(c.get("change_pct")), style=style),
        Text(percent(c.get("stated_change_pct"))),
        Text(agreement(c), style="red" if c.get("consistent") is False else ""),
        Text(one_line(verdict_text(c), 40), style=VERDICT_STYLE.get(status, "")),
    )


def summary_text(detail: SeriesDetail) -> Text:
    """The series' heading lines above the tabs."""
    s = detail.series
    text = Text(one_line(s["name"], 120) + "\n", style="bold")
    text.append(one_line(f"v{s['version']} · {s.get('tree') or 'no tree'} · "
                         f"{s.get('author') or '?'} · {(s.get('date') or '')[:10]} · "
                         f"{len(detail.claims)} claims"), style="dim")
    people = trailer_people(s)
    if people:
        text.append("\n" + one_line("; ".join(f"{k}: {p}" for k, p in people[:4]), 160))
    return text


def verdict_line(verdict: dict[str, Any] | None) -> Text:
    """`verdict: reproduced — …`, or how to get one."""
    if verdict is None:
        return Text("not simulated yet: s simulates this scenario", style="dim italic")
    status = verdict["status"]
    text = Text("verdict: ")
    text.append(status.replace("_", " "), style=f"bold {VERDICT_STYLE.get(status, '')}")
    text.append(one_line(f" — {verdict.get('reason') or ''}", 300))
    return text
