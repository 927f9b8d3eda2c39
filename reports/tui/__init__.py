"""`patchperf tui`: the Textual app (app.py). `reports.tui.app.make_app(store)` builds it, so
tests can drive it."""
