"""Find the diff a message carries (or quotes) and read it with unidiff.

Mail bodies mix prose and diffs, and unidiff wants a clean diff, so the work has two steps:
locate the diff regions line by line (a small state machine that knows where a file header,
a hunk and a `GIT binary patch` block end), then hand each region to `unidiff.PatchSet`.
Hunk lengths are checked against their `@@` header while locating, so prose after a diff
(a signature, a reply) is never swallowed; a hunk cut short — a reviewer snipping a quoted
hunk, a mail client wrapping a long line — ends the region there and its header is rewritten
to the lines actually present before unidiff reads it.

Limits: a message whose diffs hold more than `max_lines` lines, or one diff line longer than
`max_line_chars`, raises `DiffTooLarge` (a `LimitExceeded`) rather than being truncated
silently, since totals from a cut diff would be wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from unidiff import PatchSet, UnidiffParseError

from analyze.errors import LimitExceeded
from analyze.model import FileChange, Patch

from .body import strip_quote

MAX_DIFF_LINES = 100_000
MAX_LINE_CHARS = 1024 * 1024

# Cheap test run on every body: most mail carries no diff at all.
_HINTS = ("diff --git ", "--- ", "Index: ")

_HUNK = re.compile(r"@@ -(\d{1,18})(?:,(\d{1,18}))? \+(\d{1,18})(?:,(\d{1,18}))? @@(.*)")  # (int() refuses 4,301 digits)
# Lines git (and CVS/svn, seen in Patchwork's fixture 0007) writes between a file's first
# line and its first hunk.
_GIT_HEADER_PREFIXES = (
    "index ",
    "old mode ",
    "new mode ",
    "deleted file mode ",
    "new file mode ",
    "similarity index ",
    "dissimilarity index ",
    "rename from ",
    "rename to ",
    "copy from ",
    "copy to ",
    "Binary files ",
    "=====",
    "RCS file: ",
    "retrieving revision ",
    "diff ",
)
_BINARY_BLOCK = re.compile(r"(?:literal|delta) \d+")
# git's base85 lines: a length character, then the encoded bytes (no spaces).
_BASE85 = re.compile(r"[A-Za-z][0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-]+")


class DiffTooLarge(LimitExceeded):
    """A diff larger than the configured limit (lines, or characters in one line)."""


@dataclass
class _Hunk:
    line: int  # index of the `@@` line in the region
    old: int  # lines of the old side actually present
    new: int


@dataclass
class _Region:
    lines: list[str]
    files: list[int] = field(default_factory=list)  # index of each file's first line
    short: list[_Hunk] = field(default_factory=list)  # hunks cut short, to repair


def find_patch(
    lines: Sequence[str],
    depths: Sequence[int],
    attachments: Iterable[str] = (),
    *,
    max_lines: int = MAX_DIFF_LINES,
    max_line_chars: int = MAX_LINE_CHARS,
) -> Patch | None:
    """Return the message's diff: unquoted body diffs and attached ones, else a quoted one.

    `lines` are the decoded body lines as sent (quote markers included) and `depths` their
    quote depths. A diff inside quotes only counts when every line of it sits at the same
    depth; it is returned with `quoted=True` when the message has no diff of its own.
    Returns None when there is no diff. Raises `DiffTooLarge` past the limits.
    """
    own: list[_Region] = []
    attachments = list(attachments)
    hinted = _has_hint(lines)
    if hinted:
        own.extend(_regions_at_depth(lines, depths, 0))
    for text in attachments:
        if any(h in text for h in _HINTS):
            # Not splitlines(): kernel sources hold form feeds (^L), which it splits on.
            own.extend(_locate(text.split("\n")))
    if own:
        return _build(own, quoted=False, max_lines=max_lines, max_chars=max_line_chars)
    if not hinted:
        return None
    quoted = _quoted_regions(lines, depths)
    if quoted:
        return _build(quoted, quoted=True, max_lines=max_lines, max_chars=max_line_chars)
    return None


def _has_hint(lines: Sequence[str]) -> bool:
    text = "\n".join(lines)
    return any(h in text for h in _HINTS)


def _regions_at_depth(lines: Sequence[str], depths: Sequence[int], depth: int) -> list[_Region]:
    """Regions found in each run of consecutive lines quoted exactly `depth` times."""
    regions: list[_Region] = []
    run: list[str] = []
    for line, d in zip(lines, depths, strict=False):
        if d == depth:
            run.append(strip_quote(line, depth) if depth else line)
            continue
        if run:
            regions.extend(_locate(run))
            run = []
    if run:
        regions.extend(_locate(run))
    return regions


def _quoted_regions(lines: Sequence[str], depths: Sequence[int]) -> list[_Region]:
    """Regions in every run of lines quoted at one depth, shallowest depth first: one pass
    over the body, however many quote depths a hostile mail stacks up."""
    by_depth: dict[int, list[_Region]] = {}
    start = 0
    for i in range(1, len(lines) + 1):
        if i < len(lines) and depths[i] == depths[start]:
            continue
        depth = depths[start]
        if depth > 0:
            run = [strip_quote(line, depth) for line in lines[start:i]]
            by_depth.setdefault(depth, []).extend(_locate(run))
        start = i
    return [region for depth in sorted(by_depth) for region in by_depth[depth]]


def _locate(lines: Sequence[str]) -> list[_Region]:
    """Cut every diff region out of lines that are all at one quote depth."""
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    regions = []
    i, n = 0, len(lines)
    while i < n:
        if not _file_starts(lines, i):
            i += 1
            continue
        region, end = _scan(lines, i)
        if region is None:
            i += 1
        else:
            regions.append(region)
            i = end
    return regions


def _file_starts(lines: Sequence[str], i: int) -> bool:
    line = lines[i]
    if line.startswith("diff --git "):
        return i + 1 < len(lines) and lines[i + 1].startswith(_GIT_HEADER_PREFIXES + ("--- ",))
    if line.startswith("Index: "):
        # CVS and svn diffs (Patchwork's fixture 0007): `Index:`, a row of `=`, headers.
        return i + 1 < len(lines) and lines[i + 1].startswith("=====") and _triple_within(
            lines, i + 2, 6
        )
    if line.startswith("diff "):  # `diff -urN a/x b/x` before a plain unified diff
        return _is_triple(lines, i + 1)
    return _is_triple(lines, i)


def _is_triple(lines: Sequence[str], i: int) -> bool:
    return (
        i + 2 < len(lines)
        and lines[i].startswith("--- ")
        and lines[i + 1].startswith("+++ ")
        and _HUNK.match(lines[i + 2]) is not None
    )


def _triple_within(lines: Sequence[str], i: int, window: int) -> bool:
    return any(_is_triple(lines, j) for j in range(i, min(i + window, len(lines))))


def _scan(lines: Sequence[str], start: int) -> tuple[_Region | None, int]:
    """Follow one diff from `start`; return its region and the index just past it."""
    region = _Region(lines=[])
    i = end = start
    n = len(lines)
    while True:
        after, usable, stop = _scan_file(lines, i, region, start)
        if not usable:
            break
        region.files.append(i - start)
        i = end = after
        if stop:
            break
        # Blank lines may separate two files (hand-made mails); anything else ends the diff.
        while i < n and not lines[i].strip():
            i += 1
        if i >= n or not _file_starts(lines, i):
            break
    if not region.files:
        return None, start + 1
    # (every line up to `end` was read as part of the diff: an empty line there is a
    # context line whose blank the mailer or the archive dropped, the last hunk's too;
    # dropping it made the hunk one line short and the whole diff unreadable)
    region.lines = list(lines[start:end])
    return region, end


def _scan_file(
    lines: Sequence[str], i: int, region: _Region, base: int
) -> tuple[int, bool, bool]:
    """Scan one file's header, hunks and binary blocks.

    Returns (index past the file, whether it is a usable file, whether the diff ends here
    because a hunk was cut short).
    """
    n = len(lines)
    first = i
    git = lines[i].startswith("diff --git ")
    i += 2 if lines[i].startswith("--- ") else 1
    in_header = True
    substance = False  # a hunk or a binary marker
    while i < n:
        line = lines[i]
        if line.startswith("@@ "):
            match = _HUNK.match(line)
            if match is None:
                break
            i, complete = _scan_hunk(lines, i, match, region, base)
            in_header, substance = False, True
            if not complete:
                return i, True, True
        elif line.startswith("\\ ") and substance:  # `\ No newline at end of file` (0011)
            i += 1
        elif not in_header:
            break
        elif line.startswith("--- ") and i + 1 < n and lines[i + 1].startswith("+++ "):
            i += 2
        elif line == "GIT binary patch":
            i = _scan_binary(lines, i + 1)
            in_header, substance = False, True
        elif line.startswith(_GIT_HEADER_PREFIXES):
            # git writes files with a header only for renames, mode changes, binary files
            # and empty new files (Patchwork's fixtures 0008, 0021, 0022).
            substance = substance or line.startswith("Binary files ")
            i += 1
        else:
            break
    return i, substance or (git and i - first >= 2), False


def _scan_hunk(
    lines: Sequence[str], i: int, match: re.Match[str], region: _Region, base: int
) -> tuple[int, bool]:
    """Consume one hunk, checking its length against the `@@` header."""
    want_old = int(match.group(2)) if match.group(2) is not None else 1
    want_new = int(match.group(4)) if match.group(4) is not None else 1
    head = i
    old = new = 0
    i += 1
    n = len(lines)
    while i < n and (old < want_old or new < want_new):
        line = lines[i]
        kind = line[:1]
        if kind in (" ", "") and old < want_old and new < want_new:
            # An empty line is a context line whose single space the mailer dropped.
            old += 1
            new += 1
        elif kind == "-" and old < want_old and line != "-- ":
            # `-- ` while lines are missing is the signature of a mail whose hunk was
            # cut short, far likelier than the removal of a line holding `- `.
            old += 1
        elif kind == "+" and new < want_new:
            new += 1
        elif kind == "\\":
            pass
        else:
            break
        i += 1
    if old < want_old or new < want_new:
        # Cut short: trailing blank lines belonged to the reply, not to the hunk.
        while i > head + 1 and not lines[i - 1].strip():
            i -= 1
            old -= 1
            new -= 1
        region.short.append(_Hunk(line=head - base, old=old, new=new))
        return i, False
    while i < n and lines[i].startswith("\\ "):
        i += 1
    return i, True


def _scan_binary(lines: Sequence[str], i: int) -> int:
    """Consume `literal N`/`delta N` blocks of base85 lines (Patchwork's 0025–0027)."""
    n = len(lines)
    while i < n:
        line = lines[i]
        # A blank line ends a block; a second block (the reverse patch) may follow it.
        blank_then_block = not line and i + 1 < n and _BINARY_BLOCK.fullmatch(lines[i + 1])
        if _BINARY_BLOCK.fullmatch(line) or _BASE85.fullmatch(line) or blank_then_block:
            i += 1
        else:
            break
    return i


def _build(regions: list[_Region], *, quoted: bool, max_lines: int, max_chars: int) -> Patch:
    total = sum(len(r.lines) for r in regions)
    if total > max_lines:
        raise DiffTooLarge("diff", max_lines, "lines")
    for region in regions:
        for line in region.lines:
            if len(line) > max_chars:
                raise DiffTooLarge("a diff line", max_chars, "characters")
    files: list[FileChange] = []
    for region in regions:
        files.extend(_parse_region(region))
    text = "".join("\n".join(r.lines) + "\n" for r in regions)
    return Patch(
        files=tuple(files),
        added=sum(f.added for f in files),
        removed=sum(f.removed for f in files),
        quoted=quoted,
        text=text,
    )


def _parse_region(region: _Region) -> list[FileChange]:
    lines = [line + "\n" for line in region.lines]
    for hunk in region.short:
        match = _HUNK.match(region.lines[hunk.line])
        if match is not None:
            lines[hunk.line] = (
                f"@@ -{match.group(1)},{hunk.old} +{match.group(3)},{hunk.new} @@"
                f"{match.group(5)}\n"
            )
    try:
        return _changes(PatchSet(lines, metadata_only=True))
    except UnidiffParseError:
        pass
    # One bad file should not lose the others: read them one at a time.
    bounds = [*region.files, len(lines)]
    changes: list[FileChange] = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        try:
            changes.extend(_changes(PatchSet(lines[a:b], metadata_only=True)))
        except UnidiffParseError:
            continue
    return changes


def _changes(patchset: PatchSet) -> list[FileChange]:
    return [_change(pf) for pf in patchset]


def _info(pf) -> dict[str, str]:
    """Extended header values (`rename from`, `old mode`, ...) of one file."""
    found: dict[str, str] = {}
    for raw in pf.patch_info or ():
        line = raw.rstrip("\n")
        for key in ("rename from ", "rename to ", "copy from ", "copy to ", "old mode ",
                    "new mode ", "new file mode ", "deleted file mode "):
            if line.startswith(key):
                found.setdefault(key.strip(), line[len(key):].strip())
    return found


def _unquote(path: str) -> str:
    if len(path) >= 2 and path[0] == '"' and path[-1] == '"':
        return path[1:-1]
    return path


def _change(pf) -> FileChange:
    info = _info(pf)
    new_file = pf.source_file == "/dev/null" or "new file mode" in info
    deleted = pf.target_file == "/dev/null" or "deleted file mode" in info
    is_git = bool(pf.patch_info) and pf.patch_info[0].startswith("diff --git ")
    old_path: str | None
    if "rename to" in info or "copy to" in info:
        path = _unquote(info.get("rename to") or info["copy to"])
        old_path = _unquote(info.get("rename from") or info.get("copy from") or path)
    else:
        path = _unquote(pf.path) if is_git else _plain_path(pf, deleted)
        old_path = None if new_file else path
    return FileChange(
        path=path,
        old_path=old_path,
        added=0 if pf.is_binary_file else pf.added,
        removed=0 if pf.is_binary_file else pf.removed,
        binary=pf.is_binary_file,
        new_file=new_file,
        deleted_file=deleted,
        renamed="rename to" in info,
        old_mode=info.get("old mode") or info.get("deleted file mode"),
        new_mode=info.get("new mode") or info.get("new file mode"),
    )


def _plain_path(pf, deleted: bool) -> str:
    """The path of a non-git diff (`--- x.orig` / `+++ x`, quilt, CVS).

    Like `patch -p1` when both sides have a differing first directory (`a/`, `b/`,
    `linux.orig/`, `linux/`); as written otherwise (CVS diffs name `bfd/elf-bfd.h` on both
    sides, Patchwork's fixture 0007).
    """
    source, target = _unquote(pf.source_file or ""), _unquote(pf.target_file or "")
    chosen = source if deleted or target == "/dev/null" else target
    other = target if chosen is source else source
    head, sep, rest = chosen.partition("/")
    other_head = other.partition("/")[0] if "/" in other else None
    if sep and rest and (other == "/dev/null" or (other_head is not None and other_head != head)):
        return rest
    return chosen
