"""The kernel test robot's reports read as reports (analyze/mail/robot.py), the commits an
"applied" mail names (analyze/mail/applied.py), and the rules that link a report to the
series it tested (analyze/mail/robot_links.py): issue 23, acceptance 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyze.errors import BadInput
from analyze.mail.applied import applied_commits
from analyze.mail.message import parse_message
from analyze.mail.robot import read_robot_report
from analyze.mail.robot_links import (
    APPLIED,
    PATCH_LINK,
    SUBJECT,
    SeriesRef,
    link_reports,
    normalised,
)

pytestmark = pytest.mark.readers


def _post(real_dir: Path, name: str) -> bytes:
    data = (real_dir / f"{name}.txt").read_bytes()
    return data.split(b"\n\n", 1)[1] if data.startswith(b"Source: ") else data


def _mail(body: str, sender: str = "kernel test robot <oliver.sang@intel.com>",
          subject: str = "[net-next:main] [net]  1a2b3c4d5e:  netperf.Throughput_Mbps -12.5% regression",
          mid: str = "202611301234.abcdef01-lkp@intel.com") -> bytes:
    return (f"From: {sender}\nSubject: {subject}\nMessage-ID: <{mid}>\n"
            f"Date: Mon, 30 Nov 2026 12:34:00 +0800\n\n{body}").encode()


REPORT = """\
Hello,

kernel test robot noticed a -12.5% regression of netperf.Throughput_Mbps on:


commit: 1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d ("net: veth: batch GRO flushes")
url: https://github.com/intel-lab-lkp/linux/commits/A-B/net-veth-batch/20261129-101010
base: https://git.kernel.org/cgit/linux/kernel/git/netdev/net-next.git main
patch link: https://lore.kernel.org/r/20261128101010.4242-2-ana.lopes%40example.org
patch subject: [PATCH net-next v2 2/3] net: veth: batch GRO flushes

testcase: netperf
config: x86_64-rhel-9.4
test machine: 128 threads 2 sockets Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz with 256G memory
parameters:

	ip: ipv4
	runtime: 300s
