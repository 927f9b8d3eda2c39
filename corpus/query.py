"""Selecting what a report shows: the `{messages, series, claims}` document from the store."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .store import Store


def select_document(store: Store, *, ident: str | None = None, since: datetime | None = None) -> dict[str, list[dict[str, Any]]]:
    """Everything stored (no arguments), one series or message (`ident`: a series id or a
    Message-ID), or the series and messages dated at or after `since`."""
    if ident is not None:
        series = store.series_for(ident)
        keys: list[str] = []
        for s in series:
            keys += [k for k in (s.get("cover"), *s.get("patches", []), *s.get("replies", [])) if k]
        if not series:
            keys = [ident.strip().strip("<>")]
        messages = [doc for doc in (store.get_message_doc(k) for k in dict.fromkeys(keys)) if doc]
    elif since is not None:
        series = store.series_since(since)
        messages = store.messages_since(since)
    else:
        series = store.all_series()
        messages = list(store.iter_message_docs())
    return {"messages": messages, "series": series, "claims": []}
