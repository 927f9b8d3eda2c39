"""`make bench`: issue 2's ingest benchmark, every figure printed beside its target.

Generates a deterministic mbox of netdev-like messages (tests/bench/gen_mbox.py) and measures,
in the same run on the same file:
  (a) the floor: stdlib `mailbox` + `email.message_from_bytes` (compat32) splitting and
      decoding every part;
  (b) `patchperf ingest --no-analyze` into a fresh store;
  (c) `patchperf ingest --no-claims`: messages, threads and series, and its peak RSS;
  (d) `patchperf ingest`: all of (c) and claim extraction, and its peak RSS.
Ratios are against (a) measured in this run, since these machines are shared and noisy.
Each timed step runs in its own process; the best of --repeat runs is kept. Then the
hostile inputs, the simulator, sync, git epochs, and the TUI and digest on a store of
100,000 messages (tests/bench/ui.py; the store is built once a day, about 2 minutes).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from epochs import run as epoch_rows  # noqa: E402
from gen_mbox import generate  # noqa: E402
from hostile import run as hostile_rows  # noqa: E402
from sim import run as sim_rows  # noqa: E402
from sync import run as sync_rows  # noqa: E402
from ui import run as ui_rows  # noqa: E402

FLOOR = r"""
import email, mailbox, sys
box = mailbox.mbox(sys.argv[1], create=False)
count = 0
for key in box.iterkeys():
    msg = email.message_from_bytes(box.get_bytes(key))
    for part in msg.walk():
        if not part.is_multipart():
            part.get_payload(decode=True)
    count += 1
print(count)
"""


def timed_with_rss(argv: list[str]) -> tuple[float, int, str]:
    """Wall seconds and peak RSS (KiB) of a command, read in a wrapper process so the
    figure is that command's own."""
    wrapper = (
        "import resource, subprocess, sys, time;"
        "t=time.perf_counter(); p=subprocess.run(sys.argv[1:], capture_output=True);"
        "d=time.perf_counter()-t;"
        "sys.stderr.buffer.write(p.stderr);"
        "print(p.returncode, d, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    proc = subprocess.run([sys.executable, "-c", wrapper, *argv], capture_output=True)
    code, seconds, rss = proc.stdout.split()
    if int(code) != 0:
        sys.exit(f"{' '.join(argv)} failed ({code}):\n{proc.stderr.decode(errors='replace')}")
    return float(seconds), int(rss), ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20_000, help="messages to generate")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (best kept)")
    parser.add_argument("--keep", type=Path, help="keep the generated mbox and stores here")
    args = parser.parse_args()

    patchperf = str(Path(sys.executable).with_name("patchperf"))
    with tempfile.TemporaryDirectory(prefix="patchperf-bench-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        mbox = work / "bench.mbox"
        t0 = time.perf_counter()
        generate(mbox, n=args.n, seed=1)
        size_mb = mbox.stat().st_size / 1e6
        print(f"generated {args.n:,} messages, {size_mb:.1f} MB in {time.perf_counter() - t0:.1f} s")

        floor, ingest_only, no_claims, full, rss = [], [], [], [], []
        for i in range(args.repeat):
            floor.append(timed_with_rss([sys.executable, "-c", FLOOR, str(mbox)])[0])
            run = [patchperf, "--quiet", "ingest", str(mbox), "--db"]
            ingest_only.append(timed_with_rss([*run, str(work / f"b{i}.db"), "--no-analyze"])[0])
            seconds, peak, _ = timed_with_rss([*run, str(work / f"c{i}.db"), "--no-claims"])
            no_claims.append(seconds)
            rss.append(peak)
            seconds, peak, _ = timed_with_rss([*run, str(work / f"d{i}.db")])
            full.append(seconds)
            rss.append(peak)

    a, b, c, d = min(floor), min(ingest_only), min(no_claims), min(full)
    rss_mb = max(rss) / 1024
    rows = [
        ("(a) floor: stdlib mailbox + email.message_from_bytes", f"{a:.2f} s ({args.n / a:,.0f} msg/s)", "", None),
        ("(b) patchperf ingest --no-analyze", f"{b:.2f} s = {b / a:.2f}x (a)", "<= 2.00x (a)", b / a <= 2.0),
        ("(c) patchperf ingest --no-claims (analysis)", f"{c:.2f} s = {args.n / c:,.0f} msg/s", ">= 1,500 msg/s", args.n / c >= 1500),
        ("(d) patchperf ingest (analysis and claims)", f"{d:.2f} s = {args.n / d:,.0f} msg/s", ">= 1,000 msg/s", args.n / d >= 1000),
        ("(d) claim extraction's share", f"+{100 * (d - c) / c:.0f} % over (c)", "<= +50 %", d <= 1.5 * c),
        ("peak RSS of (c) and (d)", f"{rss_mb:.0f} MB", "< 300 MB", rss_mb < 300),
        *hostile_rows(),
        *sim_rows(),
        *sync_rows(),
        *epoch_rows(),
        *ui_rows(),
    ]
    print(f"\nbest of {args.repeat} runs, {args.n:,} messages ({size_mb:.1f} MB), Python {sys.version.split()[0]}")
    width = max(len(r[0]) for r in rows)
    failed = False
    for name, value, target, ok in rows:
        verdict = "" if ok is None else ("PASS" if ok else "FAIL")
        failed |= ok is False
        print(f"{name:<{width}}  {value:<30} {target:<16} {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