"""


def test_a_performance_report_on_a_posted_patch() -> None:
    r = read_robot_report(parse_message(_mail(REPORT)))
    assert r is not None
    assert (r.kind, r.metric, r.change_pct, r.direction, r.family) == (
        "performance", "netperf.Throughput_Mbps", -12.5, "regression", "netperf")
    assert r.commit == "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"
    assert r.commit_subject == "net: veth: batch GRO flushes"
    assert r.patch_link == "20261128101010.4242-2-ana.lopes@example.org"  # (%40 read as @)
    assert r.testcase == "netperf" and r.machine.startswith("128 threads 2 sockets")


def test_the_older_wording_and_an_improvement() -> None:
    body = ("Greeting,\n\nFYI, we noticed a +23.0% improvement of will-it-scale.per_thread_ops due to\n"
            "commit:\n\n\ncommit: 9f8e7d6c5b4a [3/3] net: skbuff: recycle the head\n"
            "https://git.kernel.org/cgit/linux/kernel/git/next/linux-next.git master\n\n"
            "in testcase: will-it-scale\n")
    r = read_robot_report(parse_message(_mail(body)))
    assert r is not None
    assert (r.kind, r.change_pct, r.direction, r.family) == ("performance", 23.0, "improvement",
                                                             "will-it-scale")
    assert (r.commit, r.commit_subject, r.patch_link) == ("9f8e7d6c5b4a", "net: skbuff: recycle the head",
                                                          None)


def test_the_robots_text_forwarded_by_a_person() -> None:
    """smatch's warnings reach the list as the robot's text sent by their maintainer."""
    body = ("Hi Ana,\n\nkernel test robot noticed the following build warnings:\n\n"
            "url:    https://github.com/intel-lab-lkp/linux/commits/A/x/20261129-101010\n"
            "base:   https://git.kernel.org/pub/scm/linux/kernel/git/netdev/net-next.git main\n"
            "patch link:    https://lore.kernel.org/r/20261128101010.4242-2-ana.lopes%40example.org\n")
    r = read_robot_report(parse_message(_mail(body, sender="Dan Checker <dan@example.org>")))
    assert r is not None and (r.kind, r.patch_link) == (
        "build", "20261128101010.4242-2-ana.lopes@example.org")


@pytest.mark.parametrize(("sender", "body"), [
    ("Ana Lopes <ana.lopes@example.org>", REPORT.replace("kernel test robot noticed", "FYI, we noticed")),
    ("Ana Lopes <ana.lopes@example.org>", "Fix the leak, as the kernel test robot noticed.\n"),
    ("kernel test robot <oliver.sang@intel.com>", "> " + REPORT.replace("\n", "\n> ")),  # quoted
    ("kernel test robot <lkp@intel.com>", "Hi,\n\nThanks for the patch.\n"),
])
def test_what_is_not_a_report(sender: str, body: str) -> None:
    assert read_robot_report(parse_message(_mail(body, sender=sender))) is None


@pytest.mark.parametrize(("name", "kind", "commit", "subject", "link", "family"), [
    ("io-005", "performance", "8cf0c459993e", "io_uring/rw: Allocate async data through helper", None, "fio"),
    ("io-006", "performance", "61a5e202971d", "io_uring: switch defer task_work to using a ring", None,
     "stress-ng"),
    ("io-021", "failure", "f011c9cf04c0", "io_uring/sqpoll: do not allow pinning outside of cpuset", None,
     "trinity"),  # (From: "kerne test robot", as the robot wrote it)
    ("iwl-017", "build", None, None, "20240528131429.3012910-9-maciej.fijalkowski@intel.com", None),
    ("iwl-021", "failure", "86167183a17e", "igc: fix a log entry using uninitialized netdev", None, "boot"),
    ("blk-018", "performance", "b3afbe4f56ec",
     "[PATCH v2 4/4] blk-flush: don't need to end rq twice for non postflush",
     "20230725130102.3030032-5-chengming.zhou@linux.dev", "stress-ng"),
    ("blk-019", "performance", "574e7779cf58", "block/mq-deadline: use separate insertion lists",
     None, "fio"),
    ("blk-020", "performance", "4e63aeb5d010", "blk-wbt: don't throttle swap writes in direct reclaim",
     None, "swapin"),
    ("blk-021", "performance", "3179a5f7f86b", "block: rate-limit capacity change info log", None,
     "stress-ng"),
    ("blk-022", "performance", "e7bc0010ceb4", "loop: properly send KOBJ_CHANGED uevent for disk device",
     None, "stress-ng"),
    ("blk-023", "failure", "3c20917120ce",
     "block/bdev: enable large folio support for large logical block sizes", None, "ltp"),
])
def test_real_reports(real_dir: Path, name: str, kind: str, commit: str | None, subject: str | None,
                      link: str | None, family: str | None) -> None:
    r = read_robot_report(parse_message(_post(real_dir, name)))
    assert r is not None
    assert (r.kind, (r.commit or "")[:12] or None, r.commit_subject, r.patch_link, r.family) == (
        kind, commit, subject, link, family)


def test_no_other_real_post_is_a_report(real_dir: Path) -> None:
    reports = set()
    for post in real_dir.glob("*.txt"):
        try:
            message = parse_message(_post(real_dir, post.stem))
        except BadInput:
            continue  # (a post that is no mail: nf-018)
        if read_robot_report(message) is not None:
            reports.add(post.stem)
    assert reports == {"io-005", "io-006", "io-021", "iwl-017", "iwl-021", "blk-018", "blk-019",
                       "blk-020", "blk-021", "blk-022", "blk-023"}


# --- applied mails -----------------------------------------------------------------------

def test_patchwork_bots_applied_mail() -> None:
    body = ("Hello:\n\nThis series was applied to netdev/net-next.git (main)\n"
            "by Jakub Kicinski <kuba@kernel.org>:\n\nOn Sat, 28 Nov 2026 you wrote:\n"
            "> quoted https://git.kernel.org/netdev/net-next/c/ffffffffffff\n\n"
            "Here is the summary with links:\n  - [net-next,v2,1/3] net: veth: a\n"
            "    https://git.kernel.org/netdev/net-next/c/0a1b2c3d4e5f\n"
            "  - [net-next,v2,2/3] net: veth: batch GRO flushes\n"
            "    https://git.kernel.org/netdev/net-next/c/1a2b3c4d5e6f\n")
    message = parse_message(_mail(body, sender="patchwork-bot+netdevbpf@kernel.org",
                                  subject="Re: [PATCH net-next v2 0/3] veth", mid="pw@x"))
    assert applied_commits(message) == ("0a1b2c3d4e5f", "1a2b3c4d5e6f")  # (not the quoted one)


def test_b4s_thank_you_mail_and_mail_that_applied_nothing() -> None:
    ty = ("On Mon, 30 Nov 2026, Ana Lopes wrote:\n> the series\n\nApplied, thanks!\n\n"
          "[1/2] io_uring/rw: cache the iovec\n      commit: 0123456789abcdef0123456789abcdef01234567\n")
    assert applied_commits(parse_message(_mail(ty, sender="Jens Axboe <axboe@kernel.dk>",
                                               mid="ty@x"))) == ("0123456789abcdef0123456789abcdef01234567",)
    review = "Looks fine, see commit 0123456789abcdef for the same idea.\n"
    assert applied_commits(parse_message(_mail(review, sender="R <r@x>", mid="r@x"))) == ()


# --- linking -----------------------------------------------------------------------------

V1 = SeriesRef("s-v1", 1, ("v1-0@x", "v1-1@x", "v1-2@x"),
               ("[PATCH net-next 1/2] net: veth: a", "[PATCH net-next 2/2] net: veth: batch GRO flushes"))
V2 = SeriesRef("s-v2", 2, ("v2-0@x", "20261128101010.4242-2-ana.lopes@example.org"),
               ("[PATCH net-next v2 2/3] net: veth: Batch GRO  flushes.",))
OTHER = SeriesRef("s-other", 1, ("o@x",), ("[PATCH bpf] bpf: cpumap: prefetch the frame",))


def _report(**fields) -> object:
    r = read_robot_report(parse_message(_mail(REPORT)))
    from dataclasses import replace
    return replace(r, **fields)


def test_the_patch_link_comes_first() -> None:
    (link,) = link_reports([_report()], [V1, V2, OTHER], {})
    assert (link.series, link.rule) == ("s-v2", PATCH_LINK)


def test_else_the_commit_subject_of_the_highest_version() -> None:
    (link,) = link_reports([_report(patch_link="gone@x")], [V2, V1, OTHER], {})
    assert (link.series, link.rule) == ("s-v2", SUBJECT)
    assert normalised("Re: [PATCH net-next v2 2/3] net: veth: Batch GRO  flushes.") == \
        normalised("net: veth: batch GRO flushes")


def test_else_a_commit_an_applied_mail_named() -> None:
    report = _report(patch_link=None, commit_subject="net: something else entirely",
                     commit="1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d")
    (link,) = link_reports([report], [V1, OTHER], {"1a2b3c4d5e6f": "s-v1"})
    assert (link.series, link.rule) == ("s-v1", APPLIED)
    (short,) = link_reports([_report(patch_link=None, commit_subject=None, commit="1a2b3c4")],
                            [V1], {"1a2b3c4d5e6f": "s-v1"})
    assert short.rule == APPLIED  # (abbreviated on either side)


def test_a_report_no_rule_links_is_kept_unlinked_with_the_reason() -> None:
    (link,) = link_reports([_report(patch_link="gone@x", commit_subject="net: unknown")], [OTHER],
                           {"ffffffffffff": "s-other"})
    assert (link.series, link.rule) == (None, None)
    assert "gone@x" in link.reason and "net: unknown" in link.reason and "1a2b3c4d5e6f" in link.reason
