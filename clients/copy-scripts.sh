#!/usr/bin/env bash
# Copies the producer protocol's scripts, as the build assembled them, into the clients
# (docs/protocol.md). ProtocolScriptsTests fails while a copy differs from the build's.
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -q -pl delayqueue-core process-classes
from=delayqueue-core/target/classes/META-INF/delayqueue/protocol/v1
for to in clients/python/src/delayqueue/scripts/v1 clients/node/scripts/v1; do
  cp "$from"/*.lua "$from"/manifest.properties "$to"/
  echo "copied $(ls "$from" | tr '\n' ' ')into $to"
done
