"""Version-history notes read from a mail body: shapes written here after the real ones, and
a check on the annotated real posts of ../shared."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyze.mail.body import make_body
from analyze.mail.changelog import MAX_KEPT, MAX_READ, ChangelogLine, changelog_lines
from analyze.mail.message import parse_message

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers


def _read(text: str) -> list[tuple[int | None, str]]:
    body = make_body(text)
    return [(line.version, line.text) for line in changelog_lines(body.lines, body.depths)]


def test_b4_cover_keeps_links_and_drops_placeholders() -> None:
    text = """\
This series teaches the frobnicator to batch.

---
Changes in v3:
- Split the helper into its own patch
- EDITME: use bulletpoints and terse descriptions.
- Link to v2: https://lore.kernel.org/r/20250101-frob-v2-0-1234@example.org

Changes in v2:
- Dropped the sysctl
- Link to v1: https://lore.kernel.org/r/20241201-frob-v1-0-1234@example.org

---
base-commit: 0123456789abcdef0123456789abcdef01234567
change-id: 20241201-frob-0123
"""
    assert _read(text) == [
        (3, "- Split the helper into its own patch"),
        (3, "- Link to v2: https://lore.kernel.org/r/20250101-frob-v2-0-1234@example.org"),
        (2, "- Dropped the sysctl"),
        (2, "- Link to v1: https://lore.kernel.org/r/20241201-frob-v1-0-1234@example.org"),
    ]


def test_stacked_since_headings_newest_is_this_mail() -> None:
    # a v4 patch: `since v3` is what v4 changed, `since v2` what v3 changed
    text = """\
Signed-off-by: A Developer <dev@example.org>
---
Changes since v3
 - renamed the flag
Changes since v2:
 - moved the check out of the loop
Changes since v1
 - added a Fixes: tag

 net/core/dev.c | 4 ++--
 1 file changed, 2 insertions(+), 2 deletions(-)
"""
    assert _read(text) == [
        (None, "- renamed the flag"),
        (3, "- moved the check out of the loop"),
        (2, "- added a Fixes: tag"),
    ]


@pytest.mark.parametrize(("heading", "version"), [
    ("Changes v2 -> v3:", 3),
    ("v2->v3:", 3),
    ("V1 -> V2", 2),
    ("RFC v2 -> v3:", 3),
    ("RFC -> RFC v2:", 2),
    ("Changes in v7:", 7),
    ("Changes since v5:", None),
    ("Changes from v1:", None),
    ("From v1[0]:", None),
    ("v6:", 6),
    ("V6:", 6),
    ("Changelog v2:", 2),
])
def test_heading_shapes(heading: str, version: int | None) -> None:
    got = _read(f"Intro.\n\n{heading}\n- tightened the locking\n")
    assert got == [(version, "- tightened the locking")]


@pytest.mark.parametrize("line", ["v4 - > v5:", "v2", "Changes:", "version 2 of the driver:"])
def test_not_headings(line: str) -> None:
    assert _read(f"Intro.\n\n{line}\n- tightened the locking\n") == []


def test_one_line_form_and_its_lookalikes() -> None:
    text = """\
Signed-off-by: A Developer <dev@example.org>
---
v3: https://lore.kernel.org/netdev/20250102.abcd@example.org/
v2: reworded the commit message
---
 drivers/net/foo.c | 2 +-
"""
    assert _read(text) == [
        (None, "v3: https://lore.kernel.org/netdev/20250102.abcd@example.org/"),
        (2, "reworded the commit message"),
    ]
    # a figure labelled with a version is a result, not a change
    assert _read("Results:\nv1: 5.2 Mpps\nv2: 5.9 Mpps\n") == []


def test_section_ends_and_continues() -> None:
    text = """\
Changelog:
  v2 -> v3:
    dropped the fast path
    kept the counters

  v1 -> v2:
1) reordered the patches
2) documented the new knob, wrapped
over two lines

