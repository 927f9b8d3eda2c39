"""Size limits (ARCHITECTURE.md: 'Default limits'); every error names the limit.

Configurable through the environment, e.g. `PATCHPERF_LIMIT_DECOMPRESSED_BYTES=1073741824`
for a large backfill.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields

MiB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    message_bytes: int = 64 * MiB
    decompressed_bytes: int = 256 * MiB
    page_bytes: int = 16 * MiB
    table_lines: int = 100_000

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Limits:
        """Defaults, overridden by `PATCHPERF_LIMIT_<FIELD>` variables (positive integers)."""
        env = os.environ if environ is None else environ
        values: dict[str, int] = {}
        for f in fields(cls):
            name = f"PATCHPERF_LIMIT_{f.name.upper()}"
            text = env.get(name)
            if text is None:
                continue
            try:
                value = int(text.replace("_", ""))
            except ValueError:
                value = 0
            if value <= 0:
                from .errors import UsageError

                raise UsageError(f"{name}={text!r}: expected a positive number of bytes or lines")
            values[f.name] = value
        return cls(**values)


DEFAULT_LIMITS = Limits()
