"""A Ctrl-C while a library builds itself is held back until it is done
(analyze/interrupt.py): raised inside pydantic-core's schema building at `import spacy`, it
came out as a SchemaError and a traceback instead of "patchperf: interrupted" (seen in CI's
kill-point test)."""

from __future__ import annotations

import signal

import pytest

from analyze.claims.prose import shape
from analyze.interrupt import interrupts_deferred


@pytest.fixture
def default_handler():
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_a_ctrl_c_inside_the_block_is_raised_after_it(default_handler) -> None:
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts_deferred():
            signal.raise_signal(signal.SIGINT)
            steps.append("after the signal")
        steps.append("after the block")
    assert steps == ["after the signal"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_without_a_ctrl_c_the_block_leaves_the_handler_as_it_was(default_handler) -> None:
    with interrupts_deferred():
        pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_ignored_ctrl_c_stays_ignored() -> None:
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with interrupts_deferred():
            signal.raise_signal(signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_the_handler_in_force_before_runs_once_after(default_handler) -> None:
    calls = []
    signal.signal(signal.SIGINT, lambda signum, _frame: calls.append(signum))
    with interrupts_deferred():
        signal.raise_signal(signal.SIGINT)
        signal.raise_signal(signal.SIGINT)
        assert calls == []
    assert calls == [signal.SIGINT]


def test_spacy_s_pipeline_is_built_whole_under_a_ctrl_c(default_handler, monkeypatch) -> None:
    if not shape.__file__.endswith(".py"):
        pytest.skip("the compiled reader calls its own builder; this runs on the pure modules")
    steps = []

    def build():
        signal.raise_signal(signal.SIGINT)  # as if Ctrl-C came during `import spacy`
        steps.append("built")
        return ("nlp", "matcher")

    monkeypatch.setattr(shape, "_PIPELINE", None)
    monkeypatch.setattr(shape, "_build_pipeline", build)
    with pytest.raises(KeyboardInterrupt):
        shape.pipeline()
    assert steps == ["built"]
    assert shape._PIPELINE == ("nlp", "matcher")
