#!/usr/bin/env bash
# KAG's production serving mode, without Docker (design § 10, docs/serving-production.md):
# the stock LangGraph server (langgraph-api) on the MIT Postgres + Redis runtime
# `langgraph-runtime-pg` (LANGGRAPH_RUNTIME_EDITION=pg), started by agent.server.production
# with N uvicorn worker processes behind one port. Runs are queued in PostgreSQL and
# claimed by the workers; a run whose worker dies is swept back to pending and retried
# by another. KAG's langgraph.json is used as it is: the same graphs, auth handler,
# custom routes (dashboard, kernel) and Redis checkpoint saver as `make serve`.
#
# Usage: scripts/serve-prod.sh install|pg-up|pg-down|pg-status|serve [WORKERS]
#   install   the serving venv (.venv-prod: langgraph-api pinned by langgraph-runtime-pg,
#             which is older than the dev server's, so it cannot share .venv) + Debian's PostgreSQL
#   pg-up     PostgreSQL from Debian's binaries: initdb into .services/postgres-PORT,
#             pg_ctl start, listening on 127.0.0.1 only, password auth; creates the database
#   serve     pg-up, Redis and Neo4j up, then N workers on 127.0.0.1 (foreground)
# Variables:
#   KAG_PG_PORT (5433)  KAG_PG_PASSWORD (kag-dev-password)  KAG_PG_DB (kag_serving)
#   KAG_REDIS_PORT (6379)  KAG_SERVICES_DIR (<repo>/.services)  KAG_SERVE_PROD_PORT (2025)
#   KAG_PROD_VENV (<repo>/.venv-prod)  N_JOBS_PER_WORKER (runs one worker executes at once)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SERVICES_DIR=${KAG_SERVICES_DIR:-$ROOT/.services}
PG_PORT=${KAG_PG_PORT:-5433}
PG_PASSWORD=${KAG_PG_PASSWORD:-kag-dev-password}
PG_DB=${KAG_PG_DB:-kag_serving}
PG_USER=kag
PG_HOME=$SERVICES_DIR/postgres-$PG_PORT
REDIS_PORT=${KAG_REDIS_PORT:-6379}
SERVE_PORT=${KAG_SERVE_PROD_PORT:-2025}
VENV=${KAG_PROD_VENV:-$ROOT/.venv-prod}
PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
# The runtime pins the langgraph-api it was written against; both move together.
RUNTIME_PIN="langgraph-runtime-pg==0.11.1.post1"

log() { printf '[serve-prod] %s\n' "$*"; }
die() { printf '[serve-prod] ERROR: %s\n' "$*" >&2; exit 1; }

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

pg_bindir() {  # Debian installs each major version under /usr/lib/postgresql/<major>/bin
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$dir" ] && [ -x "$dir/initdb" ] && echo "$dir"
}

ensure_postgres() {
  pg_bindir >/dev/null && return 0
  log "PostgreSQL missing: installing Debian's package"
  as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq postgresql >/dev/null \
    || die "could not install PostgreSQL; install it with: apt-get install postgresql"
}

# PostgreSQL refuses to run as root: as root, its files belong to Debian's `postgres` user.
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_ready() { "$(pg_bindir)/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; }

pg_init() {
  [ -f "$PG_HOME/data/PG_VERSION" ] && return 0
  local bin; bin=$(pg_bindir)
  mkdir -p "$PG_HOME"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$PG_HOME"
  local pwfile="$PG_HOME/.pw"
  as_pg bash -c "umask 077; printf '%s\n' \"\$1\" > \"\$2\"" _ "$PG_PASSWORD" "$pwfile"
  log "initdb into $PG_HOME/data"
  as_pg "$bin/initdb" -D "$PG_HOME/data" -U "$PG_USER" --pwfile="$pwfile" \
    --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 >"$PG_HOME/initdb.log"
  rm -f "$pwfile"
}

pg_up() {
  ensure_postgres
  if pg_ready; then log "postgres already up on 127.0.0.1:$PG_PORT"; return 0; fi
  pg_init
  local bin; bin=$(pg_bindir)
  # loopback only; the socket lives in the data directory, never /var/run
  as_pg "$bin/pg_ctl" -D "$PG_HOME/data" -l "$PG_HOME/postgres.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_HOME -c max_connections=200" start >/dev/null \
    || die "postgres did not start; see $PG_HOME/postgres.log"
  PGPASSWORD=$PG_PASSWORD "$bin/psql" -q -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = '$PG_DB'" | grep -q 1 \
    || PGPASSWORD=$PG_PASSWORD "$bin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" "$PG_DB"
  log "postgres up on 127.0.0.1:$PG_PORT (database $PG_DB)"
}

pg_down() {
  local bin; bin=$(pg_bindir) || { log "postgres not installed"; return 0; }
  [ -f "$PG_HOME/data/postmaster.pid" ] || { log "postgres not running"; return 0; }
  as_pg "$bin/pg_ctl" -D "$PG_HOME/data" -m fast -w stop >/dev/null && log "postgres stopped"
}

pg_status() { if pg_ready; then log "postgres up on 127.0.0.1:$PG_PORT"; else log "postgres down"; fi; }

install() {
  ensure_postgres
  [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip uv
  log "installing KAG and $RUNTIME_PIN into $VENV"
  # compileall: each worker imports KAG (torch, transformers) at start; with no .pyc
  # (PYTHONDONTWRITEBYTECODE, or a read-only venv) every start compiled them from source again
  "$VENV/bin/uv" pip install --python "$VENV/bin/python" -q -e "$ROOT" "$RUNTIME_PIN"
  "$VENV/bin/python" -m compileall -q -j 0 "$VENV/lib" >/dev/null || true
  # The MiniLM ONNX export, as `make install` makes it for .venv (a file inside the venv): without
  # it every worker encodes with torch, on the event loop, and a run's heartbeat can lapse
  log "MiniLM exported to ONNX once for $VENV (agent.models.onnx_export)"
  "$VENV/bin/python" -m agent.models.onnx_export \
    || log "WARNING: no checked ONNX export; the serving venv encodes with torch (slower)"
}

serve() {
  local workers=${1:-2}
  "$VENV/bin/python" -c 'import langgraph_runtime_pg' 2>/dev/null \
    || die "$VENV has no langgraph-runtime-pg; run: make serve-prod-install"
  pg_up
  bash "$ROOT/scripts/services.sh" up
  cd "$ROOT"
  export DATABASE_URI="postgresql://$PG_USER:$PG_PASSWORD@127.0.0.1:$PG_PORT/$PG_DB"
  # the runtime's queue wake-ups and run streams; KAG's checkpoints stay on KAG_REDIS_URL
  export REDIS_URI=${REDIS_URI:-redis://127.0.0.1:$REDIS_PORT/1}
  export LANGGRAPH_NO_VERSION_CHECK=true  # offline by design: no registry look-up at start
  log "$workers workers on 127.0.0.1:$SERVE_PORT"
  exec "$VENV/bin/python" -m agent.server.production --config "$ROOT/langgraph.json" \
    --host 127.0.0.1 --port "$SERVE_PORT" --workers "$workers" --jobs-per-worker "${N_JOBS_PER_WORKER:-10}"
}

case "${1:-}" in
  install) install ;;
  pg-up) pg_up ;;
  pg-down) pg_down ;;
  pg-status) pg_status ;;
  serve) shift; serve "$@" ;;
  *) die "usage: scripts/serve-prod.sh install|pg-up|pg-down|pg-status|serve [WORKERS]" ;;
esac
