"""The project's JSON Schema (docs/patchperf.schema.json) keeps the product brief's contract
(../shared/design/patchperf.schema.json): every field the brief names is there with its type,
nothing it requires is optional, and no enum holds a value the brief lacks. And what the
command prints validates against both. The only test that reads the brief's schema."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from conftest import SCHEMA, _require_shared
from stores import ingest_into

from corpus.bundled import bundled_threads


def _schemas() -> tuple[dict[str, Any], dict[str, Any]]:
    brief = json.loads((_require_shared("design") / "patchperf.schema.json").read_text())
    return brief, json.loads(SCHEMA.read_text())


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        *_, name = node["$ref"].split("/")
        node = root["$defs"][name]
    return node


def _differences(brief: dict[str, Any], ours: dict[str, Any], where: str,
                 roots: tuple[dict[str, Any], dict[str, Any]]) -> list[str]:
    """Where `ours` fails to keep `brief`'s promises, walking both side by side."""
    brief, ours = _resolve(brief, roots[0]), _resolve(ours, roots[1])
    found = []
    if "enum" in brief:
        extra = [v for v in ours.get("enum", [object()]) if v not in brief["enum"]]
        if extra:
            found.append(f"{where}: enum values the brief lacks: {extra}")
    if "type" in brief and ours.get("type") != brief["type"]:
        found.append(f"{where}: type {ours.get('type')!r}, the brief's is {brief['type']!r}")
    missing = set(brief.get("required", ())) - set(ours.get("required", ()))
    if missing:
        found.append(f"{where}: not required, as the brief requires: {sorted(missing)}")
    for name, sub in brief.get("properties", {}).items():
        if name not in ours.get("properties", {}):
            found.append(f"{where}.{name}: missing")
        else:
            found += _differences(sub, ours["properties"][name], f"{where}.{name}", roots)
    if "items" in brief:
        found += _differences(brief["items"], ours.get("items", {}), f"{where}[]", roots)
    for i, option in enumerate(brief.get("oneOf", ())):
        options = ours.get("oneOf", [])
        if i >= len(options):
            found.append(f"{where}: oneOf option {i} missing")
        else:
            found += _differences(option, options[i], f"{where}|{i}", roots)
    return found


def test_the_schema_keeps_the_briefs_contract() -> None:
    brief, ours = _schemas()
    jsonschema.Draft202012Validator.check_schema(ours)
    assert _differences(brief, ours, "$", (brief, ours)) == []


def test_a_renamed_field_or_a_new_enum_value_is_told() -> None:
    """The comparison can fail: a field renamed, a type changed and an enum grown are each
    named."""
    brief, ours = _schemas()
    claim = ours["$defs"]["claim"]["properties"]
    claim["stated_pct"] = claim.pop("stated_change_pct")
    claim["source"] = {"enum": ["table", "list", "prose", "guess"]}
    claim["line"] = {"type": "string"}
    found = _differences(brief, ours, "$", (brief, ours))
    assert any("stated_change_pct: missing" in f for f in found)
    assert any("'guess'" in f for f in found)
    assert any(".line: type" in f for f in found)


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the command prints as JSON: each seed analysed and judged, the bundled corpus's
    report and its claims judged, and a library scenario simulated."""
    from reports.cli import main

    out: dict[str, Any] = {}

    def run(name: str, *args: str) -> None:
        import contextlib
        import io

        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            code = main(list(args))
        assert code == 0, name
        out[name] = json.loads(buffer.getvalue())

    for seed in sorted(_require_shared("seeds").glob("*.txt")):
        run(seed.name, "analyze", "--verdicts", "--format", "json", str(seed))
    db = str(tmp_path_factory.mktemp("compat") / "bundled.db")
    with bundled_threads() as folder:
        ingest_into(db, *sorted(folder.glob("*.mbox")))
    run("report", "--db", db, "report", "--all", "--verdicts", "--format", "json")
    run("claims", "--db", db, "claims", "--verdicts", "--format", "json")
    run("simulate", "simulate", "tc-police-dummy-pktgen", "--format", "json")
    return out


@pytest.mark.parametrize("which", ["brief", "ours"])
def test_what_the_command_prints_validates_against_both(printed: dict[str, Any],
                                                        which: str) -> None:
    brief, ours = _schemas()
    schema = brief if which == "brief" else ours
    assert {"report", "claims", "simulate"} <= set(printed) and len(printed) >= 6
    for doc in printed.values():
        jsonschema.validate(doc, schema)
    claims = printed["claims"]["claims"]
    assert any(c.get("verdict") for c in claims)  # verdicts were printed, and checked
