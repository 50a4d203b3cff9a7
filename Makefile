# The two commands: `make run` (dashboard on embedded FalkorDB with the demo seed) and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt pyproject.toml | cksum | cut -d' ' -f1)
PORT ?= 8501

.PHONY: run test lint setup seed e2e bench clean

$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || "$$(scripts/find_python312.sh)" -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	$(PY) -m pip install -q --no-deps --no-build-isolation -e . || $(PY) -m pip install -q --no-deps -e .
	@rm -f $(VENV)/.installed-*; touch $@

setup: $(STAMP)

seed: $(STAMP)
	$(PY) -m rguard_core seed

run: seed
	$(PY) -m streamlit run app.py --server.port $(PORT) --server.headless true --browser.gatherUsageStats false

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy

test: lint
	$(PY) -m pytest -q -p no:cacheprovider

# Browser tests: the app on the demo seed, driven in headless Debian Chromium (installed here when missing).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
e2e: $(STAMP)
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  echo "installing chromium and chromium-driver with apt-get"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium chromium-driver; fi
	RGUARD_E2E=1 $(PY) -m pytest -q -p no:cacheprovider tests/e2e

bench: $(STAMP)
	$(PY) -m bench.run_all

clean:
	rm -rf $(VENV) .rguard .pytest_cache .mypy_cache .ruff_cache
