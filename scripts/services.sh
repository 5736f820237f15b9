#!/usr/bin/env bash
# Start, stop and inspect KAG's real services on loopback, without Docker:
#   Neo4j 5.26 LTS Community (embedded launcher built from Maven Central)
#   Redis (Debian's redis-server, AOF on)
# Usage: scripts/services.sh up|down|status [neo4j|redis]
#        scripts/services.sh cluster-up|cluster-down|cluster-status   (a 3-master Redis Cluster)
# A service is "up" only when its protocol answers: Redis a PONG to `redis-cli ping`
# (`up` waits while Redis replies LOADING, i.e. replays its AOF), Neo4j a Bolt handshake
# that agrees on a version. A port held by anything else is reported, never used.
# Variables (same names as docker-compose.yml):
#   KAG_NEO4J_PORT (7687)  KAG_NEO4J_PASSWORD (kag-dev-password)
#   KAG_REDIS_PORT (6379)  KAG_SERVICES_DIR (<repo>/.services)
#   KAG_NEO4J_HEAP (1g)
#   KAG_REDIS_CLUSTER_PORT (7000: the cluster's masters listen on it and the next two ports)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SERVICES_DIR=${KAG_SERVICES_DIR:-$ROOT/.services}
NEO4J_PORT=${KAG_NEO4J_PORT:-7687}
NEO4J_PASSWORD=${KAG_NEO4J_PASSWORD:-kag-dev-password}
NEO4J_HEAP=${KAG_NEO4J_HEAP:-1g}
REDIS_PORT=${KAG_REDIS_PORT:-6379}
CLUSTER_PORT=${KAG_REDIS_CLUSTER_PORT:-7000}
LAUNCHER=$ROOT/scripts/neo4j-launcher
NEO4J_HOME=$SERVICES_DIR/neo4j-$NEO4J_PORT
REDIS_HOME=$SERVICES_DIR/redis-$REDIS_PORT

log() { printf '[services] %s\n' "$*"; }
die() { printf '[services] ERROR: %s\n' "$*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && exec 3>&- ; }
pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# ---------- protocol checks: a port is "up" only if the right protocol answers ----------
# redis_reply PORT: the first line Redis answers to PING. redis-cli exits 0 even on an
# error reply (LOADING, NOAUTH), so callers test the text, never the exit code.
redis_reply() {
  if command -v redis-cli >/dev/null 2>&1; then
    timeout 3 redis-cli -h 127.0.0.1 -p "$1" ping 2>&1 | head -n 1
  else
    timeout 3 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$0" || exit 1; printf "PING\r\n" >&3; head -n 1 <&3' "$1" 2>/dev/null \
      | tr -d '\r' | sed 's/^[+-]//'
  fi
}

# redis_state PORT: up | loading | down | foreign
redis_state() {
  port_open "$1" || { echo down; return; }
  local reply; reply=$(redis_reply "$1")
  case "$reply" in
    PONG) echo up ;;
    *LOADING*) echo loading ;;
    *NOAUTH*|*WRONGPASS*) echo up ;;  # Redis with a password: still Redis
    *"Connection refused"*) echo down ;;
    *) echo foreign ;;
  esac
}

# bolt_version PORT: the 4 version bytes a Bolt server agrees on (hex), empty if none.
# Sends the magic 60 60 B0 17 and four proposals (5.8..5.0, 4.4, 4.0, 3).
bolt_version() {
  timeout 3 bash -c '
    exec 3<>"/dev/tcp/127.0.0.1/$0" || exit 1
    printf "\x60\x60\xb0\x17\x00\x08\x08\x05\x00\x00\x04\x04\x00\x00\x00\x04\x00\x00\x00\x03" >&3
    head -c 4 <&3 | od -An -tx1
  ' "$1" 2>/dev/null | tr -d ' \n'
}

# bolt_state PORT: up | down | foreign (listening, but no Bolt version agreed)
bolt_state() {
  port_open "$1" || { echo down; return; }
  local version; version=$(bolt_version "$1")
  # a version we proposed: 00 00 <minor> <major 3-5>; anything else (HTTP, zeros) is not Bolt
  if [[ $version =~ ^0000[0-9a-f]{2}0[345]$ ]]; then echo up; else echo foreign; fi
}

foreign() { die "port $1 is taken by something that is not $2; stop it or set $3 to a free port"; }

# ---------- Redis ----------
ensure_redis_binary() {
  command -v redis-server >/dev/null 2>&1 && return 0
  log "redis-server missing: installing Debian's package"
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >/dev/null \
    || die "could not install redis-server; install it with: apt-get install redis-server"
}

