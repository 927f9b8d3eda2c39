"""The report document: `{messages, series, claims}` as the JSON contract defines it.

Every renderer (terminal, Markdown, JSON) reads this one shape, whether it came from an
in-memory analysis or from the store.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from analyze.model import Analysis
from analyze.serialize import message_to_dict, series_to_dict

Document = dict[str, list[dict[str, Any]]]


def analysis_document(analysis: Analysis) -> Document:
    return {
        "messages": [message_to_dict(m) for m in analysis.messages],
        "series": [series_to_dict(s) for s in analysis.series],
        "claims": list(analysis.claims),
    }


def trailer_counts(series: dict[str, Any], messages_by_key: dict[str, dict[str, Any]]) -> Counter[str]:
    """Acked-by/Reviewed-by/Tested-by counts of a series: its members' own and those given
    in replies."""
    counts: Counter[str] = Counter()
    members = [series.get("cover"), *series.get("patches", [])]
    for key in members:
        message = messages_by_key.get(key) if key else None
        for trailer in (message or {}).get("trailers", []):
            counts[trailer["key"]] += 1
    for trailer in series.get("received_trailers", []):
        counts[trailer["key"]] += 1
    return counts


def received(series: dict[str, Any]) -> str:
    """`3/3`, or `2/?` when the total is unknown."""
    total = series.get("total")
    return f"{len(series.get('patches', []))}/{total if total is not None else '?'}"
