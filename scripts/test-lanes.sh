#!/usr/bin/env bash
# `make test`: the whole suite as three pytest processes at once, one final line per lane.
#
#   services     tests/integration (but its server and dashboard folders) and the bench tests
#                that use a service (tests/bench/conftest.py marks them `integration`): the real
#                Neo4j and Redis, private servers for the outage tests, Chromium-free. Streams
#                to this terminal.
#   servers      tests/security, tests/integration/server, tests/integration/dashboard: the
#                tests that talk to a running `langgraph dev` or production server (they share
#                one of each per process, so they stay together) and Chromium. Its output is
#                printed when it ends.
#   no-services  tests/unit and the pure tests of tests/bench (scoring, reports, datasets):
#                niced, with KAG_NEO4J_URI and KAG_REDIS_URL pointing at a closed port: a test
#                there that reached for a service would fail, never quietly use the shared ones.
#
# Why it is safe to overlap: every test writes under learners and key prefixes of its own and
# the end-of-session sweep erases only its own process's learners (tests/sweep.py); the tests
# that stop a server (outages, restarts) stop private ones (tests/private_redis.py,
# tests/integration/private_neo4j.py), never the shared Neo4j or Redis; servers pick free
# ports. Why three: the suite mostly waits (server and JVM starts, retries, subprocesses), so
# one process used about 60% of one core of two.
# Extra arguments go to every pytest run (say `-x` or `-k name`); with them, a lane they leave
# without a test (pytest's status 5) counts as passed. Exit status: 0 only when every lane
# passes; otherwise the first failing lane's pytest status (services, servers, no-services).
set -u

PY=${PY:-.venv/bin/python}
CLOSED=${KAG_TEST_CLOSED_PORT:-9}  # the discard port: nothing listens on it here
logs=$(mktemp -d "${TMPDIR:-/tmp}/kag-test-lanes.XXXXXX")
background=()

stop_background() {
	local pid
	for pid in "${background[@]}"; do
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
		fi
	done
}
trap 'stop_background; exit 130' INT TERM

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
background+=("$free_pid")

echo "[test] lane servers: tests/security + tests/integration/server + tests/integration/dashboard, in the background (log: $logs/servers.log)"
(
	"$PY" -m pytest tests/security tests/integration/server tests/integration/dashboard \
		-o cache_dir=.pytest_cache/servers --durations=15 "$@" >"$logs/servers.log" 2>&1
	lane_rc=$?
	date +%s >"$logs/servers.end"  # when it ended, which may be before the services lane
	exit "$lane_rc"
) &
servers_pid=$!
background+=("$servers_pid")

echo "[test] lane services: tests/integration (but server, dashboard) + the bench tests that use a service"
"$PY" -m pytest tests/integration tests/bench -m "not bench or integration" \
	--ignore=tests/integration/server --ignore=tests/integration/dashboard \
	--durations=30 "$@" 2>&1 | tee "$logs/services.log"
services_rc=${PIPESTATUS[0]}
services_done=$(date +%s)

wait "$servers_pid"
servers_rc=$?
servers_done=$(cat "$logs/servers.end" 2>/dev/null || date +%s)
wait "$free_pid"
free_rc=$?
background=()
ended=$(date +%s)
if [ "$#" -gt 0 ]; then  # pytest's 5: the arguments selected no test in that lane
	[ "$services_rc" -ne 5 ] || services_rc=0
	[ "$servers_rc" -ne 5 ] || servers_rc=0
	[ "$free_rc" -ne 5 ] || free_rc=0
fi

for lane in servers no-services; do
	echo
	echo "================================ lane $lane (log) ================================"
	cat "$logs/$lane.log"
done
echo
echo "[test] lane no-services: $(summary "$logs/no-services.log") (rc $free_rc)"
echo "[test] lane servers:     $(summary "$logs/servers.log") (rc $servers_rc, $((servers_done - started)) s)"
echo "[test] lane services:    $(summary "$logs/services.log") (rc $services_rc, $((services_done - started)) s)"
rc=0
for lane_rc in "$services_rc" "$servers_rc" "$free_rc"; do
	[ "$rc" -ne 0 ] || rc=$lane_rc
done
echo "[test] overall: rc $rc in $((ended - started)) s"
exit "$rc"