redis_wait() {  # wait while Redis (pid file $1, if given) starts or loads its AOF; up to 10 minutes
  local pidf=$1 said="" i
  for i in $(seq 1 6000); do
    case "$(redis_state "$REDIS_PORT")" in
      up) return 0 ;;
      loading) [ -n "$said" ] || { log "redis on port $REDIS_PORT is loading its AOF; waiting"; said=1; } ;;
      foreign) foreign "$REDIS_PORT" Redis KAG_REDIS_PORT ;;
    esac
    # the daemon writes its pid file just after it forks: give it 5 s, then it must stay alive
    if [ -n "$pidf" ] && { [ -f "$pidf" ] || [ "$i" -gt 50 ]; } && ! pid_alive "$pidf"; then return 1; fi
    sleep 0.1
  done
  return 1
}

redis_up() {
  local pidf=$REDIS_HOME/redis.pid state
  state=$(redis_state "$REDIS_PORT")
  case "$state" in
    foreign) foreign "$REDIS_PORT" Redis KAG_REDIS_PORT ;;
    up|loading)
      if [ "$state" = loading ]; then redis_wait "" || die "redis on port $REDIS_PORT did not finish loading"; fi
      if pid_alive "$pidf"; then log "redis already up on 127.0.0.1:$REDIS_PORT"
      else log "port $REDIS_PORT already serves Redis started elsewhere (docker compose?); using it"; fi
      return 0 ;;
  esac
  ensure_redis_binary
  mkdir -p "$REDIS_HOME"
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$REDIS_HOME" \
    --appendonly yes --appendfsync everysec --daemonize yes \
    --pidfile "$pidf" --logfile "$REDIS_HOME/redis.log" --save "" --protected-mode yes
  sleep 0.1
  redis_wait "$pidf" && { log "redis up on 127.0.0.1:$REDIS_PORT"; return 0; }
  die "redis did not answer PING on port $REDIS_PORT; see $REDIS_HOME/redis.log"
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

# ---------- Redis Cluster: 3 masters on loopback, no replicas (conformance tests only) ----------
cluster_ports() { echo "$CLUSTER_PORT" "$((CLUSTER_PORT + 1))" "$((CLUSTER_PORT + 2))"; }

cluster_state() {  # ok | fail | down: ok once every master's CLUSTER INFO says cluster_state:ok
  port_open "$CLUSTER_PORT" || { echo down; return; }
  local port info
  for port in $(cluster_ports); do
    info=$(timeout 3 redis-cli -p "$port" cluster info 2>&1 | tr -d '\r')
    case "$info" in *cluster_state:ok*) ;; *) echo fail; return ;; esac
  done
  echo ok
}

cluster_up() {
  ensure_redis_binary
  local port dir
  for port in $(cluster_ports); do
    dir=$SERVICES_DIR/redis-cluster-$port
    case "$(redis_state "$port")" in
      up) continue ;;
      loading) REDIS_PORT=$port redis_wait "" || die "cluster node on port $port did not finish loading"; continue ;;
      foreign) foreign "$port" "a Redis cluster node" KAG_REDIS_CLUSTER_PORT ;;
    esac
    mkdir -p "$dir"
    redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --cluster-enabled yes \
      --cluster-config-file nodes.conf --cluster-node-timeout 5000 --appendonly yes \
      --appendfsync everysec --save "" --daemonize yes --pidfile "$dir/redis.pid" \
      --logfile "$dir/redis.log" --protected-mode yes
    REDIS_PORT=$port redis_wait "$dir/redis.pid" || die "cluster node on port $port did not start; see $dir/redis.log"
  done
  if [ "$(cluster_state)" != ok ]; then
    local nodes=() p
    for p in $(cluster_ports); do nodes+=("127.0.0.1:$p"); done
    # slots unassigned: create the cluster (a restart keeps nodes.conf and needs no create)
    if timeout 3 redis-cli -p "$CLUSTER_PORT" cluster info | grep -q 'cluster_slots_assigned:0'; then
      redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >/dev/null \
        || die "redis-cli --cluster create failed"
    fi
  fi
  for _ in $(seq 1 150); do [ "$(cluster_state)" = ok ] && break; sleep 0.2; done
  [ "$(cluster_state)" = ok ] || die "the cluster on ports $(cluster_ports) did not reach cluster_state:ok"
  log "redis cluster up: 3 masters on 127.0.0.1 ports $(cluster_ports) (redis://127.0.0.1:$CLUSTER_PORT)"
}

