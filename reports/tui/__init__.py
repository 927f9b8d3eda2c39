"""`patchperf tui`: the Textual app. `make_app(store)` builds it, so tests can drive it."""

from .app import PatchperfApp, make_app

__all__ = ["PatchperfApp", "make_app"]
