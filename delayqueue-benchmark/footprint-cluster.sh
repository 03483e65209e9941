#!/usr/bin/env bash
# The footprint scenario on a fresh local 3-master Redis Cluster (ports free, never 6379).
#   footprint-cluster.sh JAR OUT [RUNS] [SHAPES] [SECONDS]
set -euo pipefail
JAR=$1; OUT=$2; RUNS=${3:-1}; SHAPES=${4:-10x16x1x3}; SECONDS_IDLE=${5:-30}
mkdir -p "$OUT"
# a cluster's bus listens on the port + 10000: ports above 55535 are refused
free_port() { python3 -c '
import random, socket
while True:
    p = random.randint(20000, 55000); s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); s.close()
        b = socket.socket(); b.bind(("127.0.0.1", p + 10000)); b.close(); print(p); break
    except OSError:
        s.close()'; }
for run in $(seq 1 "$RUNS"); do
  ports=(); dir=$(mktemp -d)
  for i in 1 2 3; do
    p=$(free_port); ports+=("$p")
    (cd "$dir" && redis-server --port "$p" --cluster-enabled yes --cluster-config-file "nodes-$p.conf" \
      --save "" --appendonly no --daemonize yes --logfile "$dir/redis-$p.log")
  done
  for p in "${ports[@]}"; do
    for t in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done
    redis-cli -p "$p" ping >/dev/null || { echo "redis-server on $p did not start (see $dir)" >&2; exit 1; }
  done
  redis-cli --cluster create "127.0.0.1:${ports[0]}" "127.0.0.1:${ports[1]}" "127.0.0.1:${ports[2]}" \
    --cluster-replicas 0 --cluster-yes > "$dir/create.log"
  until redis-cli -p "${ports[0]}" cluster info | grep -q 'cluster_state:ok'; do sleep 0.2; done
  sleep 1
  nodes="127.0.0.1:${ports[0]},127.0.0.1:${ports[1]},127.0.0.1:${ports[2]}"
  java -jar "$JAR" --cluster "$nodes" --scenario footprint --shapes "$SHAPES" --seconds "$SECONDS_IDLE" \
    >> "$OUT/footprint-cluster-$run.json" 2>> "$OUT/footprint-cluster-$run.err" || true
  for p in "${ports[@]}"; do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true; done
  rm -rf "$dir"
done
