"""What the TUI's detail pane shows: one series, or one mail no series holds, with its
messages' bodies and diffs read again from the stored raw mail, and its claims with any
verdict kept in the store; and the list of that other mail.

Library functions over the store, so the TUI holds no SQL and no analysis of its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analyze.errors import BadInput
from analyze.mail.message import parse_message
from analyze.robot_series import Disagreement, authors_claims, disagreements

from .query import version_tracks
from .records import fold
from .store import Store

MAX_EARLIER = 20  # stored mail a lone mail answers, shown above it: the nearest ones


@dataclass(frozen=True, slots=True)
class ThreadMessage:
    key: str
    role: str  # cover | patch | reply of a series; `earlier` (mail a lone mail answers)
    subject: str
    sender: str
    date: str  # ISO 8601 as the mail gives it, or empty
    kind: str
    lines: tuple[str, ...]  # the text/plain body as sent
    depths: tuple[int, ...]  # quote depth of each line
    diff: str  # the message's own diff (not one it only quotes), or empty
    problem: str = ""  # why the stored mail could not be read again, if it could not


@dataclass(frozen=True, slots=True)
class SeriesDetail:
    series: dict[str, Any]
    messages: tuple[ThreadMessage, ...]
    claims: tuple[dict[str, Any], ...]  # with `scenario_id` and `verdict` when judged before
    # the kernel test robot's reports linked to the series (its `robot_reports`), and where
    # their findings and the series' own claims point opposite ways; the findings are the
    # robot's, so they are not among `claims` (which the Scenario tab simulates)
    robot: tuple[dict[str, Any], ...] = ()
    disagreements: tuple[Disagreement, ...] = ()
    tracks: tuple[dict[str, Any], ...] = ()  # its claims followed across its versions

    @property
    def ident(self) -> str:
        """What the pane shows, as its workers name it."""
        return str(self.series["id"])


@dataclass(frozen=True, slots=True)
class MailRow:
    """A stored mail that no series holds (a review of a patch never stored, a lone mail),
    as the TUI's other-mail list shows it."""
    key: str
    date: str  # ISO 8601 as the mail gives it, or empty
    sender: str
    subject: str
    kind: str
    claims: int  # claims read from it or first written in it
    folded: str  # subject and sender as a search matches them (`fold`)

    def matches(self, search: str) -> bool:
        return fold(search) in self.folded


@dataclass(frozen=True, slots=True)
class MailDetail:
    mail: MailRow
    messages: tuple[ThreadMessage, ...]  # the stored mail it answers, oldest first, then it
    claims: tuple[dict[str, Any], ...]  # read from it or first written in it, as a series'

    @property
    def ident(self) -> str:
        return f"mail {self.mail.key}"  # a space: no series id has one


def series_detail(store: Store, series_id: str) -> SeriesDetail | None:
    """The series with this id, its stored members in thread order, and its claims."""
    found = store.load_series([series_id])
    if not found:
        return None
    series = found[0]
    roles = ([("cover", series["cover"])] if series.get("cover") else []) + \
        [("patch", k) for k in series.get("patches", [])] + \
        [("reply", k) for k in series.get("replies", [])]
    messages = [m for m in (_read(store, role, key) for role, key in roles) if m is not None]
    robot = tuple(series.get("robot_reports") or ())
    claims = own_claims(_claims(store, [key for _, key in roles]), robot)
    version_tracks(store, [series])  # its claims across its stored versions, as reports show
    return SeriesDetail(series, tuple(messages), claims, robot,
                        tuple(disagreements(authors_claims(series, claims), robot)),
                        tuple(series.get("version_tracks") or ()))


def own_claims(claims: Iterable[dict[str, Any]], robot: Iterable[Mapping[str, Any]]
               ) -> tuple[dict[str, Any], ...]:
    """The series' claims without the robot's findings: a report answering a patch is among
    the series' replies, and its table is read as claims like any other mail's."""
    reports = {str(k) for r in robot for k in (r.get("message_id"), r.get("key")) if k}
    return tuple(c for c in claims if c.get("found_in") not in reports)


