"""A deterministic mboxrd of netdev-like traffic, for the ingest benchmark.

    python tests/bench/gen_mbox.py OUT.mbox --n 20000 [--seed 1]

The mix follows what netdev looks like on lore: about half patches (git format-patch bodies
with 1-3 files and 10-120 diff lines, correct hunk headers, trailers and a diffstat), a sixth
cover letters with a before/after benchmark table, and the rest review replies that quote the
patch (`> `, sometimes `>> ` through an earlier reply) and give trailers. Every message is
threaded to the cover and patches of its own series. Authors, trees and versions vary; some
subjects are RFC 2047 encoded, a few bodies quoted-printable, and some body lines start with
`From ` so the mboxrd escaping is exercised. Dates fall in the 30 days before 2026-11-29.

Messages are written one series at a time, so memory stays flat whatever `n` is.
"""

from __future__ import annotations

import argparse
import quopri
import random
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from email.header import Header
from email.utils import format_datetime
from pathlib import Path

END = datetime(2026, 11, 29, tzinfo=UTC)
WINDOW = timedelta(days=30)
SEP = b"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
LIST = "netdev@vger.kernel.org"

FIRST = ["Alice", "Bob", "Carol", "Dmitri", "Eva", "Farid", "Greta", "Hiro", "Ines", "Jonas",
         "Kenji", "Lena", "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tariq"]
LAST = ["Moreau", "Lindqvist", "Nguyen", "Volkov", "Novak", "Haddad", "Berg", "Tanaka",
        "Costa", "Keller", "Watanabe", "Petrova", "Ruiz", "Karimi", "Dahl", "Raman"]
# Non-ASCII names: their From headers go out RFC 2047 encoded.
ACCENTED = ["Jörg Schäfer", "Zoë Lefèvre", "Łukasz Wiśniewski", "Søren Ødegård", "Aurélie Côté"]
DOMAINS = ["example.org", "example.com", "example.net", "example.de", "example.jp"]
OFFSETS = [-8, -7, -5, -4, 0, 1, 2, 3, 5.5, 8, 9]
TREES = ["net", "net-next", "net-next", "net-next", "bpf-next", "bpf", "iwl-next", "iwl-net"]
AREAS = {
    "net": ["net/core/dev.c", "net/ipv4/tcp_input.c", "net/ipv6/route.c",
            "drivers/net/ethernet/intel/ice/ice_txrx.c"],
    "net-next": ["net/core/skbuff.c", "net/core/page_pool.c", "net/sched/sch_fq.c",
                 "drivers/net/veth.c", "drivers/net/ethernet/mellanox/mlx5/core/en_rx.c",
                 "include/linux/skbuff.h", "include/net/sock.h", "net/ipv4/tcp_output.c"],
    "bpf-next": ["kernel/bpf/cpumap.c", "kernel/bpf/verifier.c", "net/core/filter.c",
                 "include/linux/bpf.h"],
    "bpf": ["kernel/bpf/devmap.c", "net/core/xdp.c"],
    "iwl-next": ["drivers/net/ethernet/intel/ice/ice_main.c",
                 "drivers/net/ethernet/intel/idpf/idpf_txrx.c"],
    "iwl-net": ["drivers/net/ethernet/intel/ixgbe/ixgbe_main.c"],
}
SELFTESTS = ["tools/testing/selftests/net/udpgro_bench.sh",
             "tools/testing/selftests/net/fq_band_pktlimit.sh"]
TOPICS = ["batch the RX refill", "avoid a cache miss in the xmit path", "prefetch the headroom",
          "use per-cpu counters for drops", "defer the GRO flush", "skip the lock when empty",
          "recycle pages in NAPI context", "trim the hot struct to one cache line",
          "bulk free skbs on completion", "reduce atomic ops in the fast path"]
ACCENTED_TOPICS = ["cut per-packet latency by ~2 µs", "handle “busy” queues fairly",
                   "count drops per CPU — not per device"]
WORDS = ["rq", "txq", "skb", "napi", "ring", "desc", "frag", "pool", "stats", "budget", "len",
         "head", "tail", "cpu", "flow", "qdisc", "page", "dma", "xdpf", "cnt"]
