"""Coverage-guided fuzzing with atheris (libFuzzer for Python), beside the hypothesis harness
of tests/test_fuzz.py: atheris watches which branches an input reaches and mutates towards
new ones, which finds the inputs that get past a reader's first checks.

    PATCHPERF_PURE=1 python tests/fuzz_atheris.py TARGET [libFuzzer options]

TARGET: message (decoding and claim extraction), numbers (the number lexer), tables (table,
list and prose readers over lines), pages (the four archive page readers), scenario (the
scenario loader), atom (lore's Atom feed), events (a page of Patchwork events), index
(openwall's month, day and attachment links). `make fuzz` runs each for a fixed number of inputs. Like the hypothesis
harness, a reader may return or raise one of the project's named errors; anything else is a
crash, and libFuzzer writes the input to `crash-*` for tests/data/fuzz/.

PATCHPERF_PURE=1: the pure-Python modules, which atheris can instrument (the mypyc build
cannot be).
"""

from __future__ import annotations

import contextlib
import sys

import atheris

with atheris.instrument_imports(include=["analyze", "ingest"]):
    from analyze.claims.extract import extract_claims
    from analyze.claims.lexer.numbers import find_quantities
    from analyze.claims.lists.read import find_list_measurements
    from analyze.claims.prose.read import find_prose_claims
    from analyze.claims.tables.read import find_table_measurements
    from analyze.errors import PatchperfError
    from analyze.limits import Limits
    from analyze.mail.message import parse_message
    from analyze.sim.scenario import parse_scenario
    from ingest.lore import parse_atom
    from ingest.openwall import attachment_links, day_messages, month_days
    from ingest.pages import page_to_mail
    from ingest.patchwork import parse_events

SMALL = Limits(message_bytes=256 * 1024, decompressed_bytes=512 * 1024, page_bytes=256 * 1024,
               table_lines=2_000)


def message(data: bytes) -> None:
    extract_claims(parse_message(data, "fuzz", SMALL))


def numbers(data: bytes) -> None:
    find_quantities(data.decode("utf-8", "replace"))


def tables(data: bytes) -> None:
    lines = data.decode("utf-8", "replace").splitlines()
    find_table_measurements(lines)
    find_list_measurements(lines)
    find_prose_claims(lines)


def pages(data: bytes) -> None:
    for fmt in ("lore-html", "openwall-html", "lore-text", "openwall-text"):
        with contextlib.suppress(PatchperfError):
            page_to_mail(data, fmt)


def scenario(data: bytes) -> None:
    parse_scenario(data.decode("utf-8", "replace"), "fuzz.toml")


def atom(data: bytes) -> None:
    parse_atom(data, "fuzz.atom", "netdev")


def events(data: bytes) -> None:
    parse_events(data, "http://127.0.0.1/api/1.3/events/")


def index(data: bytes) -> None:
    month_days(data)
    day_messages(data)
    attachment_links(data, "http://127.0.0.1/lists/netdev/2024/09/02/3")


TARGETS = {f.__name__: f for f in (message, numbers, tables, pages, scenario, atom, events, index)}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: {sys.argv[0]} {{{'|'.join(TARGETS)}}} [libFuzzer options]")
    target = TARGETS[sys.argv.pop(1)]

    def one_input(data: bytes) -> None:
        with contextlib.suppress(PatchperfError):  # a named error: the reader's answer
            target(data)

    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
