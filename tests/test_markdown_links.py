"""Issue 22, item 7: Markdown output lets no mail text become a link or a character it did
not write, as GitHub renders it (cmark-gfm with the autolink, table and tagfilter
extensions): bare URLs, `www.`, `mailto:`, addresses (the From address too), named
entities. The report's own permalinks to lore are the only links (reports/links.py)."""

from __future__ import annotations

import re
from pathlib import Path

import cmarkgfm
import pytest
from stores import SMALL_PATCH

HOSTILE = """\
From: Eve Links <eve@links.example.org>
Subject: [PATCH net-next] net: &rlm;&shy; https://evil.example/x www.evil.example mailto:m@evil.example
Message-ID: <links.1@example.org>
Date: Tue, 01 Dec 2026 10:00:00 +0000
Content-Type: text/plain; charset=utf-8

Write to xmpp:bot@evil.example or ftp://evil.example/f &rlm;&shy;&ZeroWidthSpace; [x](http://y)

Before the patch: 5 Mpps, after the patch: 10 Mpps (with www.evil.example/q and a@b.example).

""" + SMALL_PATCH


def _html(markdown: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(markdown)


@pytest.mark.parametrize("command", [("analyze", "{mail}"), ("report", "--all")])
def test_no_mail_text_becomes_a_link(cli, tmp_path: Path, command: tuple[str, str]) -> None:
    mail = tmp_path / "links.eml"
    mail.write_text(HOSTILE, encoding="utf-8")
    db = tmp_path / "s.db"
    assert cli("--db", db, "ingest", mail).code == 0
    args = [a.format(mail=mail) for a in command]
    result = cli("--db", db, *args, "--format", "markdown")
    assert result.code == 0, result.err
    html = _html(result.out)
    # the one link is the report's own to the claim's mail on lore, in its own words
    assert re.findall(r"<a [^>]*>[^<]*</a>", html) == [
        '<a href="https://lore.kernel.org/r/links.1@example.org">lore</a>']
    assert "evil.example" in html
    assert "eve@links.example.org" in html  # shown, as text
    assert "\u200f" not in html and "\u00ad" not in html  # entities stay text
    assert "&amp;rlm;&amp;shy;" in html


def test_the_renderer_links_what_it_is_given() -> None:
    """The check above could pass on a renderer that links nothing: this one does."""
    html = _html("see https://x.example, www.x.example and a@x.example")
    assert html.count("<a ") == 3