FUNCS = ["netif_receive_skb", "napi_gro_receive", "dev_queue_xmit", "page_pool_put_page",
         "skb_put", "dma_sync_single_for_cpu", "xdp_do_flush", "ptr_ring_consume",
         "u64_stats_update_begin", "prefetchw", "kfree_skb", "napi_complete_done"]
METRICS = [("threads", "pps"), ("queues", "pps"), ("instances", "trans/s"),
           ("flows", "Mbit/s"), ("size", "usec")]


@dataclass(frozen=True)
class GenStats:
    """What `generate` wrote."""

    messages: int
    patches: int
    covers: int
    replies: int
    series: int
    bytes: int
    seconds: float


@dataclass(frozen=True)
class Person:
    name: str
    email: str
    offset_h: float

    @property
    def header(self) -> str:
        if self.name.isascii():
            return f"{self.name} <{self.email}>"
        return f"{Header(self.name, 'utf-8').encode()} <{self.email}>"

    @property
    def plain(self) -> str:
        return f"{self.name} <{self.email}>"

    def local(self, when: datetime) -> datetime:
        return when.astimezone(timezone(timedelta(hours=self.offset_h)))


@dataclass
class Sent:
    """One message of the current series, kept until the series is written."""

    mid: str
    refs: list[str]
    subject: str
    author: Person
    date: datetime
    quotable: list[str] = field(default_factory=list)  # lines a reply may quote