def disagreeing_series(store: Store) -> frozenset[str]:
    """The ids of the series whose own claims a linked robot report measured the opposite
    of. Only series with a linked report are read: few, beside the store's series."""
    ids = store.robot_series_ids()
    found = store.load_series(ids) if ids else []
    members = {s["id"]: set(_member_keys(s)) for s in found}
    claims = store.claim_docs(keys=[k for keys in members.values() for k in keys]) if found else []
    out = set()
    for series in found:
        robot = series.get("robot_reports") or ()
        mine = own_claims([dict(c) for c in authors_claims(series, _of(claims, members[series["id"]]))],
                          robot)
        if robot and disagreements(mine, robot):
            out.add(series["id"])
    return frozenset(out)


def _of(claims: Sequence[dict[str, Any]], keys: set[str]) -> list[dict[str, Any]]:
    """The claims read from, or first written in, one of these messages."""
    return [c for c in claims if c.get("message_id") in keys or c.get("found_in") in keys]


def other_mail(store: Store) -> list[MailRow]:
    """Every analysed mail no stored series holds, newest first (undated last), with how
    many claims each holds. It reads every message's document once (0.8 s for a store of
    33,000 messages): the TUI asks in a worker, when the list is first opened."""
    members = {k for s in store.all_series() for k in _member_keys(s)}
    counts: Counter[str] = Counter()
    for claim in store.claim_docs():
        counts.update({claim.get("message_id"), claim["found_in"]} - {None})
    dated: list[MailRow] = []
    undated: list[MailRow] = []
    for doc in store.iter_message_docs():  # oldest first, undated last
        key = str(doc["key"])
        if key in members:
            continue
        subject, sender = str(doc.get("subject") or ""), str(doc.get("from") or "")
        row = MailRow(key=key, date=str(doc.get("date") or ""), sender=sender, subject=subject,
                      kind=str(doc.get("kind") or ""), claims=counts[key],
                      folded=fold(f"{subject}\n{sender}"))
        (dated if row.date else undated).append(row)
    dated.reverse()
    return dated + undated


def mail_detail(store: Store, row: MailRow) -> MailDetail | None:
    """The mail of this row after the stored mail it answers (its References, the nearest
    MAX_EARLIER), and its claims; None when it is no longer stored."""
    doc = store.get_message_doc(row.key)
    if doc is None:
        return None
    earlier = [k for k in dict.fromkeys(doc.get("references") or []) if k != row.key]
    messages = [m for m in (_read(store, "earlier", k) for k in earlier[-MAX_EARLIER:])
                if m is not None]
    own = _read(store, row.kind or "mail", row.key)
    if own is not None:
        messages.append(own)
    return MailDetail(row, tuple(messages), _claims(store, [row.key]))


def _read(store: Store, role: str, key: str) -> ThreadMessage | None:
    """The stored mail with this key, parsed again; None when it was never stored (a thread
    fetched in part names mail that is not)."""
    raw = store.get_raw(key)
    if raw is None:
        return None
    try:
        m = parse_message(raw, key)
    except BadInput as exc:
        return ThreadMessage(key, role, "", "", "", "other", (), (), "", str(exc))
    return ThreadMessage(
        key=key, role=role, subject=m.subject.raw, sender=m.from_display,
        date=m.date.isoformat() if m.date else "", kind=m.kind,
        lines=m.body.lines, depths=m.body.depths,
        diff=m.patch.text if m.patch is not None and not m.patch.quoted else "",
    )


def _claims(store: Store, keys: list[str]) -> tuple[dict[str, Any], ...]:
    """The claims read from, or first written in, these messages, with any kept verdict."""
    claims = store.claim_docs(keys=keys)
    kept = store.stored_verdicts([c["id"] for c in claims])
    for claim in claims:
        if claim["id"] in kept:
            claim["scenario_id"], claim["verdict"] = kept[claim["id"]]
    return tuple(claims)


def _member_keys(series: dict[str, Any]) -> Iterable[str]:
    return (k for k in (series.get("cover"), *series.get("patches", []),
                        *series.get("replies", [])) if k)
