# The two commands: `make run` (dashboard on embedded FalkorDB with the demo seed) and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt pyproject.toml | cksum | cut -d' ' -f1)
PORT ?= 8501
# loopback only; `make run HOST=0.0.0.0` exposes it (then writes need a signed-in reviewer: docs/operations.md)
HOST ?= 127.0.0.1

.PHONY: run test lint setup seed e2e bench clean test-server test-cluster test-fast guard-gate

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
	$(PY) -m rguard_core ui --host $(HOST) --port $(PORT)

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy

test: lint
	$(PY) -m pytest -q -p no:cacheprovider

# The tests that need no database, in seconds: tests/conftest.py marks `db` every test whose fixtures reach the
# session's data dir or whose module starts an engine or a Streamlit app. The engine is made unavailable (an empty
# data dir, binaries that do not exist, no FALKORDB_URL), so a test that needs it after all fails at once.
test-fast: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy
	@d=$$(mktemp -d); trap 'rm -rf "$$d"' EXIT; env -u FALKORDB_URL -u FALKORDB_READ_URL RGUARD_DATA_DIR="$$d" \
	  RGUARD_REDIS_SERVER=/nonexistent/redis-server RGUARD_FALKORDB_MODULE=/nonexistent/falkordb.so \
	  $(PY) -m pytest -q -p no:cacheprovider -m "not db and not slow"

# The memory, guard, ingest and view tests against a standalone FalkorDB server (FALKORDB_URL) with the official
# image's 10,000-row result cap, started from the bundled binaries; tests/test_server_mode.py (in `make test`)
# covers a 50-row cap, a replica and a password.
SERVER_SUITE := tests/test_memory_corrections.py tests/test_memory_region.py tests/test_memory_scenario.py \
  tests/test_memory_crash.py tests/test_memory_concurrency.py tests/test_memory_cli.py tests/test_guard_pipeline.py \
  tests/test_guard_feedback.py tests/test_guard_seed.py tests/test_ingest_pipeline.py tests/test_views.py tests/test_db.py
test-server: $(STAMP)
	RGUARD_TEST_SERVER=1 $(PY) -m pytest -q -p no:cacheprovider -m "not realdata" $(SERVER_SUITE)

# The same suite on a Redis Cluster of three FalkorDB primaries and three replicas started from the bundled
# binaries on loopback (tests/falkordb_server.py); tests/test_cluster.py (in `make test`) runs the CLI, MCP,
# views and memory on one.
test-cluster: $(STAMP)
	RGUARD_TEST_CLUSTER=1 $(PY) -m pytest -q -p no:cacheprovider -m "not realdata" $(SERVER_SUITE)

# Browser tests: the app on the demo seed, driven in headless Debian Chromium (installed here when missing).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
e2e: $(STAMP)
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  echo "installing chromium and chromium-driver with apt-get"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium chromium-driver; fi
	RGUARD_E2E=1 $(PY) -m pytest -q -p no:cacheprovider tests/e2e

bench: $(STAMP)
	$(PY) -m bench.run_all

# The guard's yardstick (about 8 minutes): every labelled set and a replay of each dev history (the three git
# bundles in ../shared/realdata/git, the starlette snapshot, this repository's clone), one table; exit 1 on a
# missed target (bench/guard_gate.py).
guard-gate: $(STAMP)
	$(PY) -m bench.guard_gate

clean:
	rm -rf $(VENV) .rguard .pytest_cache .mypy_cache .ruff_cache