def _people(rng: random.Random) -> list[Person]:
    people = []
    for i in range(60):
        if i % 12 == 5:
            name = ACCENTED[(i // 12) % len(ACCENTED)]
            local = "".join(c for c in name.split()[0].lower() if c.isascii() and c.isalpha())
        else:
            name = f"{FIRST[i % len(FIRST)]} {LAST[(i * 7) % len(LAST)]}"
            local = name.split()[0].lower() + "." + name.split()[1].lower()
        email = f"{local}{i}@{DOMAINS[i % len(DOMAINS)]}"
        people.append(Person(name, email, rng.choice(OFFSETS)))
    return people


def _ident(rng: random.Random) -> str:
    return f"{rng.choice(WORDS)}_{rng.choice(WORDS)}"


def _code_line(rng: random.Random, shell: bool) -> str:
    if shell:
        return rng.choice([
            f'ip -n "$NS" link set dev veth{rng.randint(0, 3)} up',
            f"run_test {rng.randint(1, 64)} {rng.choice(['tcp', 'udp'])}",
            f'check_counter "{_ident(rng)}" {rng.randint(0, 9999)}',
            f"sleep {rng.randint(1, 3)}",
            f'echo "{rng.choice(WORDS)}: $?"',
        ])
    depth = "\t" * rng.randint(1, 3)
    return depth + rng.choice([
        f"{_ident(rng)} = {rng.choice(FUNCS)}({rng.choice(WORDS)}, {rng.randint(0, 64)});",
        f"if (unlikely(!{_ident(rng)}))",
        f"{rng.choice(WORDS)}->{_ident(rng)} += {rng.choice(WORDS)};",
        f"{rng.choice(FUNCS)}(&{rng.choice(WORDS)}->{rng.choice(WORDS)});",
        f"return {rng.choice(['0', '-ENOMEM', '-EINVAL', 'done', rng.choice(WORDS)])};",
        f"struct {rng.choice(WORDS)} *{_ident(rng)};",
        "}",
        f"/* {rng.choice(WORDS)} is stable here, see {rng.choice(FUNCS)}() */",
    ])


def _file_diff(rng: random.Random, path: str, budget: int, new_file: bool) -> tuple[str, int, int]:
    """One `diff --git` section of about `budget` lines, hunk headers counted exactly."""
    shell = path.endswith(".sh")
    digest = f"{rng.getrandbits(48):012x}"
    out = [f"diff --git a/{path} b/{path}\n"]
    if new_file:
        body = [_code_line(rng, shell) for _ in range(max(budget, 3))]
        out += ["new file mode 100644\n", f"index 000000000000..{digest}\n",
                "--- /dev/null\n", f"+++ b/{path}\n", f"@@ -0,0 +1,{len(body)} @@\n"]
        out += [f"+{line}\n" for line in body]
        return "".join(out), len(body), 0
    out += [f"index {rng.getrandbits(48):012x}..{digest} 100644\n",
            f"--- a/{path}\n", f"+++ b/{path}\n"]
    hunks = 1 if budget < 24 else rng.randint(1, 3)
    per = max(7, budget // hunks)
    line_no, shift, added, removed = rng.randint(20, 400), 0, 0, 0
    for _ in range(hunks):
        pre = [_code_line(rng, shell) for _ in range(3)]
        post = [_code_line(rng, shell) for _ in range(3)]
        changed = per - 6
        n_del = rng.randint(0, changed // 2) if changed > 1 else 0
        n_add = max(1, changed - n_del)
        dels = [_code_line(rng, shell) for _ in range(n_del)]
        adds = [_code_line(rng, shell) for _ in range(n_add)]
        old_len, new_len = 6 + n_del, 6 + n_add
        func = "" if shell else f" static int {_ident(rng)}(struct {rng.choice(WORDS)} *p)"
        out.append(f"@@ -{line_no},{old_len} +{line_no + shift},{new_len} @@{func}\n")
        out += [f" {x}\n" for x in pre] + [f"-{x}\n" for x in dels]
        out += [f"+{x}\n" for x in adds] + [f" {x}\n" for x in post]
        added, removed = added + n_add, removed + n_del
        shift += n_add - n_del
        line_no += old_len + rng.randint(5, 120)
    return "".join(out), added, removed


def _diffstat(files: list[tuple[str, int, int, bool]]) -> str:
    width = max(len(p) for p, *_ in files)
    cwidth = max(len(str(a + r)) for _, a, r, _ in files)
    most = max(a + r for _, a, r, _ in files) or 1
    scale = min(1.0, 50 / most)
    lines = []
    for path, a, r, _ in files:
        plus = max(1, round(a * scale)) if a else 0
        minus = max(1, round(r * scale)) if r else 0
        lines.append(f" {path.ljust(width)} | {str(a + r).rjust(cwidth)} {'+' * plus}{'-' * minus}")
    ta, tr = sum(f[1] for f in files), sum(f[2] for f in files)
    summary = f" {len(files)} file{'s' if len(files) != 1 else ''} changed"
    if ta:
        summary += f", {ta} insertion{'s' if ta != 1 else ''}(+)"
    if tr:
        summary += f", {tr} deletion{'s' if tr != 1 else ''}(-)"
    lines.append(summary)
    lines += [f" create mode 100644 {p}" for p, _, _, new in files if new]
    return "\n".join(lines) + "\n"


def _table(rng: random.Random) -> tuple[str, str]:
    """A before/after benchmark table as people paste them into cover letters."""
    cond, unit = rng.choice(METRICS)
    steps = [1, 2, 4, 8, 16] if cond != "size" else [64, 256, 1500, 9000]
    base = rng.uniform(2e5, 3e6) if unit == "pps" else rng.uniform(50, 20000)
    gain = rng.uniform(-0.04, 0.35)
    head = f" {cond:>9} | before ({unit}) | after ({unit}) |  delta"
    rows = [head, "-" * len(head)]
    for step in steps:
        before = base * (step if cond != "size" else 1) * rng.uniform(0.9, 1.1)
        after = before * (1 + gain + rng.uniform(-0.02, 0.02))
        if unit in ("pps", "trans/s"):
            b, a = f"{round(before):,}", f"{round(after):,}"
            delta = (round(after) - round(before)) / round(before) * 100
        else:
            b, a = f"{before:.1f}", f"{after:.1f}"
            delta = (float(a) - float(b)) / float(b) * 100
        rows.append(f" {step:>9} | {b:>{len(unit) + 9}} | {a:>{len(unit) + 8}} | {delta:+5.1f}%")
    return "\n".join(rows) + "\n", cond


def _encode_subject(subject: str) -> str:
    if subject.isascii():
        return subject
    return Header(subject, "utf-8", header_name="Subject").encode()


class _Writer:
    """Renders messages and streams them to the mboxrd file."""

    def __init__(self, fh) -> None:
        self.fh = fh
        self.count = 0
        self.bytes = 0

    def write(self, sent: Sent, to: list[str], cc: list[str], body: str, mailer: str,
              qp: bool) -> None:
        headers = [
            f"From: {sent.author.header}",
            f"To: {', '.join(to)}",
            "Cc: " + ",\n\t".join(cc),
            f"Subject: {_encode_subject(sent.subject)}",
            f"Date: {format_datetime(sent.author.local(sent.date))}",
            f"Message-ID: {sent.mid}",
            mailer,
        ]
        if sent.refs:
            headers.append(f"In-Reply-To: {sent.refs[-1]}")
            headers.append("References: " + "\n ".join(sent.refs))
        headers.append("MIME-Version: 1.0")
        headers.append("Content-Type: text/plain; charset=UTF-8")
        if qp:
            headers.append("Content-Transfer-Encoding: quoted-printable")
            body = quopri.encodestring(body.encode("utf-8")).decode("ascii")
        else:
            headers.append("Content-Transfer-Encoding: 8bit")
        headers += ["List-Id: <netdev.vger.kernel.org>", f"X-Mailing-List: {LIST}",
                    "Precedence: bulk"]
        text = "\n".join(headers) + "\n\n" + body
        lines = text.split("\n")
        # mboxrd: one more `>` on every line that would read as `>*From `
        escaped = "\n".join(">" + ln if ln.lstrip(">").startswith("From ") else ln
                            for ln in lines)
        data = SEP + escaped.encode("utf-8") + b"\n"
        if not escaped.endswith("\n"):
            data += b"\n"
        self.fh.write(data)
        self.bytes += len(data)
        self.count += 1


@dataclass
class _Counts:
    patches: int = 0
    covers: int = 0
    replies: int = 0
    series: int = 0


def _series(rng: random.Random, w: _Writer, people: list[Person], serial: int, left: int,
            counts: _Counts, end: datetime = END, window: timedelta = WINDOW) -> None:
    author = rng.choice(people)
    tree = rng.choice(TREES)
    version = rng.choices([1, 2, 3, 4], weights=[60, 25, 10, 5])[0]
    total = rng.choices([1, 2, 3, 4, 5, 6], weights=[5, 34, 30, 16, 9, 6])[0]
    rfc = rng.random() < 0.08
    accented = serial % 9 == 4
    topic = rng.choice(ACCENTED_TOPICS if accented else TOPICS)
    area = rng.choice(AREAS[tree])
    prefix = "RFC PATCH" if rfc else "PATCH"
    tag = tree + (f" v{version}" if version > 1 else "")
    subsystem = area.split("/")[-1].removesuffix(".c").removesuffix(".h")
    start = end - window + timedelta(seconds=rng.uniform(0, window.total_seconds() - 8 * 86400))
    pid = 1000 + serial
    local, domain = author.email.split("@")
    maintainers = [p for p in rng.sample(people, 3) if p is not author]
    cc = [p.header for p in maintainers] + ([LIST] if tree.startswith("iwl") else []) + (
        ["bpf@vger.kernel.org"] if tree.startswith("bpf") else [])
    to = [LIST] if not tree.startswith("iwl") else ["intel-wired-lan@lists.osuosl.org"]
    sendemail = "X-Mailer: git-send-email 2.43.0"

    def mid(n: int, when: datetime) -> str:
        return f"<{when:%Y%m%d%H%M%S}.{pid}-{n}-{local}@{domain}>"

    sent: list[Sent] = []
    others = rng.sample([t for t in TOPICS if t != topic], total - 1)
    names = [f"{subsystem}: {t}" for t in [topic, *others]]
    seen_paths: set[str] = set()
    files_all: list[tuple[str, int, int, bool]] = []
    patch_texts: list[tuple[str, str, list[str]]] = []
    for i in range(total):
        n_files = rng.choices([1, 2, 3], weights=[60, 28, 12])[0]
        budget = rng.randint(10, 120)
        paths = [area] + rng.sample([p for p in AREAS[tree] if p != area] + SELFTESTS,
                                    n_files - 1)
        diffs, stat = [], []
        for j, path in enumerate(paths):
            new = path in SELFTESTS and path not in seen_paths and rng.random() < 0.3
            seen_paths.add(path)
            text, a, r = _file_diff(rng, path, max(8, budget // n_files) if j else
                                    budget - (n_files - 1) * (budget // n_files), new)
            diffs.append(text)
            stat.append((path, a, r, new))
        files_all += stat
        first_hunk = diffs[0].split("\n")
        at = next(k for k, ln in enumerate(first_hunk) if ln.startswith("@@"))
        quotable = first_hunk[at:at + rng.randint(4, 10)]
        msg = [f"{names[i].split(': ', 1)[1].capitalize()} in {subsystem}: the hot path",
               f"calls {rng.choice(FUNCS)}() once per packet, which shows up at",
               f"{rng.uniform(2, 15):.1f}% in perf top under load."]
        if rng.random() < 0.25:
            msg += ["", "From the profile, most of the time goes to the cache miss on",
                    f"{rng.choice(WORDS)}->{rng.choice(WORDS)}; this moves it off the fast path."]
        if rng.random() < 0.4:
            b = rng.uniform(1, 20)
            msg += ["", f"With {rng.choice([4, 8, 16])} queues this goes from {b:.1f} Mpps to "
                    f"{b * rng.uniform(1.02, 1.4):.1f} Mpps."]
        msg.append("")
        if tree in ("net", "bpf", "iwl-net"):
            msg.append(f"Fixes: {rng.getrandbits(48):012x} (\"{subsystem}: {rng.choice(TOPICS)}\")")
        if version > 1 and rng.random() < 0.5:
            msg.append(f"Reviewed-by: {rng.choice(maintainers).plain}")
        msg.append(f"Signed-off-by: {author.plain}")
        notes = ""
        if version > 1:
            notes = f"v{version}: rebased, {rng.choice(['renamed', 'dropped', 'moved'])} " \
                    f"{_ident(rng)}\n\n"
        body = ("\n".join(msg) + "\n---\n" + notes + _diffstat(stat) + "\n" + "".join(diffs)
                + "-- \n2.43.0\n")
        patch_texts.append((names[i], body, quotable))

    cover: Sent | None = None
    clock = start
    if total > 1:
        table, cond = _table(rng)
        intro = (f"This series tries to {topic} in {subsystem}.\n\n"
                 f"Results, pktgen / netperf on two hosts, varying {cond}:\n\n{table}\n")
        if version > 1:
            prev = (start - timedelta(days=rng.randint(2, 9))).astimezone(UTC)
            prev_id = f"{prev:%Y%m%d%H%M%S}.{pid + 50000}-1-{local}@{domain}"
            intro += (f"v{version}:\n  - addressed review comments\n"
                      f"v{version - 1}: https://lore.kernel.org/netdev/{prev_id}/\n\n")
        short = "".join(f"  {n}\n" for n in names)
        merged: dict[str, tuple[str, int, int, bool]] = {}
        for path, a, r, new in files_all:
            _, a0, r0, new0 = merged.get(path, (path, 0, 0, False))
            merged[path] = (path, a0 + a, r0 + r, new0 or new)
        body = (intro + f"{author.name} ({total}):\n{short}\n"
                + _diffstat(list(merged.values())) + "\n"
                + "-- \n2.43.0\n")
        cover = Sent(mid(1, clock.astimezone(UTC)), [],
                     f"[{prefix} {tag} 0/{total}] {subsystem}: {topic}", author, clock,
                     [ln for ln in table.splitlines()[:4]])
        sent.append(cover)
        if w.count < left:
            w.write(cover, to, cc, body, sendemail, qp=False)
            counts.covers += 1
    for i, (name, body, quotable) in enumerate(patch_texts, 1):
        clock = start + timedelta(seconds=i)
        marker = f"{i}/{total}" if total > 1 else ""
        subject = f"[{prefix} {tag}{' ' + marker if marker else ''}] {name}"
        refs = [cover.mid] if cover else []
        s = Sent(mid(i + (1 if cover else 0), clock.astimezone(UTC)), refs, subject, author,
                 clock, quotable)
        sent.append(s)
        if w.count < left:
            w.write(s, to, cc, body, sendemail, qp=rng.random() < 0.02)
            counts.patches += 1

    n_replies = max(0, round(total * 2 / 3 + rng.uniform(-0.8, 0.8)))
    for k in range(n_replies):
        if w.count >= left:
            break
        parent = rng.choice(sent[-3:] if k and rng.random() < 0.25 else sent)
        who = rng.choice(people)
        clock = parent.date + timedelta(minutes=rng.randint(20, 1400))
        clock = min(clock, end - timedelta(minutes=1 + serial % 50))
        stamp = parent.author.local(parent.date)
        lines = [f"On {stamp:%a, %d %b %Y %H:%M:%S %z}, {parent.author.name} wrote:"]
        quoted = []
        for ln in parent.quotable:
            quoted.append(">" + ln if ln.startswith(">") else "> " + ln)
        lines += quoted
        lines.append("")
        own = []
        pick = rng.random()
        if pick < 0.3:
            before = rng.uniform(1, 20)
            own += [f"I see a similar result here: {before:.2f} Mpps before and",
                    f"{before * rng.uniform(0.95, 1.3):.2f} Mpps after with 8 RX queues.", ""]
        elif pick < 0.45:
            own += ["From a quick look this is fine, but please keep the", "comment above it.",
                    ""]
        elif pick < 0.55:
            own += [">From the numbers in the cover letter I'd expect more on one queue.", ""]
        else:
            own += ["Looks reasonable.", ""]
        trailer = rng.choice(["Reviewed-by", "Acked-by", "Tested-by", None])
        if trailer:
            own.append(f"{trailer}: {who.plain}")
        body = "\n".join(lines + own) + "\n"
        subject = "Re: " + parent.subject.removeprefix("Re: ")
        r = Sent(f"<Z{serial:06d}r{k:02d}{rng.getrandbits(40):010x}@{who.email.split('@')[1]}>",
                 parent.refs + [parent.mid], subject, who, clock,
                 # trailers are not quoted on: they belong to the message that gave them
                 quoted[:6] + [ln for ln in own if ln and not ln.startswith(">")
                               and not ln.endswith(f"<{who.email}>")][:2])
        sent.append(r)
        mailer = rng.choice(["User-Agent: Mutt/2.2.12 (2023-09-09)",
                             "User-Agent: Mozilla Thunderbird", "X-Mailer: Evolution 3.50.0"])
        w.write(r, [parent.author.header], [LIST] + cc[:2], body, mailer,
                qp=(serial + k) % 23 == 0)
        counts.replies += 1


def generate(path: str | Path, n: int = 20000, seed: int = 1, end: datetime = END,
             window: timedelta = WINDOW) -> GenStats:
    """Write `n` netdev-like messages to `path` as mboxrd, deterministically for a seed,
    dated over the `window` before `end`."""
    t0 = time.perf_counter()
    rng = random.Random(seed)
    people = _people(rng)
    counts = _Counts()
    with open(path, "wb") as fh:
        w = _Writer(fh)
        while w.count < n:
            counts.series += 1
            _series(rng, w, people, counts.series, n, counts, end, window)
    return GenStats(w.count, counts.patches, counts.covers, counts.replies, counts.series,
                    w.bytes, time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="mbox file to write")
    parser.add_argument("--n", type=int, default=20000, help="number of messages")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    stats = generate(args.out, n=args.n, seed=args.seed)
    print(f"{stats.messages} messages ({stats.patches} patches, {stats.covers} covers, "
          f"{stats.replies} replies, {stats.series} series), "
          f"{stats.bytes / 1e6:.1f} MB in {stats.seconds:.1f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
