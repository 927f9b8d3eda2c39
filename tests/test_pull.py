"""The pull-request block of `git request-pull` (analyze/mail/pull.py)."""

from __future__ import annotations

import pytest

from analyze.mail.pull import find_pull_url

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers

INTRO = "The following changes since commit 1234:\n\n  Linux 6.1\n\nare available in the {}:\n\n"


def url(body: str, depth: int = 0):
    lines = body.split("\n")
    return find_pull_url(lines, [depth] * len(lines))


@pytest.mark.parametrize(
    "written",
    [
        "git://git.kernel.org/pub/scm/linux/kernel/git/davem/net.git tags/for-linus",
        "git+ssh://host/x.git next",
        "ssh://host/x.git next",
        "http://host/x.git next",
        "https://host/x.git master",
        "git@github.com:user/linux.git fixes",
    ],
)
def test_schemes(written):
    assert url(INTRO.format("git repository at") + "  " + written + "\n\nfor you") == written


def test_git_2_14_capital_and_no_ref():
    body = INTRO.format("Git repository at") + "  git://host/net \n\nfor you to fetch changes up to"
    assert url(body) == "git://host/net"


def test_wrapped_ref_and_trailing_spaces():
    body = INTRO.format("Git repository at") + "  https://host/linux.git/\ntags/v5.4-next-soc\n\n"
    assert url(body) == "https://host/linux.git/ tags/v5.4-next-soc"
    body = "are available in the Git repository at:      \n     \n  git://h/x.git  tags/a/b   \n"
    assert url(body) == "git://h/x.git tags/a/b"


def test_not_a_pull_request():
    assert url("Hello, the fix is available in the git repository at some point.") is None
    assert url("are available in the git repository at:\n\n  see above\n") is None
    assert url(INTRO.format("git repository at") + "  git://h/x.git next", depth=1) is None
