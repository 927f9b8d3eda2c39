"""What the detail pane's tabs show for one series, as rich renderables built from text.

Mail text only ever enters as `Text` made from inert strings (`safe.inert`): never markup,
never an escape sequence the terminal would obey."""

from __future__ import annotations

import re
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.syntax import Syntax
from rich.text import Text

from corpus.browse import MailDetail, SeriesDetail, ThreadMessage

from ..document import VERDICT_STYLE, agreement, before_after, condition_text, percent, verdict_text
from ..robot import RobotRow, disagreement_text
from ..safe import inert, one_line
from ..view import trailer_people
from .series_list import DISAGREES

MAX_DIFF_LINES = 5000  # a diff longer than this is cut, with a line saying so
TAB = 8  # columns a tab in mail stands for, as rich expands it
_MARKER = re.compile(r"(?:[ \t]*>)+ ?")  # `> `, `>> `, `> > `: what starts a quoted line
Shown = SeriesDetail | MailDetail


class ThreadText:
    """The thread as one Text, drawn at the pane's width. A quoted line too long for it is
    wrapped here, each of its lines starting with the line's quote marker again: wrapped by
    rich as plain text, a quoted diff line went on at the left edge, where it read as the
    reply's own words."""

    def __init__(self) -> None:
        self.text = Text()
        # each quoted line: where it is in `text`, the length of its marker, its width
        self._quotes: list[tuple[int, int, int, int]] = []

    @property
    def plain(self) -> str:
        return self.text.plain

    def append(self, text: str, style: str = "") -> None:
        self.text.append(text, style=style)

    def append_quote(self, line: str) -> None:
        """One quoted line of mail (made inert here), dimmed."""
        line = inert(line).expandtabs(TAB)  # the marker moves nothing a tab lines up
        marker = _MARKER.match(line)
        start = len(self.text)
        self.text.append(line, style="dim")
        self._quotes.append((start, len(self.text), marker.end() if marker else 0,
                             cell_len(line)))
        self.text.append("\n")

    def wrapped(self, console: Console, width: int) -> Text:
        """The text with each quoted line wider than `width` wrapped under its marker (the
        text itself when none is: the common case, and no copy)."""
        long = [q for q in self._quotes if q[3] > width and q[2]]
        if not long:
            return self.text
        out, at = Text(), 0
        for start, end, marker, _ in long:
            out.append_text(self.text[at:start])
            head, body = self.text[start:start + marker], self.text[start + marker:end]
            pieces = body.wrap(console, max(width - head.cell_len, TAB), overflow="fold")
            out.append_text(Text("\n").join(head + piece for piece in pieces))
            at = end
        out.append_text(self.text[at:])
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.wrapped(console, options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.text)


def thread_text(detail: Shown, unfold: bool = False) -> ThreadText:
    """Every message shown in thread order; runs of quoted lines folded into one line
    (`unfold` shows them, dimmed)."""
    out = ThreadText()
    for m in detail.messages:
        _message(out, m, unfold)
    if not detail.messages:
        out.append("No message of this series is stored." if isinstance(detail, SeriesDetail)
                   else "This mail is no longer stored.", style="dim")
    return out


def _message(out: ThreadText, m: ThreadMessage, unfold: bool) -> None:
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
                out.append_quote(line)
        else:
            out.append(f"  ┆ {j - i} quoted line{'s' if j - i > 1 else ''} (z unfolds)\n",
                       style="dim italic")
        i = j
    out.append("\n")


