"""Domain values <-> plain dicts in the shape of the JSON contract (patchperf.schema.json).

The store keeps each analysed message as such a dict, and `message_for_series` rebuilds what
series assembly needs from it, so adding mail to a large store does not re-parse every
stored message.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from .claims.benchmark import family
from .mail.applied import applied_commits
from .mail.changelog import changelog_lines
from .mail.robot import RobotReport, read_robot_report
from .model import (
    Body,
    Claim,
    Diffstat,
    Message,
    Patch,
    ReceivedTrailer,
    Series,
    Subject,
    Trailer,
)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def subject_to_dict(subject: Subject) -> dict[str, Any]:
    return {
        "name": subject.name,
        "prefixes": list(subject.prefixes),
        "tree": subject.tree,
        "version": subject.version,
        "version_written": subject.version_written,
        "index": subject.index,
        "total": subject.total,
        "rfc": subject.rfc,
        "resend": subject.resend,
        "reply": subject.reply,
    }


def patch_to_dict(patch: Patch | None) -> dict[str, Any] | None:
    if patch is None:
        return None
    return {
        "files": [
            {
                "path": f.path,
                "old_path": f.old_path,
                "added": f.added,
                "removed": f.removed,
                "binary": f.binary,
                "new_file": f.new_file,
                "deleted_file": f.deleted_file,
                "renamed": f.renamed,
                "old_mode": f.old_mode,
                "new_mode": f.new_mode,
            }
            for f in patch.files
        ],
        "added": patch.added,
        "removed": patch.removed,
        "quoted": patch.quoted,
    }


def diffstat_to_dict(diffstat: Diffstat | None) -> dict[str, Any] | None:
    if diffstat is None:
        return None
    return {
        "files": [{"path": f.path, "changed": f.changed} for f in diffstat.files],
        "added": diffstat.added,
        "removed": diffstat.removed,
    }


def trailer_to_dict(trailer: Trailer) -> dict[str, Any]:
    out: dict[str, Any] = {"key": trailer.key, "value": trailer.value}
    if trailer.email:
        out["name"] = trailer.name
        out["email"] = trailer.email
    return out


def message_to_dict(message: Message) -> dict[str, Any]:
    """The `message` object of the JSON contract, plus a few fields of our own."""
    doc: dict[str, Any] = {
        "message_id": message.message_id,
        "key": message.key,
        "subject": message.subject.raw,
        "from": message.from_display,
        "from_name": message.from_name,
        "from_addr": message.from_addr,
        "address_hidden": message.address_hidden,
        "date": _iso(message.date),
        "in_reply_to": message.in_reply_to,
        "references": list(message.references),
        "kind": message.kind,
        "subject_parts": subject_to_dict(message.subject),
        "patch": patch_to_dict(message.patch),
        "diffstat": diffstat_to_dict(message.diffstat),
        "pull_url": message.pull_url,
        "trailers": [trailer_to_dict(t) for t in message.trailers],
        "change_id": message.change_id,
        "list_id": message.list_id,
        "links": list(message.links),
        "content_hash": message.content_hash,
        "origin": message.origin,
    }
    # Two fields only some mail has, left out of the rest (a million stored documents):
    # the kernel test robot's report this mail is, and the commits an "applied" mail names.
    # Series linking reads them (analyze/robot_series.py).
    report = read_robot_report(message)
    if report is not None:
        doc["robot_report"] = robot_report_to_dict(report)
    commits = applied_commits(message)
    if commits:
        doc["applied_commits"] = list(commits)
    # and a cover's or a patch's version notes ("Changes in v3:"), which tell whether a
    # figure that moved between versions was measured again (analyze/versions.py): read from
    # a second version on, since a first version's figures have nothing to move from
    if message.kind in ("cover", "patch") and message.subject.version > 1:
        notes = changelog_lines(message.body.lines, message.body.depths)
        if notes:
            doc["changelog"] = [[n.version, n.text] for n in notes]
    return doc


def robot_report_to_dict(report: RobotReport) -> dict[str, Any]:
    """A message's `robot_report` object (docs/json.md): what the robot tested and found."""
    return {
        "kind": report.kind,
        "commit": report.commit,
        "commit_subject": report.commit_subject,
        "patch_link": report.patch_link,
        "testcase": report.testcase,
        "machine": report.machine,
        "family": family(report.family) if report.family else None,
        "metric": report.metric,
        "change_pct": report.change_pct,
        "direction": report.direction,
    }


def robot_report_from_dict(key: str, d: dict[str, Any]) -> RobotReport:
    return RobotReport(key, d["kind"], d.get("commit"), d.get("commit_subject"),
                       d.get("patch_link"), d.get("testcase"), d.get("machine"),
                       d.get("metric"), d.get("change_pct"), d.get("direction"))


def series_to_dict(series: Series) -> dict[str, Any]:
    """The `series` object of the JSON contract."""
    return {
        "id": series.id,
        "name": series.name,
        "version": series.version,
        "total": series.total,
        "tree": series.tree,
        "author": series.author,
        "date": _iso(series.date),
        "cover": series.cover,
        "patches": list(series.patches),
        "complete": series.complete,
        "previous_version": series.previous_version,
        "received_trailers": [
            {**trailer_to_dict(r.trailer), "message_id": r.message_id, "target": r.target}
            for r in series.received_trailers
        ],
        "replies": list(series.replies),
        "pull_request": series.pull_request,
        "trailer_counts": dict(series.trailer_counts),
    }


