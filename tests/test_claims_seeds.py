"""Issue 3, acceptance 1: the three seeds give exactly 13 claims, and altered copies of them
give the altered claims (nothing fitted to the three files)."""

from __future__ import annotations

from pathlib import Path

import pytest

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers

SEED_000 = "000_ea1513e461eed647.txt"
SEED_001 = "001_22952647ed20d5cc.txt"
SEED_004 = "004_19b1e878a2b8005e.txt"

LOOP_004 = [35, 50, 65, 80, 95, 110, 125, 140, 155]
BEFORE_004 = [494016, 612806, 673100, 696982, 710494, 716830, 714729, 713478, 711056]
AFTER_004 = [517159, 628382, 669688, 706181, 716660, 719581, 718738, 718904, 718344]
STATED_004 = [4.684733558, 2.541860742, -0.5069080835, 1.319833855, 0.8677995555,
              0.3838661811, 0.5609585358, 0.7605470482, 1.02509555]


def _claims(cli, path: Path) -> list[dict]:
    result = cli("analyze", path, "--format", "json")
    assert result.code == 0, result.err
    return result.json()["claims"]


def _copy(seeds_dir: Path, tmp_path: Path, name: str, edits: list[tuple[str, str]]) -> Path:
    text = (seeds_dir / name).read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    out = tmp_path / f"altered-{name}"
    out.write_text(text, encoding="utf-8")
    return out


def check_000(claims, *, before, after, unit, queues, origin, found_in):
    assert len(claims) == 1, claims
    (c,) = claims
    assert (c["metric"], c["baseline"], c["patched"], c["unit"]) == ("throughput", before, after, unit)
    assert c["bound"] == "lower"
    assert c["condition"] == {"queues": str(queues)}
    assert (c["message_id"], c["found_in"], c["quoted"]) == (origin, found_in, True)
    assert c["source"] == "prose" and c["direction"] == "improvement"


def test_seed_000(cli, seeds_dir):
    check_000(_claims(cli, seeds_dir / SEED_000), before=5, after=10, unit="Mpps", queues=8,
              origin="1435842455-30501-7-git-send-email-edumazet@google.com",
              found_in="55966CEF.3000406@mojatatu.com")


def test_seed_000_altered(cli, seeds_dir, tmp_path):
    path = _copy(seeds_dir, tmp_path, SEED_000, [
        ("with 8 RX queues was handling 5 Mpps", "with 16 RX queues was handling 2.5 Gbps"),
        ("more than 10 Mpps after patch", "more than 9.4 Gbps after patch"),
        ("1435842455-30501-7-git-send-email-edumazet@google.com", "77-3-x@example.org"),
        ("55966CEF.3000406@mojatatu.com", "reply-9@example.net"),
    ])
    check_000(_claims(cli, path), before=2.5, after=9.4, unit="Gbps", queues=16,
              origin="77-3-x@example.org", found_in="reply-9@example.net")


def check_001(claims, rows, *, var_name="threads"):
    assert len(claims) == len(rows), claims
    by_condition = {c["condition"][var_name]: c for c in claims}
    for threads, before, after, stated in rows:
        c = by_condition[str(threads)]
        assert (c["baseline"], c["patched"], c["stated_change_pct"]) == (before, after, stated)
        assert c["metric"] == "throughput" and "pps" in (c["unit"] or "")
        assert c["source"] == "table" and c["quoted"] is False and c["message_id"] is None
        if stated is not None:
            assert c["consistent"] is True


def test_seed_001(cli, seeds_dir):
    check_001(_claims(cli, seeds_dir / SEED_001), [
        (1, 3518448, 3591240, None), (2, 3070065, 3383393, 10), (4, 1540969, 3238385, 110),
    ])


def test_seed_001_altered(cli, seeds_dir, tmp_path):
    """Other loop values, numbers, and the columns in the other order (after first)."""
    path = _copy(seeds_dir, tmp_path, SEED_001, [
        ("for c in 1 2 4; do", "for c in 2 8 16; do"),
        ("  $c | before patch |  after patch | improvement",
         "  $c |  after patch | before patch | improvement"),
        ("   1 |      3518448 |      3591240 |  irrelevant", "   2 |      2100000 |      2000000 |          5%"),
        ("   2 |      3070065 |      3383393 |         10%", "   8 |      1800000 |       900000 |        100%"),
        ("   4 |      1540969 |      3238385 |        110%", "  16 |       960000 |       300000 |        220%"),
    ])
    check_001(_claims(cli, path), [
        (2, 2000000, 2100000, 5), (8, 900000, 1800000, 100), (16, 300000, 960000, 220),
    ])


def check_004(claims, loop, before, after, stated, unit="trans./sec"):
    assert len(claims) == len(loop), claims
    by_instances = {c["condition"]["instances"]: c for c in claims}
    for n, b, a, s in zip(loop, before, after, stated, strict=True):
        c = by_instances[str(n)]
        assert (c["baseline"], c["patched"]) == (b, a)
        assert c["stated_change_pct"] == pytest.approx(s)
        assert c["unit"] == unit and c["metric"] == "transactions"
        assert c["direction"] == ("regression" if a < b else "improvement")
        assert c["consistent"] is True and c["source"] == "list" and not c["quoted"]


def test_seed_004(cli, seeds_dir):
    claims = _claims(cli, seeds_dir / SEED_004)
    check_004(claims, LOOP_004, BEFORE_004, AFTER_004, STATED_004)
    regression = [c for c in claims if c["direction"] == "regression"]
    assert [c["condition"]["instances"] for c in regression] == ["65"]
    assert regression[0]["stated_change_pct"] == pytest.approx(-0.5069080835)


def test_seed_004_altered(cli, seeds_dir, tmp_path):
    loop = [10, 20, 40]
    before, after = [100000, 200000, 300000], [110000, 190000, 330000]
    stated = [10.0, -5.0, 10.0]
    old_loop = "for i in {35,50,65,80,95,110,125,140,155};"
    edits = [(old_loop, "for i in {10,20,40};")]
    text = (seeds_dir / SEED_004).read_text(encoding="utf-8")
    start = text.index("trans./sec (3.17)\n")
    end = text.index("On the host I can see")
    new_block = "trans./sec (3.17)\n\n" + "\n".join(map(str, before)) + "\n\ntrans./sec (3.17 + macvlan patch)\n\n"
    new_block += "\n".join(f"{a}  {'+' if s > 0 else '-'}({abs(s)}%)" for a, s in zip(after, stated, strict=True)) + "\n\n"
    edits.append((text[start:end], new_block))
    path = _copy(seeds_dir, tmp_path, SEED_004, edits)
    check_004(_claims(cli, path), loop, before, after, stated)


def test_the_three_seeds_give_exactly_13_claims(cli, seeds_dir):
    claims = []
    for name in (SEED_000, SEED_001, SEED_004):
        claims += _claims(cli, seeds_dir / name)
    assert len(claims) == 13
    together = cli("analyze", seeds_dir, "--format", "json").json()["claims"]
    assert sorted(c["id"] for c in together) == sorted(c["id"] for c in claims)