This is the cover letter's prose again, mentioning v2: in passing.
- not a changelog bullet any more
Tested-by: Someone <someone@example.org>
"""
    assert _read(text) == [
        (3, "dropped the fast path"),
        (3, "kept the counters"),
        (2, "1) reordered the patches"),
        (2, "2) documented the new knob, wrapped"),
        (2, "over two lines"),
    ]


def test_blank_then_bullet_continues_but_trailer_and_shortlog_end() -> None:
    text = """\
v2:
- first note

- second note after a blank
Reviewed-by: R <r@example.org>
- after the trailer

v3:
- third note
A Developer (3):
  net: first
"""
    assert _read(text) == [(2, "- first note"), (2, "- second note after a blank"),
                           (3, "- third note")]


def test_rfc_and_from_headings() -> None:
    text = "From v1[0]:\n* 01: new helper\n\nFrom RFC[1]:\n* 02: kdoc fixes\n"
    # the newest `from` is this mail's version; the RFC came before v1
    assert _read(text) == [(None, "* 01: new helper"), (1, "* 02: kdoc fixes")]


def test_prose_and_quotes_are_not_changelogs() -> None:
    assert _read("Changes since v2 are small: a rename and a comment.\n- a bullet\n") == []
    quoted = "> Changes in v2:\n> - dropped the sysctl\n\nThanks, applied.\n"
    assert _read(quoted) == []
    # a quote interrupts a list: what follows it is prose again
    mixed = "v2:\n- kept\n> quoted reply\nunrelated line\n"
    assert _read(mixed) == [(2, "- kept")]


def test_signature_and_diff_stop_reading() -> None:
    text = "v2:\n- kept\n-- \nv3:\n- after the signature\n"
    assert _read(text) == [(2, "- kept")]
    text = "diff --git a/x b/x\n+v3:\n+- added\nv4:\n- after the diff\n"
    assert _read(text) == []


def test_reading_is_bounded() -> None:
    late = "filler\n" * MAX_READ + "v2:\n- too late\n"
    assert _read(late) == []
    # quoted lines do not count against the bound
    quoted = "> filler\n" * MAX_READ + "v2:\n- on time\n"
    assert _read(quoted) == [(2, "- on time")]
    many = "v2:\n" + "- note\n" * (MAX_READ - 2)
    got = _read(many)
    assert len(got) == MAX_KEPT and len(got) < MAX_READ - 2


def test_lines_are_records() -> None:
    body = make_body("v2: one change\n")
    (line,) = changelog_lines(body.lines, body.depths)
    assert line == ChangelogLine(2, "one change")
    with pytest.raises(AttributeError):
        line.version = 3  # type: ignore[misc]


def _post(real_dir: Path, name: str) -> tuple[ChangelogLine, ...]:
    data = (real_dir / f"{name}.txt").read_bytes()
    data = data.split(b"\n\n", 1)[1] if data.startswith(b"Source: ") else data
    body = parse_message(data).body
    return changelog_lines(body.lines, body.depths)


@pytest.mark.parametrize(("name", "versions"), [
    ("iwl-027", [None, 3, 2]),  # stacked `Changes since` in a v4 patch
    ("iwl-020", [7, 6, 5, 4, 3, 2]),  # bare `vN:` headings and one-line notes below `---`
    ("io-019", [None, 7]),  # `since v7` in a v8 cover, with `v7 : <url>` lines
    ("iwl-028", [None, 2]),  # `V1: <url>`, then `changelog:` over `V1 -> V2`
    ("nd-031", [4, 3, 2]),  # numbered notes with `Link:` lines
])
def test_real_posts(real_dir: Path, name: str, versions: list[int | None]) -> None:
    got = _post(real_dir, name)
    assert got, name
    assert list(dict.fromkeys(line.version for line in got)) == versions


def test_real_post_without_history(real_dir: Path) -> None:
    got = _post(real_dir, "io-001")
    assert got == ()
