"""The simulator's own error: a model asked for something it cannot be (negative costs, no
servers, a chain without a way down). A PatchperfError, so the CLI says it in one line."""

from __future__ import annotations

from ..errors import PatchperfError


class ModelError(PatchperfError, ValueError):
    pass
