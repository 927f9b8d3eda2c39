"""fio's own report, read as fio prints it: the results of each job, by name.

    crypt: (groupid=0, jobs=1): err= 0: pid=233950: Thu Sep 15 16:23:10 2022
      write: IOPS=402, BW=403MiB/s (423MB/s)(23.6GiB/60002msec)
        slat (usec): min=2425, max=3819, avg=2480.84, stdev=34.00
        clat (usec): min=7, max=165751, avg=156398.72, stdev=4691.03
         lat (msec): min=2, max=168, avg=158.88, stdev= 4.69
        clat percentiles (msec):
         |  1.00th=[  157],  5.00th=[  157], 10.00th=[  157], 20.00th=[  157],
       bw (  KiB/s): min=405504, max=413696, per=99.71%, avg=411845.53, stdev=1155.04
       iops        : min=  396, max=  404, avg=402.17, stdev= 1.15, samples=120
      cpu          : usr=3.74%, sys=95.66%, ctx=27, majf=0, minf=4
         issued rwts: total=0,24138,0,0 short=0,0,0,0 dropped=0,0,0,0

Two runs of fio pasted under two captions are two reports of the same template: each result
of one pairs with the result of the same name in the other, whatever lines stand between.
fio's results are its IOPS and bandwidth (`IOPS=`, `BW=`; `iops=`, `bw=` before fio 3), the
mean of each latency (`slat`, `clat`, `lat`: `avg=`, in the unit fio names in brackets for
that run) and the latency percentiles. The rest supports them and is no claim (docs/claims.md,
rule 2): the bandwidth and IOPS samples' statistics (`bw (KiB/s): min=...`), the CPU's shares,
the latency buckets (`lat (msec): 250=100.09%`), the depths, `issued rwts`, the latency target
line, and the group's summary (`WRITE: bw=...`), which restates the job's bandwidth.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Quantity

# `crypt: (groupid=0, jobs=1): err= 0: pid=...`
_JOB = re.compile(r"^\s*([^\s:][^:]{0,80}?):\s*\(groupid=\d+")
# `  write: IOPS=402, BW=403MiB/s (423MB/s)(...)`; fio 2: `  read : io=1024MB, bw=179254KB/s,
# iops=44813, runt=  5850msec`
_RESULT = re.compile(r"^\s*(read|write|trim|randread|randwrite|rw|mixed)\s*:\s*"
                     r"(?=.*\b(?:IOPS|iops)=)", re.I)
_IOPS = re.compile(r"\b(?:IOPS|iops)=\s*")
_BW = re.compile(r"\b(?:BW|bw)=\s*")
# `    clat (usec): min=7, max=165751, avg=156398.72, stdev=4691.03`
_STAT = re.compile(r"^\s*(slat|clat|lat)\s*\(\s*(nsec|usec|msec|sec|ns|us|ms|s)\s*\)\s*:"
                   r"(?=.*\bmin\s*=)(?=.*\bavg\s*=)", re.I)
_AVG = re.compile(r"\bavg\s*=\s*")
# `    clat percentiles (usec):` and its rows `|  1.00th=[  157],  5.00th=[  157], ...`
_PERCENTILES = re.compile(r"^\s*(slat|clat|lat)\s+percentiles\s*\(\s*(nsec|usec|msec|sec)\s*\)\s*:",
                          re.I)
_PERCENTILE_ROW = re.compile(r"^\s*\|")
_PERCENTILE = re.compile(r"(\d+(?:\.\d+)?)th\s*=\s*\[\s*")
_IOPS_UNITS = {"": "IOPS", "k": "kIOPS", "K": "KIOPS", "M": "MIOPS"}


@dataclass(frozen=True, slots=True)
class Field:
    """One result of a fio report: what it is (`key`), its figure, where it stands."""

    key: tuple[str, ...]  # (job's place, direction, what): ("0", "write", "clat", "avg")
    line: int
    quantity: Quantity
    job: str  # the job's name as printed
    label: str  # what it is, in fio's words: `write IOPS`, `clat avg`, `clat 99.00th`


def is_fio_report(lines: Sequence[str], start: int, end: int) -> bool:
    """Whether lines [start, end) hold a fio report: a job's result line."""
    return any(_RESULT.match(lines[i]) for i in range(start, min(end, len(lines))))


def _figure_at(line: str, at: int) -> Quantity | None:
    """The figure that starts at offset `at` of the line."""
    for q in find_quantities(line[at:at + 40]):
        if q.start == 0 and q.kind != "percent":
            return Quantity(q.value, q.text, q.start + at, q.end + at, q.kind, q.unit,
                            q.canonical_unit, q.canonical_value, q.bound, q.sign, q.high)
        break
    return None


