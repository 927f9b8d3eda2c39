"""The report's own links back to the mail: lore's permalink for a Message-ID.

`https://lore.kernel.org/r/<message-id>` redirects to the message in whichever list lore
archives it. The Message-ID is written by the mail's sender, so it is percent-encoded
whole but for characters a path keeps as they are: no `(`, `)`, `[`, `]`, `<`, `>`, quote
or space survives to end a Markdown link, an HTML attribute or a terminal's hyperlink."""

from __future__ import annotations

from urllib.parse import quote

LORE = "https://lore.kernel.org/r/"

# what public-inbox itself leaves unescaped in a Message-ID's path segment, less the
# characters that end a link in Markdown (parentheses) or quote one in HTML (the apostrophe)
_SAFE = "-._~!$&*+,;=:@"


def lore_url(message_id: str | None) -> str | None:
    """The lore permalink of a message, or None for a message without a Message-ID."""
    mid = (message_id or "").strip().removeprefix("<").removesuffix(">").strip()
    if not mid:
        return None
    return LORE + quote(mid, safe=_SAFE)
