"""Threading and series assembly on small synthetic messages (rules from Patchwork's fixtures)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st
from stores import gen_mbox

from analyze.mail.links import linked_message_ids
from analyze.mail.message import parse_message
from analyze.mail.series import assemble_series
from analyze.mail.threads import build_threads
from analyze.model import Body, Message, Subject, Trailer
from analyze.serialize import message_for_series, message_to_dict, series_from_dict, series_to_dict
from corpus.store import encode_doc
from ingest.mboxrd import iter_mboxrd
from ingest.raw import RawMail

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def mail(
    key: str,
    name: str = "net: fix things",
    *,
    index: int | None = None,
    total: int | None = None,
    version: int | None = None,
    kind: str | None = None,
    reply: bool = False,
    minutes: float = 0,
    date: datetime | None | bool = True,
    sender: str = "alice@example.org",
    irt: str | None = None,
    refs: tuple[str, ...] = (),
    lines: tuple[str, ...] = (),
    trailers: tuple[Trailer, ...] = (),
    change_id: str | None = None,
    tree: str | None = None,
) -> Message:
    """A Message with only what threading and series assembly look at."""
    if kind is None:
        kind = "cover" if index == 0 else ("reply" if reply else "patch")
    prefix = "PATCH" + (f" v{version}" if version else "")
    if index is not None:
        prefix += f" {index}/{total}"
    raw = ("Re: " if reply else "") + f"[{prefix}] {name}"
    subject = Subject(
        raw=raw,
        name=name,
        prefixes=tuple(prefix.split()),
        tree=tree,
        version=version or 1,
        version_written=version is not None,
        index=index,
        total=total,
        rfc=False,
        resend=False,
        reply=reply,
    )
    when = T0 + timedelta(minutes=minutes) if date is True else (date or None)
    depths = tuple(len(x) - len(x.lstrip(">")) for x in lines)
    return Message(
        key=key,
        message_id=key,
        content_hash=hashlib.sha256(key.encode()).hexdigest(),
        subject=subject,
        from_name=sender.split("@")[0].title(),
        from_addr=sender,
        address_hidden=False,
        date=when,
        in_reply_to=irt,
        references=refs,
        body=Body(lines=lines, depths=depths),
        attachments=(),
        kind=kind,
        patch=None,
        diffstat=None,
        pull_url="git://x" if kind == "pull_request" else None,
        trailers=trailers,
        change_id=change_id,
        links=linked_message_ids(lines, depths),
    )


def series_shape(series) -> list[tuple[str | None, tuple[str, ...]]]:
    return [(s.cover, s.patches) for s in series]


def cover_and_two(prefix: str = "a", version: int | None = None, minutes: float = 0):
    c = f"{prefix}0"
    return [
        mail(c, "A sample series", index=0, total=2, version=version, minutes=minutes),
        mail(
            f"{prefix}1",
            "one",
            index=1,
            total=2,
            version=version,
            minutes=minutes + 1,
            irt=c,
            refs=(c,),
        ),
        mail(
            f"{prefix}2",
            "two",
            index=2,
            total=2,
            version=version,
            minutes=minutes + 2,
            irt=c,
            refs=(c,),
        ),
    ]


# --- threads -------------------------------------------------------------------------------


def test_parent_is_in_reply_to_then_nearest_known_reference():
    msgs = [
        mail("root", index=1, total=1),
        mail("r1", reply=True, minutes=1, irt="root", refs=("root",)),
        mail("r2", reply=True, minutes=2, refs=("root", "r1", "gone")),
        mail("r3", reply=True, minutes=3, irt="missing", refs=("root", "missing")),
    ]
    threads = build_threads(msgs)
    assert threads.parent["root"] is None
    assert threads.parent["r1"] == "root"
    assert threads.parent["r2"] == "r1"  # last References entry that is known
    assert threads.parent["r3"] == "missing"  # header value kept though not in the input
    assert list(threads.ancestors("r3")) == ["missing", "root"]  # References bridge the gap
    assert threads.root["r3"] == "root"
    assert threads.children["root"] == ("r1", "missing")
    assert threads.thread("root") == ("root", "r1", "r2", "r3")


def test_unknown_parent_without_references_is_the_root():
    threads = build_threads([mail("x", reply=True, irt="elsewhere")])
    assert threads.root["x"] == "elsewhere"


def test_subject_fallback_only_without_headers():
    msgs = [
        mail("orig", "tcp: speed up", index=1, total=1),
        mail("re1", "tcp: speed up", reply=True, minutes=5),  # openwall page: no headers
        mail("re2", "tcp: speed up", reply=True, minutes=6, refs=("other",)),
        mail("early", "tcp: speed up", reply=True, minutes=-5),  # before the original
        mail("re3", "TCP:  speed up", reply=True, minutes=7),
    ]
    threads = build_threads(msgs)
    assert threads.parent["re1"] == "orig"
    assert threads.parent["re2"] == "other"
    assert threads.parent["early"] is None
    assert threads.parent["re3"] == "orig"


def test_reference_loops_are_cut():
    msgs = [mail("a", reply=True, irt="b"), mail("b", reply=True, minutes=1, irt="a")]
    threads = build_threads(msgs)
    assert threads.parent["a"] == "b"
    assert threads.parent["b"] is None
    assert list(threads.ancestors("a")) == ["b"]


# --- series by references ----------------------------------------------------------------


def test_cover_and_patches_form_one_complete_series():
    (series,) = assemble_series(cover_and_two())
    assert series.cover == "a0"
    assert series.patches == ("a1", "a2")
    assert series.name == "A sample series"
    assert series.total == 2 and series.complete is True
    assert series.id == "s" + hashlib.sha1(b"a0").hexdigest()[:12]
    assert series.author == "Alice <alice@example.org>"
    assert series.date == T0


def test_without_cover_the_name_and_anchor_are_the_first_patch():
    msgs = [
        mail("p2", "two", index=2, total=2, minutes=1, irt="p1", refs=("p1",)),
        mail("p1", "one", index=1, total=2),
    ]
    (series,) = assemble_series(msgs)
    assert series.name == "one"
    assert series.patches == ("p1", "p2")
    assert series.id == "s" + hashlib.sha1(b"p1").hexdigest()[:12]


def test_later_dated_cover_is_found_through_references():
    # base-out-of-order / revision-out-of-order: patches carry the cover's id before it exists.
    msgs = cover_and_two()
    msgs[0] = mail("a0", "A sample series", index=0, total=2, minutes=10)
    (series,) = assemble_series(msgs)
    assert series_shape([series]) == [("a0", ("a1", "a2"))]
    assert series.date == T0 + timedelta(minutes=1)


def test_unversioned_patches_join_a_versioned_cover():
    # Patchwork base-different-versions: `[PATCH net-next v3 0/4]` then `[PATCH n/4]`.
    msgs = [mail("c", "dsa", index=0, total=2, version=3)] + [
        mail(f"p{i}", index=i, total=2, minutes=i, irt="c", refs=("c",)) for i in (1, 2)
    ]
    (series,) = assemble_series(msgs)
    assert series.version == 3 and series.patches == ("p1", "p2")


def test_new_version_threaded_under_the_old_is_a_new_series():
    v1 = cover_and_two("a")
    v2 = [
        mail(
            "b0", "A sample series", index=0, total=2, version=2, minutes=10, irt="a0", refs=("a0",)
        ),
        mail("b1", "one", index=1, total=2, version=2, minutes=11, irt="b0", refs=("a0", "b0")),
        mail("b2", "two", index=2, total=2, version=2, minutes=12, irt="b0", refs=("a0", "b0")),
    ]
    first, second = assemble_series(v1 + v2)
    assert series_shape([first, second]) == [("a0", ("a1", "a2")), ("b0", ("b1", "b2"))]
    assert second.previous_version == first.id
    assert first.previous_version is None


def test_mixed_versions_split():
    # Patchwork bugs-mixed-versions: `[PATCH 1/2]`, then `[PATCH v2 2/2]` in reply to it.
    msgs = [
        mail("p1", index=1, total=2),
        mail("q2", index=2, total=2, version=2, minutes=1, irt="p1", refs=("p1",)),
    ]
    assert [s.patches for s in assemble_series(msgs)] == [("p1",), ("q2",)]


def test_resend_under_the_first_posting_is_a_new_series():
    # Patchwork bugs-nocover-noversion: same subjects, threaded under the first 1/2.
    msgs = [
        mail("p1", index=1, total=2),
        mail("p2", index=2, total=2, minutes=1, irt="p1", refs=("p1",)),
        mail("q1", index=1, total=2, minutes=9, irt="p1", refs=("p1",)),
        mail("q2", index=2, total=2, minutes=10, irt="q1", refs=("q1",)),
    ]
    assert [s.patches for s in assemble_series(msgs)] == [("p1", "p2"), ("q1", "q2")]


def test_unnumbered_patch_in_reply_to_a_cover_starts_its_own_series():
    # Patchwork bugs-unnumbered: "This is an orphaned patch!" answers the cover with a diff.
    msgs = cover_and_two()[:2] + [mail("orphan", "orphaned", minutes=3, irt="a0", refs=("a0",))]
    first, second = assemble_series(msgs)
    assert series_shape([first, second]) == [("a0", ("a1",)), (None, ("orphan",))]
    assert second.total == 1 and second.complete is True


def test_extra_patch_joins_and_incomplete_series_says_so():
    extra = mail("a3", "three", index=3, total=2, minutes=3, irt="a0", refs=("a0",))
    (series,) = assemble_series([*cover_and_two(), extra])
    assert series.patches == ("a1", "a2", "a3") and series.complete is True
    (partial,) = assemble_series(cover_and_two()[:2])
    assert partial.complete is False


def test_reply_with_a_diff_is_a_comment_not_a_series():
    msgs = [
        *cover_and_two(),
        mail(
            "fix",
            "one",
            index=1,
            total=2,
            reply=True,
            kind="patch",
            minutes=5,
            irt="a1",
            refs=("a0", "a1"),
        ),
    ]
    (series,) = assemble_series(msgs)
    assert series.replies == ("fix",)


# --- series by markers ---------------------------------------------------------------------


def test_unthreaded_patches_group_by_markers():
    # Patchwork base-no-references: `[net,v2,1/2]` and `[net,v2,2/2]`, no threading headers.
    msgs = [
        mail("p1", index=1, total=2, version=2),
        mail("p2", index=2, total=2, version=2, minutes=8),
    ]
    assert [s.patches for s in assemble_series(msgs)] == [("p1", "p2")]


def test_markers_need_same_sender_total_version_and_window():
    base = mail("p1", index=1, total=2)
    others = [
        mail("late", index=2, total=2, minutes=13 * 60),
        mail("bob", index=2, total=2, minutes=1, sender="bob@example.org"),
        mail("three", index=2, total=3, minutes=2),
        mail("v2", index=2, total=2, version=2, minutes=3),
    ]
    for other in others:
        assert len(assemble_series([base, other])) == 2, other.key


def test_same_patch_sent_twice_is_two_series():
    # Patchwork bugs-spamming: the same `[PATCH v2 1/4]` three times within minutes.
    msgs = [mail(f"s{i}", index=1, total=4, version=2, minutes=i) for i in range(3)]
    assert [s.patches for s in assemble_series(msgs)] == [("s0",), ("s1",), ("s2",)]


def test_resent_series_goes_to_the_most_recent_by_markers():
    # Patchwork revision-unlabeled-noreferences: the same two patches an hour apart.
    msgs = [
        mail("a1", index=1, total=2),
        mail("a2", index=2, total=2, minutes=8),
        mail("b1", index=1, total=2, minutes=60),
        mail("b2", index=2, total=2, minutes=68),
    ]
    assert [s.patches for s in assemble_series(msgs)] == [("a1", "a2"), ("b1", "b2")]


def test_undated_mail_is_not_grouped_by_markers():
    msgs = [mail("p1", index=1, total=2, date=None), mail("p2", index=2, total=2, date=None)]
    assert len(assemble_series(msgs)) == 2


# --- replies, trailers, pull requests ------------------------------------------------------


def test_received_trailers_come_from_unquoted_reply_lines():
    ack = Trailer("Acked-by", "Bob <bob@example.org>", "Bob", "bob@example.org")
    rev = Trailer("Reviewed-by", "Carol <carol@example.org>", "Carol", "carol@example.org")
    sob = Trailer("Signed-off-by", "Dan <dan@example.org>", "Dan", "dan@example.org")
    msgs = [
        *cover_and_two(),
        mail(
            "r1",
            reply=True,
            minutes=5,
            irt="a1",
            refs=("a0", "a1"),
            lines=(
                "> Signed-off-by: Alice",
                "",
                f"Acked-by: {ack.value}",
                f"Signed-off-by: {sob.value}",
            ),
            trailers=(ack, sob),
        ),
        # nested: answers r1, so its target is the nearest patch above, a1
        mail(
            "r2",
            reply=True,
            minutes=6,
            irt="r1",
            refs=("a0", "a1", "r1"),
            lines=(f"> Acked-by: {ack.value}", f"Reviewed-by: {rev.value}"),
            trailers=(rev,),
        ),
        # a quoted ack gives no trailer (analyze.mail.trailers reads unquoted lines only)
        mail(
            "r3",
            reply=True,
            minutes=7,
            irt="a0",
            refs=("a0",),
            lines=(f"> Reviewed-by: {rev.value}",),
        ),
        mail(
            "o1",
            kind="other",
            minutes=8,
            irt="a2",
            refs=("a0", "a2"),
            lines=(f"Tested-by: {ack.value}",),
            trailers=(ack,),
        ),
    ]
    (series,) = assemble_series(msgs)
    got = [(r.trailer.key, r.message_id, r.target) for r in series.received_trailers]
    assert got == [("Acked-by", "r1", "a1"), ("Reviewed-by", "r2", "a1")]
    assert series.replies == ("r1", "r2", "r3", "o1")
    assert series.trailer_counts == (("Acked-by", 1), ("Reviewed-by", 1))


def test_trailer_counts_add_members_own_to_received_and_survive_a_round_trip():
    sob = Trailer("Signed-off-by", "Alice <alice@example.org>", "Alice", "alice@example.org")
    ack = Trailer("Acked-by", "Bob <bob@example.org>", "Bob", "bob@example.org")
    fixes = Trailer("Fixes", 'abcdef123456 ("net: old")')
    cover, one, two = cover_and_two()
    msgs = [
        replace(cover, trailers=(ack,)),  # an ack carried over into v2's cover
        replace(one, trailers=(fixes, sob)),
        replace(two, trailers=(sob, ack)),
        mail("r", reply=True, minutes=5, irt="a2", refs=("a0", "a2"), trailers=(ack,)),
    ]
    (series,) = assemble_series(msgs)
    expected = (("Acked-by", 3), ("Fixes", 1), ("Signed-off-by", 2))
    assert series.trailer_counts == expected
    doc = series_to_dict(series)
    assert doc["trailer_counts"] == {"Acked-by": 3, "Fixes": 1, "Signed-off-by": 2}
    assert list(doc["trailer_counts"]) == ["Acked-by", "Fixes", "Signed-off-by"]
    assert series_from_dict(json.loads(json.dumps(doc))) == series
    older = {k: v for k, v in doc.items() if k != "trailer_counts"}  # stored before the field
    assert series_from_dict(older).trailer_counts == ()

    pull = mail("pr", "pull-request: net", kind="pull_request", trailers=(sob,))
    (pulled,) = assemble_series([pull])
    assert pulled.trailer_counts == (("Signed-off-by", 1),)


def test_pull_request_is_a_series_of_its_own():
    msgs = [
        mail("pr", "pull-request: bpf 2024-03-01", kind="pull_request"),
        mail("r", reply=True, minutes=1, irt="pr", refs=("pr",)),
    ]
    (series,) = assemble_series(msgs)
    assert series.pull_request and series.cover == "pr" and series.patches == ()
    assert series.name == "pull-request: bpf 2024-03-01" and series.complete is None
    assert series.replies == ("r",)


# --- versions across threads ---------------------------------------------------------------


def test_previous_version_by_name_and_author():
    v1 = cover_and_two("a")
    v3 = cover_and_two("c", version=3, minutes=2000)
    v2 = cover_and_two("b", version=2, minutes=1000)
    stranger = [
        mail(
            "z0",
            "A  SAMPLE series",
            index=0,
            total=2,
            version=4,
            minutes=3000,
            sender="eve@example.org",
        )
    ]
    s1, s2, s3, s4 = assemble_series(v1 + v3 + v2 + stranger)
    assert (s1.previous_version, s2.previous_version, s3.previous_version) == (None, s1.id, s2.id)
    assert s4.previous_version is None  # another author


def test_previous_version_by_change_id_and_lore_link():
    v1 = [mail("old", "net: first name", index=1, total=1, change_id="20240301-x-1a2b")]
    v2 = [
        mail(
            "new",
            "net: renamed",
            index=1,
            total=1,
            version=2,
            minutes=999,
            change_id="20240301-x-1a2b",
        )
    ]
    s1, s2 = assemble_series(v1 + v2)
    assert s2.previous_version == s1.id

    cover = mail(
        "c2@host",
        "other words",
        index=0,
        total=1,
        version=2,
        minutes=999,
        lines=("v1: https://lore.kernel.org/netdev/old%40host/",),
    )
    patch = mail("c2-1", "renamed", index=1, total=1, version=2, minutes=1000, irt="c2@host")
    first = mail("old@host", "net: first name", index=1, total=1)
    s1, s2 = assemble_series([first, cover, patch])
    assert s2.previous_version == s1.id

    b4 = mail(
        "c3",
        "x",
        index=0,
        total=1,
        version=3,
        minutes=5000,
        lines=("- Link to v2: https://lore.kernel.org/r/c2@host",),
    )
    assert assemble_series([first, cover, patch, b4])[-1].previous_version == s2.id


# --- order independence --------------------------------------------------------------------

_CORPUS = [
    *cover_and_two("a"),
    mail("a3", "three", index=3, total=2, minutes=3, irt="a0", refs=("a0",)),
    mail(
        "b0",
        "A sample series",
        index=0,
        total=2,
        version=2,
        minutes=10,
        irt="a2",
        refs=("a0", "a2"),
    ),
    mail("b2", "two", index=2, total=2, version=2, minutes=11, irt="b0", refs=("a2", "b0")),
    mail("b1", "one", index=1, total=2, version=2, minutes=11, irt="b0", refs=("a2", "b0")),
    mail("n1", index=1, total=2),
    mail("n2", index=2, total=2, minutes=5),
    mail("m1", index=1, total=2, minutes=6),
    mail("x", "orphan", minutes=4, irt="a0", refs=("a0",)),
    mail("r", reply=True, minutes=20, irt="b1", refs=("a2", "b0", "b1")),
    mail("r", reply=True, minutes=21, irt="b2", refs=("b2",)),  # same id, other bytes
    mail("u", "A sample series", reply=True, minutes=30),
]


@settings(max_examples=60, deadline=None)
@given(st.permutations(_CORPUS))
def test_any_order_gives_the_same_result(order):
    assert assemble_series(order) == assemble_series(_CORPUS)
    threads, expected = build_threads(order), build_threads(_CORPUS)
    assert dict(threads.parent) == dict(expected.parent)
    assert dict(threads.root) == dict(expected.root)
    assert dict(threads.children) == dict(expected.children)


# --- rebuilt from the store's documents ---------------------------------------------------


def _as_stored(messages):
    """What a series rebuild works from: each message's stored document, read back lean."""
    shared: dict = {}
    return [message_for_series(json.loads(encode_doc(message_to_dict(m))), shared)
            for m in messages]


def test_series_from_stored_documents_are_the_series_of_the_mail(tmp_path):
    # a store holds one mail per key: the corpus' second `r` would be a variant
    unique = list({m.key: m for m in reversed(_CORPUS)}.values())
    unique += [mail("pr", "pull-request: bpf 2024-03-01", kind="pull_request", minutes=40),
               mail("pr-r", reply=True, minutes=41, irt="pr", refs=("pr",))]
    generated = tmp_path / "gen.mbox"
    gen_mbox().generate(generated, n=1500, seed=5)
    with generated.open("rb") as f:
        mails = [parse_message(item.data) for item in iter_mboxrd(f, str(generated))
                 if isinstance(item, RawMail)]
    for messages in (unique, mails):
        expected = assemble_series(messages)
        assert len(expected) > 3
        assert assemble_series(_as_stored(messages)) == expected


def test_stored_documents_share_what_recurs():
    cover, one, two = cover_and_two("s")
    lean = _as_stored([cover, one, two])
    # the patches' In-Reply-To is the cover's key itself, not a copy of it
    assert lean[1].in_reply_to is lean[0].key
    assert lean[1].from_addr is lean[2].from_addr