cluster_down() {
  local port pidf pid
  for port in $(cluster_ports); do
    pidf=$SERVICES_DIR/redis-cluster-$port/redis.pid
    if pid_alive "$pidf"; then
      pid=$(cat "$pidf"); kill "$pid"
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      log "redis cluster node on port $port stopped (pid $pid)"
    fi
    rm -f "$pidf"
  done
}

# ---------- Neo4j ----------
build_launcher() {
  local class=$LAUNCHER/target/classes/dev/kag/Neo4jLauncher.class
  if [ -f "$class" ] && [ -d "$LAUNCHER/target/lib" ] && [ "$class" -nt "$LAUNCHER/pom.xml" ] \
     && [ "$class" -nt "$LAUNCHER/src/main/java/dev/kag/Neo4jLauncher.java" ]; then return 0; fi
  command -v mvn >/dev/null 2>&1 || die "mvn is missing; install it with: apt-get install maven"
  command -v java >/dev/null 2>&1 || die "java 17 is missing; install it with: apt-get install openjdk-17-jre-headless"
  log "building the Neo4j 5.26 launcher from Maven Central (first run only)"
  mkdir -p "$SERVICES_DIR"
  local build_log=$SERVICES_DIR/neo4j-launcher-build.log
  # -B and style.color=never: no ANSI colour codes; sed strips any a plugin still prints
  if ! (cd "$LAUNCHER" && mvn -B -q -Dstyle.color=never package -DskipTests 2>&1) \
    | sed -u 's/\x1b\[[0-9;]*[A-Za-z]//g' | tee "$build_log"; then
    die "maven build of the Neo4j launcher failed; see $build_log"
  fi
}

neo4j_up() {
  local pidf=$NEO4J_HOME/neo4j.pid
  case "$(bolt_state "$NEO4J_PORT")" in
    foreign) foreign "$NEO4J_PORT" "Bolt (Neo4j)" KAG_NEO4J_PORT ;;
    up)
      if pid_alive "$pidf"; then log "neo4j already up on bolt://127.0.0.1:$NEO4J_PORT"
      else log "port $NEO4J_PORT already serves Bolt started elsewhere (docker compose?); using it"; fi
      return 0 ;;
  esac
  build_launcher
  mkdir -p "$NEO4J_HOME"
  : > "$NEO4J_HOME/neo4j.log"
  nohup java -Xms256m -Xmx"$NEO4J_HEAP" -XX:+UseG1GC -Dfile.encoding=UTF-8 \
    -cp "$LAUNCHER/target/classes:$LAUNCHER/target/lib/*" dev.kag.Neo4jLauncher \
    "$NEO4J_HOME/data" "$NEO4J_PORT" "$NEO4J_PASSWORD" >>"$NEO4J_HOME/neo4j.log" 2>&1 &
  echo $! > "$pidf"
  for _ in $(seq 1 240); do
    if grep -q KAG_NEO4J_READY "$NEO4J_HOME/neo4j.log" && [ "$(bolt_state "$NEO4J_PORT")" = up ]; then
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

# status_line NAME STATE PIDFILE URL PORT PROTOCOL
status_line() {
  local where=""
  case "$2" in
    up) pid_alive "$3" || where=" (started elsewhere)"; log "$1: up  $4$where" ;;
    loading) log "$1: loading its data (AOF) on port $5; retry in a moment" ;;
    foreign) log "$1: port $5 is taken by something that is not $6" ;;
    *) log "$1: down (start: scripts/services.sh up)" ;;
  esac
}

status() {
  local only=$1
  [ "$only" = redis ] || status_line neo4j "$(bolt_state "$NEO4J_PORT")" "$NEO4J_HOME/neo4j.pid" \
    "bolt://127.0.0.1:$NEO4J_PORT" "$NEO4J_PORT" "Bolt"
  [ "$only" = neo4j ] || status_line redis "$(redis_state "$REDIS_PORT")" "$REDIS_HOME/redis.pid" \
    "redis://127.0.0.1:$REDIS_PORT" "$REDIS_PORT" "Redis"
}

cmd=${1:-status}; only=${2:-all}
case "$cmd" in
  up)   [ "$only" = redis ] || neo4j_up; [ "$only" = neo4j ] || redis_up ;;
  down) [ "$only" = redis ] || neo4j_down; [ "$only" = neo4j ] || redis_down ;;
  status) status "$only" ;;
  cluster-up) cluster_up ;;
  cluster-down) cluster_down ;;
  cluster-status) log "redis cluster on port $CLUSTER_PORT: $(cluster_state)" ;;
  *) die "usage: scripts/services.sh up|down|status [neo4j|redis] | cluster-up|cluster-down|cluster-status" ;;
esac
