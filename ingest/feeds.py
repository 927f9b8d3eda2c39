"""The feeds `patchperf sync` follows: `lore:LIST`, `openwall:LIST`, `patchwork:PROJECT`, each
on a base URL of its kind (`PATCHPERF_<KIND>_URL`, else the public site), so a mirror of
one's own works the same."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from analyze.errors import UsageError

DEFAULT_URLS = {"lore": "https://lore.kernel.org", "openwall": "https://lists.openwall.net",
                "patchwork": "https://patchwork.kernel.org"}
KINDS = tuple(DEFAULT_URLS)



@dataclass(frozen=True, slots=True)
class Feed:
    kind: str
    name: str  # the list (lore inbox)
    base_url: str

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.name}"


def parse_feed(spec: str, environ: Mapping[str, str] | None = None) -> Feed:
    """`lore:netdev` → a Feed on the configured base URL; UsageError for anything else."""
    env = os.environ if environ is None else environ
    kind, _, name = spec.partition(":")
    if kind not in KINDS or not name or "/" in name or not name.replace("-", "").replace(".", "").isalnum():
        raise UsageError(f"{spec!r}: not a feed (expected {' or '.join(k + ':LIST' for k in KINDS)},"
                         " e.g. lore:netdev)")
    variable = f"PATCHPERF_{kind.upper()}_URL"
    base = env.get(variable, DEFAULT_URLS[kind])
    if not base.startswith(("http://", "https://")):
        raise UsageError(f"{variable}={base!r}: expected an http(s) URL")
    return Feed(kind, name, base)
