"""Where a command's result goes: a report document rendered in the chosen format, to
stdout or to a file. Every renderer reads the same document (docs/json.md)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import click

from analyze.errors import UsageError

from .safe import json_text


def emit(doc: dict[str, Any], fmt: str, output: str | None = None, *,
         runs: dict[str, Any] | None = None, view: Any = None, title: str = "patchperf") -> None:
    """Write a report document in the chosen format to stdout or a file. With `view` (a
    reports.view.ReportView: `patchperf report`), the table and Markdown read series by
    series; `runs` gives the HTML report its simulated curves."""
    try:
        _render(doc, fmt, output, runs=runs, view=view, title=title)
    except BrokenPipeError:
        raise  # `patchperf report | head`: the reader has what it wanted (Python exits quietly)
    except OSError as exc:  # stdout on a full disk (`> /dev/full`), a closed terminal
        raise UsageError(f"cannot write the report to standard output "
                         f"({exc.strerror or exc})") from None


def _render(doc: dict[str, Any], fmt: str, output: str | None, *,
            runs: dict[str, Any] | None, view: Any, title: str) -> None:
    if fmt == "json":
        text = json_text(doc) + "\n"
    elif fmt == "html":
        from .html import render_html

        text = render_html(doc, runs, title=title, view=view)
    elif fmt == "markdown":
        from .markdown import render_markdown, render_report_markdown

        text = render_report_markdown(view) if view is not None else render_markdown(doc)
    else:
        from rich.console import Console

        from .terminal import render_report, render_terminal

        def render(console: Console) -> None:
            if view is not None:
                render_report(view, console)
            else:
                render_terminal(doc, console)

        if output is None:
            width = shutil.get_terminal_size((160, 40)).columns
            render(Console(highlight=False, width=width))
            return
        buffer = io.StringIO()
        render(Console(file=buffer, highlight=False, width=160, color_system=None))
        text = buffer.getvalue()
    if output is None:
        click.echo(text, nl=False)
        return
    write_file(output, text, "cannot write the report")


def write_file(output: str, text: str, failure: str) -> None:
    """`text` into the file `output`; a failure (a full disk, a missing folder) is a
    UsageError naming the file."""
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{output}: {failure} ({exc.strerror or exc})") from None
