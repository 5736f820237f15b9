#!/usr/bin/env bash
# Start, stop and inspect KAG's real services on loopback, without Docker:
#   Neo4j 5.26 LTS Community (embedded launcher built from Maven Central)
#   Redis (Debian's redis-server, AOF on)
# Usage: scripts/services.sh up|down|status [neo4j|redis]
# Variables (same names as docker-compose.yml):
#   KAG_NEO4J_PORT (7687)  KAG_NEO4J_PASSWORD (kag-dev-password)
#   KAG_REDIS_PORT (6379)  KAG_SERVICES_DIR (<repo>/.services)
#   KAG_NEO4J_HEAP (1g)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SERVICES_DIR=${KAG_SERVICES_DIR:-$ROOT/.services}
NEO4J_PORT=${KAG_NEO4J_PORT:-7687}
NEO4J_PASSWORD=${KAG_NEO4J_PASSWORD:-kag-dev-password}
NEO4J_HEAP=${KAG_NEO4J_HEAP:-1g}
REDIS_PORT=${KAG_REDIS_PORT:-6379}
LAUNCHER=$ROOT/scripts/neo4j-launcher
NEO4J_HOME=$SERVICES_DIR/neo4j-$NEO4J_PORT
REDIS_HOME=$SERVICES_DIR/redis-$REDIS_PORT

log() { printf '[services] %s\n' "$*"; }
die() { printf '[services] ERROR: %s\n' "$*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && exec 3>&- ; }
pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# ---------- Redis ----------
ensure_redis_binary() {
  command -v redis-server >/dev/null 2>&1 && return 0
  log "redis-server missing: installing Debian's package"
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >/dev/null \
    || die "could not install redis-server; install it with: apt-get install redis-server"
}

redis_up() {
  local pidf=$REDIS_HOME/redis.pid
  if pid_alive "$pidf" && port_open "$REDIS_PORT"; then log "redis already up on 127.0.0.1:$REDIS_PORT"; return 0; fi
  if port_open "$REDIS_PORT"; then log "port $REDIS_PORT already serves Redis started elsewhere (docker compose?); using it"; return 0; fi
  ensure_redis_binary
  mkdir -p "$REDIS_HOME"
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$REDIS_HOME" \
    --appendonly yes --appendfsync everysec --daemonize yes \
    --pidfile "$pidf" --logfile "$REDIS_HOME/redis.log" --save "" --protected-mode yes
  for _ in $(seq 1 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && { log "redis up on 127.0.0.1:$REDIS_PORT"; return 0; }; sleep 0.1; done
  die "redis did not answer on port $REDIS_PORT; see $REDIS_HOME/redis.log"
}

redis_down() {
  local pidf=$REDIS_HOME/redis.pid
  if pid_alive "$pidf"; then
    local pid; pid=$(cat "$pidf"); kill "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    log "redis stopped (pid $pid)"
  else log "redis not running"; fi
  rm -f "$pidf"
}

# ---------- Neo4j ----------
build_launcher() {
  local class=$LAUNCHER/target/classes/dev/kag/Neo4jLauncher.class
  if [ -f "$class" ] && [ -d "$LAUNCHER/target/lib" ] && [ "$class" -nt "$LAUNCHER/pom.xml" ] \
     && [ "$class" -nt "$LAUNCHER/src/main/java/dev/kag/Neo4jLauncher.java" ]; then return 0; fi
  command -v mvn >/dev/null 2>&1 || die "mvn is missing; install it with: apt-get install maven"
  command -v java >/dev/null 2>&1 || die "java 17 is missing; install it with: apt-get install openjdk-17-jre-headless"
  log "building the Neo4j 5.26 launcher from Maven Central (first run only)"
  (cd "$LAUNCHER" && mvn -q -B package -DskipTests) || die "maven build of the Neo4j launcher failed"
}

neo4j_up() {
  local pidf=$NEO4J_HOME/neo4j.pid
  if pid_alive "$pidf" && port_open "$NEO4J_PORT"; then log "neo4j already up on bolt://127.0.0.1:$NEO4J_PORT"; return 0; fi
  if port_open "$NEO4J_PORT"; then log "port $NEO4J_PORT already serves Bolt started elsewhere (docker compose?); using it"; return 0; fi
  build_launcher
  mkdir -p "$NEO4J_HOME"
  : > "$NEO4J_HOME/neo4j.log"
  nohup java -Xms256m -Xmx"$NEO4J_HEAP" -XX:+UseG1GC -Dfile.encoding=UTF-8 \
    -cp "$LAUNCHER/target/classes:$LAUNCHER/target/lib/*" dev.kag.Neo4jLauncher \
    "$NEO4J_HOME/data" "$NEO4J_PORT" "$NEO4J_PASSWORD" >>"$NEO4J_HOME/neo4j.log" 2>&1 &
  echo $! > "$pidf"
  for _ in $(seq 1 240); do
    if grep -q KAG_NEO4J_READY "$NEO4J_HOME/neo4j.log" && port_open "$NEO4J_PORT"; then
      log "neo4j up on bolt://127.0.0.1:$NEO4J_PORT (pid $(cat "$pidf"))"; return 0; fi
    pid_alive "$pidf" || { tail -20 "$NEO4J_HOME/neo4j.log" >&2; die "neo4j exited during start"; }
    sleep 0.5
  done
  die "neo4j did not answer Bolt on port $NEO4J_PORT within 120 s; see $NEO4J_HOME/neo4j.log"
}

neo4j_down() {
  local pidf=$NEO4J_HOME/neo4j.pid
  if pid_alive "$pidf"; then
    local pid; pid=$(cat "$pidf"); kill "$pid"
    for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { log "neo4j slow to stop; sending KILL"; kill -9 "$pid"; }
    log "neo4j stopped (pid $pid)"
  else log "neo4j not running"; fi
  rm -f "$pidf"
}

status() {
  if pid_alive "$NEO4J_HOME/neo4j.pid" && port_open "$NEO4J_PORT"; then log "neo4j: up  bolt://127.0.0.1:$NEO4J_PORT"; else log "neo4j: down (start: scripts/services.sh up)"; fi
  if pid_alive "$REDIS_HOME/redis.pid" && port_open "$REDIS_PORT"; then log "redis: up  redis://127.0.0.1:$REDIS_PORT"; else log "redis: down (start: scripts/services.sh up)"; fi
}

cmd=${1:-status}; only=${2:-all}
case "$cmd" in
  up)   [ "$only" = redis ] || neo4j_up; [ "$only" = neo4j ] || redis_up ;;
  down) [ "$only" = redis ] || neo4j_down; [ "$only" = neo4j ] || redis_down ;;
  status) status ;;
  *) die "usage: scripts/services.sh up|down|status [neo4j|redis]" ;;
esac
