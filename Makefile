# Bluff Arena — every target creates and uses the local virtual environment .venv.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PACKAGES := referee sdk example_bots league bench tests proto/generate.py

.PHONY: help venv bytecode sandbox-tools demo ladder ladder-quick dice-poker-table match test checks pytest pytest-parallel pytest-serial lint typecheck proto proto-check docs clean

help:
	@echo "make demo   - example bots of every game play a league over real gRPC (arena.db)"
	@echo "make ladder - random < heuristic < strong per game: a league each, Elo, LOS, latency (build/ladder.md;"
	@echo "              LADDER_OUT=docs/ladder.md to refresh the docs)"
	@echo "make dice-poker-table - solve the optimal Dice Poker bot's value table (about a minute, once)"
	@echo "make test   - lint, type-check, protobuf drift check and the test suite"
	@echo "make proto  - regenerate the Python code for proto/arena/v1/*.proto"
	@echo "make docs   - regenerate docs/games/<game>.md, each game's observation and action fields"

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

# Bytecode for the project's own modules, written once. Every bot, every `arena`
# command and every referee worker is a fresh Python process; where
# PYTHONDONTWRITEBYTECODE is set (CI images often set it) none of them writes its
# bytecode, and each compiled the project's sources again (0.1 s more per bot start,
# thousands of starts in the suite). Up-to-date files are skipped.
bytecode: venv
	@$(BIN)/python -m compileall -q -j 0 referee sdk example_bots league bench proto tests >/dev/null

# The bot sandbox needs bubblewrap (bwrap); prlimit and setpriv come with util-linux.
sandbox-tools:
	@{ command -v bwrap >/dev/null 2>&1 && ldconfig -p | grep -q 'libseccomp\.so\.2'; } || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing bubblewrap and libseccomp2 (the bot sandbox and its system-call filter)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap libseccomp2 >/dev/null; \
	  else \
	    echo "the bot sandbox needs bubblewrap and libseccomp2: sudo apt-get install bubblewrap libseccomp2" >&2; exit 1; \
	  fi; }

demo: venv bytecode sandbox-tools
	$(BIN)/arena match --game liars_dice --seed 7 --quiet \
		--bot "python -m example_bots.liars_dice_probability" \
		--bot "python -m example_bots.liars_dice_random"
	@echo
	$(BIN)/arena demo

# The optimal Dice Poker bot's value table (example_bots/tables/, git-ignored): about a
# minute of one core, 9.7 MB; nothing to do when it is there. The bot refuses to play
# without it (docs/bots.md), so the ladder builds it first.
dice-poker-table: venv
	$(BIN)/python -m example_bots.dice_poker_optimal --solve

# The ladder writes build/ladder.md; the tracked docs/ladder.md changes only when asked:
# make ladder LADDER_OUT=docs/ladder.md. LADDER_ARGS passes options through,
# e.g. make ladder LADDER_ARGS="--rounds 25 --concurrency 1".
LADDER_OUT ?= build/ladder.md

ladder: venv sandbox-tools dice-poker-table
	@mkdir -p $(dir $(LADDER_OUT))
	$(BIN)/python -m league.execution.ladder --out $(LADDER_OUT) $(LADDER_ARGS)

ladder-quick: venv sandbox-tools dice-poker-table
	@mkdir -p $(dir $(LADDER_OUT))
	$(BIN)/python -m league.execution.ladder --quick --out $(LADDER_OUT) $(LADDER_ARGS)

# The checks (protobuf drift, ruff, import contracts, mypy) run beside the parallel
# tests rather than before them: they use CPU the tests leave idle (the tests wait on
# the processes they start). Their output is shown once both are done. The serial
# tests run next whatever the parts before them did (a failure there no longer hides
# theirs), and a last line gives each part's exit status: any of the three failing
# fails `make test`. `make checks` runs the checks alone.
CHECKS_LOG ?= build/checks.log

test: venv bytecode sandbox-tools
	@mkdir -p $(dir $(CHECKS_LOG))
	@$(MAKE) --no-print-directory checks >$(CHECKS_LOG) 2>&1 & checks=$$!; \
	$(MAKE) --no-print-directory pytest-parallel; tests=$$?; \
	wait $$checks; checked=$$?; \
	echo "--- make checks (protobuf drift, lint, typecheck): exit $$checked ---"; \
	cat $(CHECKS_LOG); \
	$(MAKE) --no-print-directory pytest-serial; serial=$$?; \
	echo "--- make test: checks exit $$checked, parallel tests exit $$tests, serial tests exit $$serial ---"; \
	test $$checked = 0 && test $$tests = 0 && test $$serial = 0

checks: proto-check lint typecheck

# One pytest worker per core and one more (pytest-xdist): the suite spends about a
# third of its time waiting on the processes it starts (bots, servers, the CLI); on 2
# cores a third worker took the parallel part from 864 s to 823-847 s (fresh clones,
# the latter with the checks beside it). A test file
# stays on one worker, so its module fixtures (a solved table, a Ray instance) are
# built once. Files go out in collection order, the costliest first
# (tests/conftest.py), so no long file is left for one worker at the end. Tests marked
# serial measure how many cores a bot gets, so they run afterwards, alone.
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))

# Both parts run, the serial one even when the parallel one failed; either failing
# fails `make pytest`.
pytest: venv bytecode
	@$(MAKE) --no-print-directory pytest-parallel; parallel=$$?; \
	$(MAKE) --no-print-directory pytest-serial; serial=$$?; \
	echo "--- make pytest: parallel tests exit $$parallel, serial tests exit $$serial ---"; \
	test $$parallel = 0 && test $$serial = 0

pytest-parallel: venv bytecode
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder -m "not serial"

pytest-serial: venv bytecode
	$(BIN)/python -m pytest -q -m serial

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: venv
	$(BIN)/mypy $(PACKAGES) --exclude '.*_pb2.*\.py$$' --exclude '^tests/installed_game/'
	for package in $(notdir $(patsubst %/,%,$(wildcard tests/installed_game/*/))); do \
		$(BIN)/mypy -p $$package || exit 1; done  # distributions of their own

proto: venv
	$(BIN)/python proto/generate.py

proto-check: venv
	$(BIN)/python proto/generate.py --check

docs: venv
	$(BIN)/arena games --write-docs docs/games

# The Go example bot as one static binary, offline from Debian's Go packages (.ci/run
# installs them; example_bots/go_liars_dice/README.md). The tests build their own copy.
.PHONY: go-bot
go-bot:
	example_bots/go_liars_dice/build.sh build/go_liars_dice

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