def _with_unit(q: Quantity, unit: str) -> Quantity:
    """The figure in a unit fio names apart from it (`(usec)`, `IOPS=` with `k`)."""
    probe = find_quantities("1 " + unit)
    if not probe or not probe[0].unit:
        return q
    scale = probe[0].canonical_value
    return Quantity(q.value, q.text, q.start, q.end, q.kind, probe[0].unit,
                    probe[0].canonical_unit, None if scale is None else q.value * scale,
                    q.bound, q.sign, q.high)


def read_report(lines: Sequence[str], start: int, end: int) -> list[Field]:
    """The results of the fio report in lines [start, end), in order."""
    out: list[Field] = []
    job, jobs, direction = "", -1, ""
    percentiles: tuple[str, str] | None = None  # (which latency, its unit) over `|` rows
    for i in range(start, min(end, len(lines))):
        line = lines[i]
        if percentiles is not None and _PERCENTILE_ROW.match(line):
            which, unit = percentiles
            for p in _PERCENTILE.finditer(line):
                q = _figure_at(line, p.end())
                if q is not None:
                    out.append(Field((str(jobs), direction, which, f"p{p.group(1)}"), i,
                                     _with_unit(q, unit), job, f"{which} {p.group(1)}th"))
            continue
        percentiles = None
        m = _JOB.match(line)
        if m is not None:
            job, jobs, direction = m.group(1).strip(), jobs + 1, ""
            continue
        m = _RESULT.match(line)
        if m is not None:
            direction = m.group(1).lower()
            if jobs < 0:
                jobs = 0
            iops = _IOPS.search(line)
            if iops is not None:
                q = _figure_at(line, iops.end())
                if q is not None:
                    iops_unit = _IOPS_UNITS.get(q.unit or "")
                    if iops_unit is not None:
                        q = Quantity(q.value, q.text, q.start, q.end, q.kind, None, None,
                                     q.value, q.bound, q.sign, q.high)
                        out.append(Field((str(jobs), direction, "iops"), i, _with_unit(q, iops_unit),
                                         job, f"{direction} IOPS"))
            bw = _BW.search(line)
            if bw is not None:
                q = _figure_at(line, bw.end())
                if q is not None and q.canonical_unit == "B/s":
                    out.append(Field((str(jobs), direction, "bw"), i, q, job, f"{direction} BW"))
            continue
        m = _STAT.match(line)
        if m is not None:
            avg = _AVG.search(line)
            q = _figure_at(line, avg.end()) if avg is not None else None
            if q is not None:
                which = m.group(1).lower()
                out.append(Field((str(max(jobs, 0)), direction, which, "avg"), i,
                                 _with_unit(q, m.group(2).lower()), job, f"{which} avg"))
            continue
        m = _PERCENTILES.match(line)
        if m is not None:
            percentiles = (m.group(1).lower(), m.group(2).lower())
    return out


def pair_reports(base: Sequence[Field], patched: Sequence[Field]
                 ) -> list[tuple[Field, Field]]:
    """The results of two reports that pair: the same key, the k-th of each key with the
    k-th."""
    seen: dict[tuple[str, ...], list[Field]] = {}
    for f in patched:
        seen.setdefault(f.key, []).append(f)
    taken: dict[tuple[str, ...], int] = {}
    out = []
    for f in base:
        k = taken.get(f.key, 0)
        others = seen.get(f.key, [])
        if k < len(others):
            out.append((f, others[k]))
            taken[f.key] = k + 1
    return out


@dataclass(frozen=True, slots=True)
class Report:
    """Where one job's report stands: its header line to the line before what follows it."""

    start: int
    end: int
    job: str


_REPORT_END = re.compile(r"^\s*(?:Run status group|Disk stats|All clients)\b")


def find_reports(lines: Sequence[str]) -> list[Report]:
    """Each job's report in the lines (`name: (groupid=0, jobs=1): err= 0: ...` and the
    result lines under it, to the group's summary, a blank line after its results, or the
    next job)."""
    out: list[Report] = []
    i, n = 0, len(lines)
    while i < n:
        m = _JOB.match(lines[i]) if "groupid=" in lines[i] else None
        if m is None:
            i += 1
            continue
        j = i + 1
        results = False
        while j < n and not _REPORT_END.match(lines[j]) and not (
                "groupid=" in lines[j] and _JOB.match(lines[j])):
            if not lines[j].strip() and results:
                break
            results = results or bool(_RESULT.match(lines[j]))
            j += 1
        if results:
            out.append(Report(i, j, m.group(1).strip()))
        i = j
    return out
