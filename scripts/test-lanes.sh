#!/usr/bin/env bash
# `make test`: the whole suite as two pytest processes at once, one final line per lane.
#
#   services     tests/integration, tests/security and the bench tests that use a service
#                (tests/bench/conftest.py marks them `integration`): the real Neo4j, Redis,
#                langgraph dev, the production server, Chromium. Streams to this terminal.
#   no-services  tests/unit and the pure tests of tests/bench (scoring, reports, datasets):
#                they need no service, so they run beside the services lane, niced (the
#                services lane is the longer one), with KAG_NEO4J_URI and KAG_REDIS_URL
#                pointing at a closed port: a test there that reached for a service would
#                fail, never quietly use the shared ones. Its output is printed when it ends.
#
# Why it is safe to overlap: the no-services lane touches no shared service, and the tests
# that stop a server (outages, restarts) stop private ones of their own (tests/private_redis.py,
# tests/integration/private_neo4j.py), never the shared Neo4j or Redis.
# Extra arguments go to both pytest runs (say `-x` or `-k name`); with them, a lane they leave
# without a test (pytest's status 5) counts as passed. Exit status: 0 only when both lanes
# pass; otherwise the services lane's pytest status, else the no-services lane's.
set -u

PY=${PY:-.venv/bin/python}
CLOSED=${KAG_TEST_CLOSED_PORT:-9}  # the discard port: nothing listens on it here
logs=$(mktemp -d "${TMPDIR:-/tmp}/kag-test-lanes.XXXXXX")
free_pid=""

stop_free_lane() {
	if [ -n "$free_pid" ] && kill -0 "$free_pid" 2>/dev/null; then
		kill -TERM "$free_pid" 2>/dev/null
		wait "$free_pid" 2>/dev/null
	fi
}
trap 'stop_free_lane; exit 130' INT TERM

summary() {  # the last pytest summary line of a log ("=== 3 passed in 1.2s ==="), or what ended it
	local line
	line=$(grep -E '^=+ .*( in [0-9.]+s).* =+$' "$1" | tail -n 1)
	[ -n "$line" ] || line=$(tail -n 1 "$1")
	printf '%s' "$line" | sed -E 's/^=+ //; s/ =+$//'
}

started=$(date +%s)
echo "[test] lane no-services: tests/unit + the pure tests of tests/bench, in the background (log: $logs/no-services.log)"
KAG_NEO4J_URI="bolt://127.0.0.1:$CLOSED" KAG_REDIS_URL="redis://127.0.0.1:$CLOSED/0" \
	nice -n 10 "$PY" -m pytest tests/unit tests/bench -m "not integration" \
	-o cache_dir=.pytest_cache/no-services --durations=10 "$@" \
	>"$logs/no-services.log" 2>&1 &
free_pid=$!

echo "[test] lane services: tests/integration + tests/security + the bench tests that use a service"
"$PY" -m pytest tests/integration tests/security tests/bench -m "not bench or integration" \
	--durations=30 "$@" 2>&1 | tee "$logs/services.log"
services_rc=${PIPESTATUS[0]}
services_done=$(date +%s)

wait "$free_pid"
free_rc=$?
free_pid=""
ended=$(date +%s)
if [ "$#" -gt 0 ]; then  # pytest's 5: the arguments selected no test in that lane
	[ "$services_rc" -ne 5 ] || services_rc=0
	[ "$free_rc" -ne 5 ] || free_rc=0
fi

echo
echo "================================ lane no-services (log) ================================"
cat "$logs/no-services.log"
echo
echo "[test] lane no-services: $(summary "$logs/no-services.log") (rc $free_rc)"
echo "[test] lane services:    $(summary "$logs/services.log") (rc $services_rc, $((services_done - started)) s)"
rc=0
[ "$services_rc" -eq 0 ] || rc=$services_rc
[ "$rc" -ne 0 ] || [ "$free_rc" -eq 0 ] || rc=$free_rc
echo "[test] overall: rc $rc in $((ended - started)) s"
exit "$rc"
