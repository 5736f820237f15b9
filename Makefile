# KAG: two commands set everything up on a fresh machine.
#   make demo   install, start Neo4j + Redis, run the multi-session demo offline
#   make test   install, start Neo4j + Redis, run every test (three lanes at once, scripts/test-lanes.sh)
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3.12 || command -v python3)
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# `make serve SERVE_FLAGS=` turns hot reload back on (it also watches .services/, so its log is noisy)
SERVE_FLAGS ?= --no-reload
SERVE_PORT ?= 2024

.PHONY: install dashboard-browser services-up services-down services-status demo test test-unit test-integration lint serve bench clean clean-data serve-prod-install serve-prod bench-serving docs-screenshots

install: $(STAMP) dashboard-browser

$(STAMP): pyproject.toml scripts/mermaid-validate/package-lock.json agent/server/dashboard/web/package-lock.json
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "KAG needs Python >= 3.11"'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install -q --upgrade pip uv
	@echo "[install] resolving and installing (uv; torch comes with sentence-transformers)"
	@# --compile-bytecode: uv writes no .pyc by default, and a shell with PYTHONDONTWRITEBYTECODE=1 never
	@# does, so every `kag` process and test server would compile ~900 modules again (half of `kag search`)
	@$(VENV)/bin/uv pip install --python $(PY) -q --compile-bytecode -e '.[dev]' || $(PY) -m pip install -q -e '.[dev]'
	@# bench/ is not in the installed package (agent, graphs, tools are); the development venv
	@# sees the checkout, so notebooks run from notebooks/ and `python -m bench.*` from anywhere
	@$(PY) -c 'import pathlib, sysconfig; pathlib.Path(sysconfig.get_paths()["purelib"], "kag_checkout.pth").write_text(str(pathlib.Path.cwd().resolve()) + "\n")'
	@echo "[install] MiniLM exported to ONNX once, checked against sentence-transformers (agent.models.onnx_export)"
	@$(PY) -m agent.models.onnx_export \
	  || echo "[install] WARNING: no checked ONNX export; the install goes on and KAG encodes with torch" >&2
	@$(PY) -m ipykernel install --user --name kag --display-name "KAG (.venv)" >/dev/null
	@echo "[install] mermaid's own parser (npm) for concept-map validation"
	@command -v npm >/dev/null || { echo "npm is missing: apt-get install nodejs npm" >&2; exit 1; }
	@npm ci --prefix scripts/mermaid-validate --no-audit --no-fund --loglevel=error >/dev/null
	@echo "[install] dashboard libraries (npm: mermaid, cytoscape, chart.js, dompurify; served locally, never a CDN)"
	@npm ci --prefix agent/server/dashboard/web --no-audit --no-fund --loglevel=error >/dev/null
	@touch $(STAMP)

# The dashboard's browser tests drive Debian's chromium through chromedriver (Selenium);
# no browser is ever downloaded. Installed with apt when missing (root, or sudo).
dashboard-browser:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  echo "[install] chromium + chromium-driver missing: installing Debian's packages"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq chromium chromium-driver >/dev/null \
	    || { echo "could not install chromium; install it with: apt-get install chromium chromium-driver" >&2; exit 1; }; \
	fi

services-up:
	@bash scripts/services.sh up

services-down:
	@bash scripts/services.sh down

services-status:
	@bash scripts/services.sh status

demo: install services-up
	@$(VENV)/bin/kag demo

# Three lanes at once (scripts/test-lanes.sh): the service tests, the tests that talk to a running
# server (attack suite, server, dashboard), and the unit and pure bench tests, which need no
# service; a final line per lane and the overall status. Each lane
# prints its slowest steps (--durations), so the suite's time budget (20 min) is watched.
test: install serve-prod-install services-up
	@PY=$(PY) bash scripts/test-lanes.sh

test-unit: install
	@$(PY) -m pytest tests/unit

test-integration: install serve-prod-install services-up
	@$(PY) -m pytest tests/integration

lint: install
	@$(VENV)/bin/ruff check agent graphs tools tests bench
	@$(VENV)/bin/ruff format --check --quiet agent graphs tools tests bench
	@$(VENV)/bin/lint-imports

# `kag serve` loads .env without overriding the shell, then runs `langgraph dev` (langgraph.json
# names no env file: the server would let the file override the shell's variables).
serve: install services-up
	@test -f .env || { cp .env.example .env; echo "[serve] created .env from .env.example (set KAG_AUTH_TOKENS in it)"; }
	@$(VENV)/bin/kag serve --no-browser --host 127.0.0.1 --port $(SERVE_PORT) $(SERVE_FLAGS)

bench: install services-up
	@$(PY) -m bench.checkpoint

# Production serving (docs/serving-production.md): stock langgraph-api on the MIT Postgres + Redis
# runtime langgraph-runtime-pg, N worker processes behind one port, runs queued in PostgreSQL
# (Debian's package, started on loopback into .services/postgres-5433). Its own venv, .venv-prod:
# the runtime pins an older langgraph-api than the development server's.
WORKERS ?= 2
SERVE_PROD_PORT ?= 2025
PROD_STAMP := .venv-prod/.installed

serve-prod-install: $(PROD_STAMP)

$(PROD_STAMP): pyproject.toml scripts/serve-prod.sh
	@bash scripts/serve-prod.sh install
	@touch $(PROD_STAMP)

serve-prod: install serve-prod-install services-up
	@test -f .env || { cp .env.example .env; echo "[serve-prod] created .env from .env.example (set KAG_AUTH_TOKENS in it)"; }
	@KAG_SERVE_PROD_PORT=$(SERVE_PROD_PORT) bash scripts/serve-prod.sh serve $(WORKERS)

bench-serving: install serve-prod-install services-up
	@$(PY) -m bench.serving --workers $(WORKERS)

# docs-screenshots: refresh docs/dashboard/*.png (needs the services and chromium); tests never write there.
docs-screenshots: install services-up
	bash scripts/dashboard-screenshots.sh

# clean: the venv and Python build artefacts only; learner data and the Neo4j launcher stay.
# clean-data: asks, then stops the services and deletes their data (.services) and the dev
# server's state (.langgraph_api).
# `make clean-data CONFIRM=yes` skips the question.
clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache .import_linter_cache
	find . \( -path ./.services -o -path ./scripts/mermaid-validate/node_modules \) -prune \
	  -o -name __pycache__ -type d -prune -exec rm -rf {} +

clean-data:
	@if [ "$(CONFIRM)" != yes ]; then \
	  read -r -p "Delete all learner data in .services/ and .langgraph_api/ (Neo4j, Redis, server threads)? [y/N] " answer; \
	  case "$$answer" in [yY]|[yY][eE][sS]) ;; *) echo "[clean-data] nothing deleted"; exit 0 ;; esac; \
	fi; \
	bash scripts/services.sh down; \
	bash scripts/serve-prod.sh pg-down; \
	rm -rf .services .langgraph_api; \
	echo "[clean-data] deleted .services and .langgraph_api"