# -- back from dicts (the store's documents) -------------------------------------------------


def _trailer(d: dict[str, Any]) -> Trailer:
    return Trailer(d["key"], d["value"], d.get("name"), d.get("email"))


def series_from_dict(d: dict[str, Any]) -> Series:
    return Series(
        id=d["id"],
        name=d["name"],
        version=d["version"],
        total=d["total"],
        tree=d["tree"],
        author=d.get("author", ""),
        date=datetime.fromisoformat(d["date"]) if d.get("date") else None,
        cover=d["cover"],
        patches=tuple(d["patches"]),
        complete=d["complete"],
        previous_version=d.get("previous_version"),
        received_trailers=tuple(
            ReceivedTrailer(_trailer(r), r["message_id"], r["target"])
            for r in d.get("received_trailers", ())
        ),
        replies=tuple(d.get("replies", ())),
        pull_request=d.get("pull_request", False),
        trailer_counts=tuple(sorted((str(k), int(v)) for k, v in d.get("trailer_counts", {}).items())),
    )


def claim_to_dict(claim: Claim) -> dict[str, Any]:
    """The `claim` object of the JSON contract (scenario and verdict come with the simulator)."""
    return {
        "id": claim.id,
        "message_id": claim.message_id,
        "found_in": claim.found_in,
        "quoted": claim.quoted,
        "metric": claim.metric,
        "unit": claim.unit,
        "patched_unit": claim.patched_unit,
        "canonical_unit": claim.canonical_unit,
        "baseline": claim.baseline,
        "patched": claim.patched,
        "baseline_canonical": claim.baseline_canonical,
        "patched_canonical": claim.patched_canonical,
        "bound": claim.bound,
        "change_pct": _round(claim.change_pct),
        "stated_change_pct": claim.stated_change_pct,
        "runs": None if claim.runs is None else {"baseline": list(claim.runs[0]),
                                                 "patched": list(claim.runs[1])},
        "consistent": claim.consistent,
        "direction": claim.direction,
        "condition": dict(claim.condition),
        "benchmark": claim.benchmark,
        "source": claim.source,
        "quote": claim.quote,
        "line": claim.line,
        "date": _iso(claim.date),
        "scenario_id": None,
        "verdict": None,
    }


def _round(value: float | None) -> float | None:
    # JSON has no inf/nan; keep 6 decimals, more than any mail writes
    if value is None or not math.isfinite(value):
        return None
    return round(value, 6)


_NO_BODY = Body(lines=(), depths=())


def message_for_series(d: dict[str, Any], shared: dict[Any, Any]) -> Message:
    """What series assembly and threading read of a stored message, and nothing more.

    A series rebuild holds every analysed message of the store at once (a patch may arrive
    before its cover): a million for netdev. The diff's files, the diffstat, the subject's
    prefixes, the content hash and where the mail was read are left out, and every string,
    subject, trailer and time zone seen twice is kept once through `shared` (a reply's
    References repeat the ids of the mail above it; senders, names and trailers recur down
    a thread): 560 bytes a message where the whole document made 2,900. The content hash
    only breaks ties between two analysed mails with one key, which a store should not hold
    (variants are kept apart); if one did, the mail stored first would win the tie."""
    def one(value: Any) -> Any:
        return shared.setdefault(value, value)

    sp = d["subject_parts"]
    kind = one(d["kind"])
    subject = Subject(
        # the raw subject names a pull request's series; no other mail's is read
        raw=d["subject"] if kind == "pull_request" else "",
        name=one(sp["name"]),
        prefixes=(),
        tree=None if sp["tree"] is None else one(sp["tree"]),
        version=sp["version"],
        version_written=sp.get("version_written", sp["version"] != 1),
        index=sp["index"],
        total=sp["total"],
        rfc=sp["rfc"],
        resend=sp["resend"],
        reply=sp["reply"],
    )
    subject = one(subject)  # a thread's replies share theirs
    date = None
    if d.get("date"):
        date = datetime.fromisoformat(d["date"])
        zone = date.tzinfo
        if zone is not None:
            date = date.replace(tzinfo=shared.setdefault(zone, zone))
    key = one(d["key"])
    in_reply_to = d["in_reply_to"]
    return Message(
        key=key,
        message_id=key if d["message_id"] is not None else None,
        content_hash="",
        subject=subject,
        from_name=one(d.get("from_name", "")),
        from_addr=one(d.get("from_addr", "")),
        address_hidden=d.get("address_hidden", False),
        date=date,
        in_reply_to=None if in_reply_to is None else one(in_reply_to),
        references=tuple(one(r) for r in d.get("references", ())),
        body=_NO_BODY,
        attachments=(),
        kind=kind,
        patch=None,
        diffstat=None,
        pull_url=None,
        trailers=tuple(one(_trailer(t)) for t in d.get("trailers", ())),
        change_id=d.get("change_id"),
        links=tuple(d.get("links", ())),
    )
