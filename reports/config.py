"""Settings the command line takes from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import fields

from analyze.errors import UsageError
from analyze.limits import Limits


def limits_from_env(environ: Mapping[str, str] | None = None) -> Limits:
    """The default limits, overridden by `PATCHPERF_LIMIT_<FIELD>` variables (positive
    integers), e.g. `PATCHPERF_LIMIT_DECOMPRESSED_BYTES=1073741824` for a large backfill."""
    env = os.environ if environ is None else environ
    values: dict[str, int] = {}
    for f in fields(Limits):
        name = f"PATCHPERF_LIMIT_{f.name.upper()}"
        text = env.get(name)
        if text is None:
            continue
        try:
            value = int(text.replace("_", ""))
        except ValueError:
            value = 0
        if value <= 0:
            raise UsageError(f"{name}={text!r}: expected a positive number of bytes or lines")
        values[f.name] = value
    return Limits(**values)
