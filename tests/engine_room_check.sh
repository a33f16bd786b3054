#!/usr/bin/env bash
# SimGrid in one room: no file outside sim/engine/ includes a SimGrid header (simgrid/..., xbt/...), but the engine
# room's own test of its kernel-layer checks (tests/sim/test_event_loop.cpp). Prints every offending include.
set -euo pipefail
cd "${1:?usage: engine_room_check.sh SOURCE_DIR}"
offenders=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](simgrid|xbt)/' \
              app bench common experiments fuzz kernels models sim traces tests \
            | grep -v '^sim/engine/' | grep -v '^tests/sim/test_event_loop.cpp:' || true)
if [ -n "$offenders" ]; then
  echo "SimGrid headers included outside sim/engine/:"
  echo "$offenders"
  exit 1
fi
echo "SimGrid headers: sim/engine/ only"
