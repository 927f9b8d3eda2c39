# patchperf: the two set-up commands are `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo compiled test lint test-slow test-compiled test-pg test-all eval eval-real eval-archive docs-controls bench bench-scale fuzz \
	tui-smoke html-check clean

# (Re)install when the venv is missing or pyproject.toml changed since the last install.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The claim readers compiled with mypyc into the venv (docs/development.md). The build
# command keeps a build that matches the sources, so this costs a second when nothing changed;
# without a C compiler it says so in one line and the pure-Python modules run.
compiled: $(STAMP)
	$(BIN)/python -m analyze.build_compiled

demo: $(STAMP)
	$(BIN)/patchperf demo

lint: $(STAMP)
	$(BIN)/ruff check ingest analyze reports corpus tests
	$(BIN)/mypy

# The inner loop: lint, then the suite on the pure-Python modules, less the minute-long
# kill-point runs. The other lanes run in CI (.ci/run): `test-slow`, `test-compiled` (the
# readers' tests again on the mypyc build) and `test-pg` (every store test on PostgreSQL: a
# throwaway server, tests/pg_server.py, or $$PATCHPERF_TEST_PG; skipped with the reason when
# there is none, unless PATCHPERF_REQUIRE_PG=1).
test: lint
	PATCHPERF_PURE=1 $(BIN)/python -m pytest -q -m "not slow"

test-slow: $(STAMP)
	PATCHPERF_PURE=1 $(BIN)/python -m pytest -q -m slow

test-compiled: compiled
	PATCHPERF_REQUIRE_COMPILED=1 $(BIN)/python -m pytest -q -m readers

test-pg: $(STAMP)
	PATCHPERF_PURE=1 PATCHPERF_TEST_BACKEND=postgresql $(BIN)/python -m pytest -q -m "store and not sqlite_only"

# Every lane, as CI runs them.
test-all: test test-slow test-compiled test-pg

# Claim extraction against our own gold set (tests/data/claims); pytest runs it too.
eval: $(STAMP)
	$(BIN)/python tests/claims_eval.py tests/data/claims

# ... and against real mail: the annotated development corpus in ../shared/corpus/real, with
# the shared scorer's matching; precision, recall and every miss, overall and per group.
eval-real: $(STAMP)
	$(BIN)/python tests/eval_real.py

# ... and on whole archives, with no gold: what must hold of every claim (no self-pairs, no
# timestamps or line numbers, every claim over 10x listed), per store. STORES: patchperf
# stores each synced from a real list's epoch (`patchperf sync lore:LIST --git DIR`).
STORES ?=
eval-archive: $(STAMP)
	@test -n "$(STORES)" || { echo "make eval-archive STORES='a.db b.db': stores synced from real archives (docs/archive-sample.md)"; exit 2; }
	$(BIN)/python tests/eval_archive.py $(STORES)

# docs/controls.md: the negative controls of every library scenario and seed, with their
# verdicts (tests/test_sim_controls.py fails when the file is stale).
docs-controls: $(STAMP)
	$(BIN)/python tests/controls_table.py > docs/controls.md

bench: compiled
	$(BIN)/python tests/bench/run_bench.py

# Issue 8's scale figures (not in CI): `analyze --all` on 100,000 messages with --jobs 1,
# --jobs 2 and a Dask LocalCluster of 2 workers side by side, and whether the stores hold the
# same results; then the backfill of a generated archive of 1,000,000 messages (git epochs and
# an mbox, built once into tests/bench/out, about 15 minutes) into SQLite, each way (about
# 15 minutes each).
BACKFILL_N ?= 1000000
bench-scale: compiled
	$(BIN)/python tests/bench/scale.py
	$(BIN)/python tests/bench/backfill.py --n $(BACKFILL_N)

# The long fuzz run of every reader of outside input (tests/test_fuzz.py; SECURITY.md quotes
# its figures); `make test` runs the same harness with the quick `ci` profile.
# Then coverage-guided, with atheris (libFuzzer) on the pure-Python modules (the mypyc build
# cannot be instrumented), each target from a seed corpus of our own mail, pages and
# scenarios; a crash is written to .demo/fuzz/crash-* (add it to tests/data/fuzz/).
FUZZ_RUNS ?= 50000
fuzz: compiled
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest -q -p no:cacheprovider --timeout=0 tests/test_fuzz.py \
		--hypothesis-show-statistics
	$(BIN)/python -m pip install --quiet -e '.[dev,fuzz]'
	rm -rf .demo/fuzz && mkdir -p .demo/fuzz/mail .demo/fuzz/pages .demo/fuzz/toml .demo/fuzz/atom \
		.demo/fuzz/events .demo/fuzz/index
	cp tests/data/claims/*.eml tests/data/fuzz/*.eml tests/data/fuzz/*.txt .demo/fuzz/mail/
	cp tests/data/ingest/*.html tests/data/fuzz/*.html .demo/fuzz/pages/
	cp corpus/scenarios/*.toml tests/data/fuzz/*.toml .demo/fuzz/toml/
	cp tests/data/fuzz/seeds/*.atom .demo/fuzz/atom/
	cp tests/data/fuzz/seeds/*.json .demo/fuzz/events/
	cp tests/data/fuzz/seeds/*.html tests/data/ingest/openwall-page.html .demo/fuzz/index/
	cd .demo/fuzz && for t in message:mail numbers:mail tables:mail pages:pages scenario:toml \
			atom:atom events:events index:index; do \
		echo "atheris: $${t%%:*}"; \
		PATCHPERF_PURE=1 ../../$(BIN)/python ../../tests/fuzz_atheris.py $${t%%:*} \
			-atheris_runs=$(FUZZ_RUNS) -max_len=16384 -print_final_stats=1 $${t##*:} \
			> $${t%%:*}.log 2>&1 || { tail -40 $${t%%:*}.log; exit 1; }; \
		grep -E "^(Done|stat::number_of_executed_units)" $${t%%:*}.log; \
	done

# The TUI in a real terminal: tmux (installed when missing) runs `patchperf tui` on the
# bundled corpus; keys are sent and the screen read back (tests/test_tui_tmux.py).
tui-smoke: compiled
	command -v tmux >/dev/null || (apt-get update -qq && apt-get install -y -qq tmux >/dev/null)
	$(BIN)/python -m pytest -q tests/test_tui_tmux.py

# The HTML report of the bundled corpus in headless Chromium (installed when missing): a
# screenshot, and a check that the tables and plots are on it (tests/bench/html_check.py).
html-check: compiled
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)
	$(BIN)/python tests/bench/html_check.py

clean:
	rm -rf $(VENV) .demo .pytest_cache .ruff_cache
