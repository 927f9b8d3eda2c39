"""`patchperf claims` as a first-time user reads it (issue 22): a claim-id column (what
`simulate` and `scenario` take), rows in reading order (mail by date, each message's claims
by condition), and a link from each claim to its mail on lore."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from reports.links import lore_url
from reports.terminal import render_terminal
from reports.view import reading_order


@pytest.fixture
def corpus_db(bundled_copy: str) -> str:
    return bundled_copy


def _numbers(condition: dict[str, object]) -> list[float]:
    return [float(str(v)) for v in condition.values()]


def test_claims_are_listed_in_reading_order(cli, corpus_db) -> None:
    listed = cli("claims", "--db", corpus_db, "--format", "json").json()["claims"]
    assert listed
    # each message's sweep in numeric order (the store gives them by id, a hash)
    by_message: dict[str, list[dict]] = {}
    for claim in listed:
        by_message.setdefault(claim["message_id"] or claim["found_in"], []).append(claim)
    swept = 0
    for claims in by_message.values():
        for metric in {c["metric"] for c in claims}:
            runs = [c for c in claims if c["metric"] == metric and c["unit"] == claims[0]["unit"]
                    and len(c["condition"]) == 1]
            keys = {tuple(c["condition"]) for c in runs}
            if len(runs) >= 3 and len(keys) == 1:
                values = [_numbers(c["condition"])[0] for c in runs]
                assert values == sorted(values), values
                swept += 1
    assert swept >= 2
    # mail in the order it was sent
    assert reading_order(listed) == listed
    assert listed != sorted(listed, key=lambda c: c["id"])  # (not the store's order)


def test_the_terminal_listing_has_the_claim_ids(cli, corpus_db) -> None:
    ids = [c["id"] for c in cli("claims", "--db", corpus_db, "--format", "json").json()["claims"]]
    table = cli("claims", "--db", corpus_db).out
    assert table.splitlines()[2].split("┃")[1].strip() == "id"
    shown = [line.split("│")[1].strip() for line in table.splitlines() if line.startswith("│")]
    assert [i for i in shown if i] == ids
    # and `simulate` takes them
    assert cli("simulate", ids[0], "--db", corpus_db, "--format", "json").code == 0


def test_a_claim_links_to_its_mail_on_lore() -> None:
    claim = {"id": "c0", "message_id": "<odd(id)[1]\x1b]8;;http://evil.example\x07@x>",
             "found_in": "k", "metric": "throughput", "unit": "Mpps", "condition": {},
             "baseline": 5.0, "patched": 10.0, "change_pct": 100.0, "stated_change_pct": None,
             "consistent": None, "direction": "improvement", "source": "prose", "quoted": False,
             "bound": None, "verdict": None}
    out = io.StringIO()
    render_terminal({"messages": [], "series": [], "claims": [claim]},
                    Console(file=out, force_terminal=True, width=200, color_system="truecolor"))
    text = out.getvalue()
    url = lore_url(claim["message_id"])
    assert url == "https://lore.kernel.org/r/odd%28id%29%5B1%5D%1B%5D8;;http:%2F%2Fevil.example%07@x"
    # the one hyperlink is ours, to lore; the mail's escape sequence is not passed through
    assert text.count("\x1b]8;id=") == 1 and f";{url}\x1b\\" in text
    assert "\x1b]8;;http://evil.example" not in text and "\x07" not in text


def test_lore_urls() -> None:
    assert lore_url("<a@b.example>") == "https://lore.kernel.org/r/a@b.example"
    assert lore_url(" ") is None and lore_url(None) is None
    assert lore_url("x y'\"<>|") == "https://lore.kernel.org/r/x%20y%27%22%3C%3E%7C"