def diff_renderable(detail: Shown) -> RenderableType:
    """The diffs of the messages' own patches, highlighted (pygments' diff lexer: text in,
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
                    "are not stored)." if isinstance(detail, SeriesDetail) else
                    "No diff: neither this mail nor the stored mail it answers carries one.",
                    style="dim")
    return Group(*parts)


# What a claim says first, so that it shows in a narrow pane (120 columns leave the tab 55):
# which metric, by how much, and whether the simulator agrees; then what the figures are and
# where; the long ones are capped.
CLAIM_COLUMNS = ("metric", "change", "verdict", "condition", "before → after", "stated",
                 "agrees", "simulated")
_DIRECTION = {"improvement": "green", "regression": "red"}


def claim_cells(c: dict[str, Any]) -> tuple[Text, ...]:
    style = _DIRECTION.get(c.get("direction") or "", "")
    verdict = c.get("verdict") or {}
    status = verdict.get("status") or ""
    return (
        Text(one_line(c["metric"], 16)),
        Text(percent(c.get("change_pct")), style=style),
        Text(status.replace("_", " "), style=VERDICT_STYLE.get(status, "")),
        Text(one_line(condition_text(c), 24)),
        Text(one_line(before_after(c), 32), style=style),
        Text(percent(c.get("stated_change_pct"))),
        Text(agreement(c), style="red" if c.get("consistent") is False else ""),
        Text(one_line(_simulated(c), 32), style="dim"),
    )


def _simulated(claim: dict[str, Any]) -> str:
    """What the model gave besides the status, `predicted +14.8 %` or `band +3 … +827 %`:
    the verdict column holds the status alone, so that it fits."""
    return verdict_text(claim).partition(" (")[2].removesuffix(")")


# The robot's rows under the claims (`reports.robot.robot_rows`, as every report shows them),
# in the claims' order of importance: a mark where a claim says otherwise (first, so that it
# shows in a narrow pane, where the finding's words may not), what it measured, by how much,
# the finding; then where the finding comes from.
ROBOT_COLUMNS = ("≠", "measure", "change", "finding", "rule", "date", "test", "machine", "report")


def robot_cells(r: RobotRow) -> tuple[Text, ...]:
    style = _DIRECTION.get(r.direction, "")
    return (
        Text(DISAGREES if r.disagrees else "", style="bold red"),
        Text(one_line(r.measure, 32)),
        Text(r.change, style=style),
        Text(one_line(r.finding, 48), style="bold red" if r.disagrees else style),
        Text(one_line(r.rule)),
        Text(one_line(r.date), style="dim"),
        Text(one_line(r.test, 20)),
        Text(one_line(r.machine, 40), style="dim"),
        Text(one_line(r.report, 48), style="dim"),
    )


def robot_heading(detail: SeriesDetail) -> Text:
    n = len(detail.robot)
    text = Text(f"Kernel test robot: {n} report{'' if n == 1 else 's'}", style="bold")
    if detail.disagreements:
        text.append(f"  {DISAGREES} disagrees with a claim", style="bold red")
    return text


def robot_notes(detail: SeriesDetail) -> Text:
    """A line for each claim a robot finding disagrees with (two findings of one report, a
    measure and its total, against one claim read as one line)."""
    lines = dict.fromkeys(disagreement_text(d) for d in detail.disagreements)
    return Text("\n").join(Text(f"{DISAGREES} {one_line(line, 300)}", style="red")
                           for line in lines)


def summary_text(detail: Shown) -> Text:
    """The heading lines above the tabs: the series', or the mail's."""
    if isinstance(detail, MailDetail):
        return _mail_summary(detail)
    s = detail.series
    text = Text(one_line(s["name"], 120) + "\n", style="bold")
    text.append(one_line(f"v{s['version']} · {s.get('tree') or 'no tree'} · "
                         f"{s.get('author') or '?'} · {(s.get('date') or '')[:10]} · "
                         f"{_claims(len(detail.claims))}"), style="dim")
    if detail.robot:
        n = len(detail.robot)
        text.append(f" · {n} robot report{'' if n == 1 else 's'}", style="dim")
        if detail.disagreements:
            text.append(f" {DISAGREES} a claim", style="bold red")
    people = trailer_people(s)
    if people:
        text.append("\n" + one_line("; ".join(f"{k}: {p}" for k, p in people[:4]), 160))
    return text


def _mail_summary(detail: MailDetail) -> Text:
    m = detail.mail
    text = Text(one_line(m.subject or "(no subject)", 120) + "\n", style="bold")
    text.append(one_line(f"{m.kind or 'mail'} in no stored series · {m.sender or '?'} · "
                         f"{m.date[:10]} · {_claims(len(detail.claims))}"), style="dim")
    answered = [x for x in detail.messages if x.role == "earlier" and not x.problem]
    if answered:
        text.append("\n" + one_line(f"in the thread of: {answered[-1].subject}", 160))
    return text


def _claims(n: int) -> str:
    return f"{n} claim{'' if n == 1 else 's'}"


def verdict_line(verdict: dict[str, Any] | None) -> Text:
    """`verdict: reproduced — …`, or how to get one."""
    if verdict is None:
        return Text("not simulated yet: s simulates this scenario", style="dim italic")
    status = verdict["status"]
    text = Text("verdict: ")
    text.append(status.replace("_", " "), style=f"bold {VERDICT_STYLE.get(status, '')}")
    text.append(one_line(f" — {verdict.get('reason') or ''}", 300))
    return text
