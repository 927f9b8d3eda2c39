"""Finding and reading diffs in mail bodies (analyze/mail/diff.py)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyze.errors import BadInput, LimitExceeded
from analyze.mail.diff import DiffTooLarge, find_patch, strip_quote

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers

# A one-hunk git diff like the one Patchwork's body-split tests build (inline_cases.json).
DIFF = """\
diff --git a/meep.text b/meep.text
index 3d75e3a..e1a4c3b 100644
--- a/meep.text
+++ b/meep.text
@@ -1,3 +1,4 @@
 meep
 meep
 meep
+meep
"""


def depth_of(line: str) -> int:
    return len(re.match(r"(?:> ?)*", line).group(0).replace(" ", ""))


def patch_of(body: str, attachments=()):
    lines = body.split("\n")
    return find_patch(lines, [depth_of(line) for line in lines], attachments)


def test_no_diff_is_none():
    assert patch_of("Hello,\n\nthis looks fine to me.\n\nThanks") is None
    assert patch_of("Run diff --git to see it, or --- nothing else.\nIndex: none\n") is None


@pytest.mark.parametrize(
    "comment",
    [
        "Test for attached patch",
        "Test comment\nmore comment\n-- \nsig",
        "Test comment\nmore comment\n---\nUpdate: test update",
        'Lines can start with words beginning in "diff"\ndifficult\nDifferent',
        "Test comment\n_______________________________________________\nLinuxppc-dev mailing list",
    ],
)
def test_body_split_variants(comment):
    # inline_cases.json, category body_split: the diff comes out exactly as written.
    patch = patch_of(comment + "\n" + DIFF)
    assert patch is not None and patch.text == DIFF
    assert (patch.added, patch.removed, patch.quoted) == (1, 0, False)
    assert patch.files[0].path == "meep.text"


def test_utf8_diff():
    diff = DIFF.replace("+meep\n", "+meep\u2713\n")
    assert patch_of("Test for attached patch\n" + diff).text == diff


def test_attached_patch():
    patch = patch_of("Test for attached patch", attachments=[DIFF])
    assert patch.text == DIFF and not patch.quoted
    # A form feed inside a line (kernel sources have them) does not split it.
    with_ff = DIFF.replace(" meep\n+meep", " meep\n+\x0cmeep")
    assert patch_of("x", attachments=[with_ff]).added == 1


def test_signature_and_prose_after_diff_are_not_swallowed():
    body = DIFF + "-- \n2.40.0\n"
    assert patch_of(body).text == DIFF
    # Prose right after a complete hunk, no blank line between: the @@ counts end it.
    patch = patch_of(DIFF + "Some prose that follows.\n meep too\n")
    assert patch.text == DIFF and patch.added == 1


def test_a_last_hunk_ending_in_a_blank_context_line():
    """The archive (or the mailer) drops the blank of an empty context line: the last hunk
    ends on an empty line, then the signature. That line is the hunk's; without it the
    hunk is short and the whole diff was lost (issue 32: 1,771 of 18,850 netfilter-devel
    patches stored with no files)."""
    diff = ("diff --git a/x.c b/x.c\nindex 1..2 100644\n--- a/x.c\n+++ b/x.c\n"
            "@@ -1,3 +1,3 @@\n-a\n+b\n c\n\n")
    patch = patch_of("msg\n---\n" + diff + "-- \n2.51.0\n")
    assert [(f.path, f.added, f.removed) for f in patch.files] == [("x.c", 1, 1)]


def test_multi_file_multi_hunk_and_totals():
    diff = DIFF + (
        "diff --git a/b.c b/b.c\n"
        "--- a/b.c\n+++ b/b.c\n"
        "@@ -1,2 +1,2 @@\n-x\n+y\n z\n"
        "@@ -10 +10,0 @@\n-gone\n"
    )
    patch = patch_of("msg\n---\n" + diff + "\n-- \nsig")
    assert [f.path for f in patch.files] == ["meep.text", "b.c"]
    assert [(f.added, f.removed) for f in patch.files] == [(1, 0), (1, 2)]
    assert (patch.added, patch.removed) == (2, 2)


def test_rename_copy_mode_new_deleted():
    diff = (
        "diff --git a/old.c b/new.c\nsimilarity index 90%\nrename from old.c\nrename to new.c\n"
        "--- a/old.c\n+++ b/new.c\n@@ -1 +1 @@\n-a\n+b\n"
        "diff --git a/x.c b/y.c\nsimilarity index 100%\ncopy from x.c\ncopy to y.c\n"
        "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
        "diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n"
        "diff --git a/dead.c b/dead.c\ndeleted file mode 100644\nindex 1111111..0000000\n"
        "--- a/dead.c\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n"
    )
    files = {f.path: f for f in patch_of(diff).files}
    assert files["new.c"].renamed and files["new.c"].old_path == "old.c"
    assert (files["new.c"].added, files["new.c"].removed) == (1, 1)
    assert files["y.c"].old_path == "x.c" and not files["y.c"].renamed
    assert (files["run.sh"].old_mode, files["run.sh"].new_mode) == ("100644", "100755")
    assert files["empty"].new_file and files["empty"].old_path is None
    assert files["dead.c"].deleted_file and files["dead.c"].removed == 2


def test_binary_files():
    diff = (
        "diff --git a/fw.bin b/fw.bin\nindex 1234567..89abcde 100644\n"
        "Binary files a/fw.bin and b/fw.bin differ\n"
        "diff --git a/pixel.bmp b/pixel.bmp\nnew file mode 100644\n"
        "index 0000000..9710347\nGIT binary patch\nliteral 5\n"
        "McmZ?r?PGv|00001\n\nliteral 0\nHcmV?d00001\n\n"
        "diff --git a/t.sh b/t.sh\n--- a/t.sh\n+++ b/t.sh\n@@ -1 +1 @@\n-a\n+b\n"
    )
    patch = patch_of(diff + "-- \n2.35.3\n")
    assert [(f.path, f.binary, f.added, f.removed) for f in patch.files] == [
        ("fw.bin", True, 0, 0),
        ("pixel.bmp", True, 0, 0),
        ("t.sh", False, 1, 1),
    ]


def test_no_newline_marker_and_crlf():
    diff = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n"
    diff += "\\ No newline at end of file\n"
    patch = patch_of("text\n" + diff + "\nthanks")
    assert patch.text.rstrip().endswith("\\ No newline at end of file")
    assert (patch.added, patch.removed) == (1, 1)
    crlf = patch_of(("text\n" + DIFF).replace("\n", "\r\n"))
    assert crlf.text == DIFF


def test_plain_and_cvs_diffs():
    patch = patch_of("--- net/x.c.orig\n+++ net/x.c\n@@ -1 +1,2 @@\n a\n+b\n")
    assert patch.files[0].path == "net/x.c"
    quilt = patch_of("--- linux.orig/net/x.c\n+++ linux/net/x.c\n@@ -1 +1 @@\n-a\n+b\n")
    assert quilt.files[0].path == "net/x.c"
    cvs = patch_of(
        "Index: bfd/x.h\n" + "=" * 67 + "\nRCS file: /cvs/bfd/x.h,v\nretrieving revision 1.3\n"
        "diff -u -p -r1.3 x.h\n--- bfd/x.h\t17 Aug 2011 00:39:38 -0000\t1.3\n"
        "+++ bfd/x.h\t5 Dec 2011 20:15:49 -0000\n@@ -1 +1,2 @@\n a\n+b\n"
    )
    assert cvs.text.startswith("Index: bfd/x.h") and cvs.files[0].path == "bfd/x.h"


def test_seed_004_quoted_diff(seeds_dir):
    lines = (seeds_dir / "004_19b1e878a2b8005e.txt").read_text().split("\n")
    patch = find_patch(lines, [depth_of(line) for line in lines])
    assert patch is not None and patch.quoted
    assert [f.path for f in patch.files] == ["drivers/net/macvlan.c"]
    assert (patch.added, patch.removed) == (2, 2)
    assert "\n out:\n" in patch.text and not patch.text.startswith(">")


def test_own_diff_wins_over_quoted_one():
    body = "> " + DIFF.replace("\n", "\n> ").rstrip("> ") + "\nmy version:\n" + DIFF
    patch = patch_of(body)
    assert not patch.quoted and patch.text == DIFF


def test_snipped_quoted_hunk_is_counted_as_quoted():
    body = (
        "> --- a/x.c\n> +++ b/x.c\n> @@ -10,8 +10,9 @@ int f(void)\n>  a\n> -b\n> +c\n>\n"
        "Why this change?\n"
    )
    patch = patch_of(body)
    assert patch.quoted and (patch.added, patch.removed) == (1, 1)
    assert patch.text.endswith("+c\n")


def test_quoted_diff_across_depths_is_not_one():
    body = "> --- a/x.c\n>> +++ b/x.c\n> @@ -1 +1 @@\n> -a\n> +b\n"
    assert patch_of(body) is None


def test_wrapped_line_ends_the_hunk():
    body = "--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,3 @@\n a\n-b\n+a very long line that the\nmailer wrapped\n c\n"
    patch = patch_of(body)
    assert patch.files[0].added == 1 and patch.files[0].removed == 1


def test_strip_quote():
    assert strip_quote(">>>  out:", 3) == " out:"
    assert strip_quote("> > x", 2) == "x"
    assert strip_quote(">", 2) == ""


def test_limits():
    with pytest.raises(DiffTooLarge) as info:
        find_patch(DIFF.split("\n"), [0] * 10, max_lines=5)
    assert isinstance(info.value, LimitExceeded) and "5 lines" in str(info.value)
    with pytest.raises(BadInput):
        find_patch(DIFF.split("\n"), [0] * 10, max_line_chars=10)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(DIFF.split("\n") + ["-- ", "", "@@ -1 +1 @@", "GIT binary patch",
                                                 "literal 3", "Index: x", "=====", "> --- a/x"]),
            st.text(max_size=20),
        ),
        max_size=40,
    )
)
def test_never_crashes_on_hostile_lines(lines):
    patch = find_patch(lines, [depth_of(line) for line in lines])
    if patch is not None:
        assert patch.added == sum(f.added for f in patch.files)
