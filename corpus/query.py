"""Selecting what a report shows: the `{messages, series, claims}` document from the store."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from analyze.versions import attach_tracks, changelog_of

from .store import Store


def select_document(
    store: Store, *, ident: str | None = None, since: datetime | None = None,
    tree: str | None = None, author: str | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Everything stored (no arguments), one series or message (`ident`: a series id or a
    Message-ID), or the series and messages dated at or after `since`. With `tree` or
    `author`, only the series of that tree or author and their members' messages."""
    if tree is not None or author is not None:
        series = store.find_series(since=since, tree=tree, author=author)
        keys = [k for s in series for k in _member_keys(s)]
        messages = [doc for doc in (store.get_message_doc(k) for k in dict.fromkeys(keys)) if doc]
    elif ident is not None:
        series = store.series_for(ident)
        keys = [k for s in series for k in _member_keys(s)]
        if not series:
            keys = [ident.strip().strip("<>")]
        messages = [doc for doc in (store.get_message_doc(k) for k in dict.fromkeys(keys)) if doc]
    elif since is not None:
        series = store.series_since(since)
        messages = store.messages_since(since)
    else:
        series = store.all_series()
        messages = list(store.iter_message_docs())
    if ident is None and since is None and tree is None and author is None:
        claims = store.claim_docs()
    else:
        claims = store.claim_docs(keys=[m["key"] for m in messages])
    version_tracks(store, series, messages, claims)
    out: dict[str, list[dict[str, Any]]] = {"messages": messages, "series": series,
                                            "claims": claims}
    if ident is None and tree is None and author is None:
        # the robot's reports no series was found for, of the window (linked ones ride on
        # their series)
        unlinked = [{k: v for k, v in r.items() if k != "series_id"}  # (none: unlinked)
                    for r in store.robot_reports(linked=False) if _after(r.get("date"), since)]
        if unlinked:
            out["unlinked_robot_reports"] = unlinked
    return out


_LONGEST_CHAIN = 64  # versions followed back from a series (v64 is far past any real series)


def version_tracks(store: Store, series: list[dict[str, Any]],
                   messages: Sequence[Mapping[str, Any]] = (),
                   claims: Sequence[Mapping[str, Any]] = ()) -> None:
    """Give each shown series that follows earlier versions (and that no shown series
    replaces) its `version_tracks`: its claims followed back through the stored versions.
    Done when a report is made, from what is stored then, for the series it shows."""
    shown = {s["id"] for s in series}
    replaced = {s.get("previous_version") for s in series}
    tips = [s for s in series if s.get("previous_version") and s["id"] not in replaced]
    if not tips:
        return
    chains: dict[str, dict[str, Any]] = {s["id"]: s for s in series}
    wanted = [s["previous_version"] for s in tips if s["previous_version"] not in shown]
    for _ in range(_LONGEST_CHAIN):
        if not wanted:
            break
        found = store.load_series(wanted)
        chains.update((f["id"], f) for f in found)
        wanted = [p for f in found if (p := f.get("previous_version")) and p not in chains]
    keys = list(dict.fromkeys(k for s in chains.values()
                              for k in (s.get("cover"), *s.get("patches", [])) if k))
    # what the report already read (`messages`, and `claims`, theirs) is not read again:
    # `report --all` holds everything
    known: dict[str, Mapping[str, Any]] = {str(m.get("key")): m for m in messages}
    docs = [known[k] if k in known else store.get_message_doc(k) for k in keys]
    missing = [k for k in keys if k not in known]
    read: list[Mapping[str, Any]] = [*claims]
    if missing:
        read += store.claim_docs(keys=missing)
    attach_tracks(tips, list(chains.values()), read, changelog_of(d for d in docs if d))


def _after(date: object, since: datetime | None) -> bool:
    if since is None:
        return True
    if not isinstance(date, str):
        return False
    try:
        return datetime.fromisoformat(date) >= since
    except (ValueError, TypeError):  # not a date; a date without its zone
        return False


def select_claims(
    store: Store, *, series: str | None = None, author: str | None = None,
    metric: str | None = None, direction: str | None = None, since: datetime | None = None,
) -> list[dict[str, Any]]:
    """Claims filtered as `patchperf claims` offers: by series (id or a member's
    Message-ID), author (a substring of the From of the message the figures were first
    written in, or, when that one is not stored, of the message quoting them), metric,
    direction and date."""
    keys = None
    if series is not None:
        keys = [k for s in store.series_for(series) for k in _member_keys(s)]
    claims = store.claim_docs(metric=metric, direction=direction, since=since, keys=keys)
    if author is None:
        return claims
    needle = author.casefold()
    senders = store.senders(k for c in claims for k in (c["message_id"], c["found_in"]) if k)
    kept = []
    for claim in claims:
        origin = claim["message_id"]
        sender = senders[origin] if origin in senders else senders.get(claim["found_in"])
        if sender is not None and needle in sender.casefold():
            kept.append(claim)
    return kept


def _member_keys(series: dict[str, Any]) -> list[str]:
    return [k for k in (series.get("cover"), *series.get("patches", []), *series.get("replies", []))
            if k]
