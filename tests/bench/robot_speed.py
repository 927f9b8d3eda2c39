"""Issue 23 acceptance 5: what reading and linking the kernel test robot's reports costs.

    .venv/bin/python tests/bench/robot_speed.py [--n 20000] [--pairs 3] [--jobs 1]

Writes the benchmark's netdev-like mbox (tests/bench/gen_mbox.py) and adds robot reports at
the io_uring list's rate (82 reports in 33,494 messages: about 0.25 %, so 0.3 % here), each
with a `patch link:` to one of the mbox's patches and a table the claim readers read. Then
`patchperf ingest` (analysis, claims, series) into fresh stores, with linking on and off,
in interleaved pairs (on, off, then off, on, ...): "off" is the same command with the robot
report and applied-commit readers replaced by ones that find nothing, so no report is stored
and the rebuild links none. Prints each run, the medians and their ratio (target: within
10 %), and checks that the "on" store linked every report by its patch link.
"""

# The robot's table keeps its trailing blanks, as it sends them.
# ruff: noqa: W291

from __future__ import annotations

import argparse
import random
import re
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_mbox import SEP, generate  # noqa: E402

RATE = 0.003
# `patchperf` with the readers off, in-process (analyze.serialize looks them up per call)
OFF = ("import sys, analyze.serialize as s; s.read_robot_report = lambda m: None; "
       "s.applied_commits = lambda m: (); from reports.cli import main; sys.exit(main(sys.argv[1:]))")
ON = "import sys; from reports.cli import main; sys.exit(main(sys.argv[1:]))"

REPORT = """\
From: kernel test robot <oliver.sang@intel.com>
Subject: Re: {subject}
Date: {date}
Message-ID: <2026113{n:05d}.{n:08x}-lkp@intel.com>
In-Reply-To: <{mid}>
References: <{mid}>
To: netdev@vger.kernel.org

Hello,

kernel test robot noticed a {change:+.1f}% {kind} of netperf.Throughput_Mbps on:


commit: {sha} ("{name}")
url: https://github.com/intel-lab-lkp/linux/commits/bench/{n}
base: https://git.kernel.org/cgit/linux/kernel/git/netdev/net-next.git main
patch link: https://lore.kernel.org/r/{link}
patch subject: {subject}

testcase: netperf
config: x86_64-rhel-9.4
test machine: 128 threads 2 sockets Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz with 256G memory

commit: 
  0f1e2d3c4b ("net: the commit before")
  {sha10} ("{name}")

0f1e2d3c4b5a6978 {sha27} 
---------------- --------------------------- 
         %stddev     %change         %stddev
             \\          |                \\  
      {base:>6} ±  2%     {change:+.1f}%     {patched:>6} ±  3%  netperf.Throughput_Mbps

"""

_HEADER = re.compile(rb"^(Message-ID|Subject|Date): (.*)$", re.M)


def with_reports(mbox: Path, rate: float, seed: int = 23) -> int:
    """Append robot reports on a `rate` share of the mbox's messages, each answering one of
    its patches. Returns how many."""
    patches = []
    for mail in mbox.read_bytes().split(SEP):
        head = mail.split(b"\n\n", 1)[0]
        fields = {k.decode(): v.decode("utf-8", "replace") for k, v in _HEADER.findall(head)}
        if "Subject" in fields and re.search(r"\[PATCH[^\]]*\b[1-9]\d*/\d+\]", fields["Subject"]) \
                and not fields["Subject"].startswith("Re:"):
            patches.append(fields)
    rng = random.Random(seed)
    count = round(rate * mbox.read_bytes().count(SEP))
    with mbox.open("ab") as out:
        for n, p in enumerate(rng.sample(patches, count)):
            mid = p["Message-ID"].strip("<>")
            sha = f"{rng.getrandbits(160):040x}"
            base = rng.randint(1000, 9000)
            change = rng.choice([-1, 1]) * rng.uniform(3, 30)
            name = re.sub(r"^\[[^\]]*\]\s*", "", p["Subject"])
            out.write(SEP + REPORT.format(
                subject=p["Subject"], date=p["Date"], n=n, mid=mid, change=change,
                kind="improvement" if change > 0 else "regression", sha=sha, sha10=sha[:10],
                sha27=sha[:27], name=name, link=mid.replace("@", "%40"), base=base,
                patched=round(base * (1 + change / 100))).encode())
    return count


def run(mbox: Path, db: Path, code: str, jobs: int) -> tuple[float, float]:
    """Wall seconds, and the CPU seconds (user and system) the command and its workers
    used: on a shared machine the second moves less with what else runs."""
    db.unlink(missing_ok=True)
    argv = [sys.executable, "-c", code, "--db", str(db), "--quiet", "ingest", str(mbox),
            "--jobs", str(jobs)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, cwd=HERE.parent.parent, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        mbox = Path(tmp) / "robot.mbox"
        generate(mbox, n=args.n)
        reports = with_reports(mbox, RATE)
        print(f"{args.n:,} messages and {reports} robot reports with a patch link "
              f"({reports / (args.n + reports):.2%})")
        times: dict[str, list[float]] = {"on": [], "off": []}
        cpu: dict[str, list[float]] = {"on": [], "off": []}
        for i in range(args.pairs):
            order = ("on", "off") if i % 2 == 0 else ("off", "on")
            for which in order:
                wall, used = run(mbox, Path(tmp) / f"{which}.db", ON if which == "on" else OFF,
                                 args.jobs)
                times[which].append(wall)
                cpu[which].append(used)
                print(f"  pair {i + 1}, linking {which:>3}: {wall:6.1f} s wall, {used:6.1f} s CPU",
                      flush=True)
        with sqlite3.connect(Path(tmp) / "on.db") as db:
            rules = dict(db.execute("SELECT coalesce(rule, 'unlinked'), count(*) "
                                    "FROM robot_reports GROUP BY 1").fetchall())
        for name, figures in (("wall", times), ("CPU", cpu)):
            on, off = statistics.median(figures["on"]), statistics.median(figures["off"])
            print(f"median {name}: on {on:.1f} s, off {off:.1f} s: on/off {on / off:.3f} "
                  f"({(on / off - 1) * 100:+.1f} %; target within 10 %)")
        print(f"stored reports by rule (on): {rules}")
        return 0 if rules == {"patch link": reports} else 1


if __name__ == "__main__":
    sys.exit(main())
