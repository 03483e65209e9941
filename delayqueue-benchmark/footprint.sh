#!/usr/bin/env bash
# Runs the footprint scenario (docs/benchmarks.md, "Footprint"), each shape against a fresh
# redis-server of its own on a free port (never 6379), RUNS times. The JSON lines go to
# OUT/footprint-RUN.json, the tables and logs to OUT/footprint-RUN.err.
#   delayqueue-benchmark/footprint.sh [JAR] [OUT] [RUNS] [SHAPES] [SECONDS]
# e.g. delayqueue-benchmark/footprint.sh delayqueue-benchmark/target/delayqueue-benchmark.jar /tmp/fp 2
set -euo pipefail
JAR=${1:-delayqueue-benchmark/target/delayqueue-benchmark.jar}
OUT=${2:-footprint-runs}
RUNS=${3:-1}
SHAPES=${4:-1x1x1x1,10x1x1x1,50x1x1x1,200x1x1x1,1x128x1x1,10x16x2x3}
SECONDS_IDLE=${5:-30}
mkdir -p "$OUT"
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
for run in $(seq 1 "$RUNS"); do
  for shape in ${SHAPES//,/ }; do
    port=$(free_port)
    redis-server --port "$port" --save "" --appendonly no --daemonize yes --logfile "$OUT/redis-$port.log"
    until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done
    java -jar "$JAR" --redis "redis://127.0.0.1:$port" --scenario footprint --shapes "$shape" \
      --seconds "$SECONDS_IDLE" >> "$OUT/footprint-$run.json" 2>> "$OUT/footprint-$run.err" || true
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  done
done
