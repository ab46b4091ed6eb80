#!/bin/sh
# Stands in for distbench-worker in the CLI tests, so `distbench run` can be
# tested end to end without LibTorch. It checks the wiring every rank gets
# and behaves as the FAKE_WORKER_* variables say:
#   FAKE_WORKER_MARK_DIR   write rank-$RANK.pid there (proves it started;
#                          rank-$RANK.pid.partial until it is whole)
#   FAKE_WORKER_SLEEP      sleep this long before finishing
#   FAKE_WORKER_FAIL_RANK  this rank exits 7
config=""
report=""
dump=""
while [ $# -gt 0 ]; do
  case "$1" in
    --config) config="$2"; shift 2 ;;
    --report) report="$2"; shift 2 ;;
    --dump-state) dump="$2"; shift 2 ;;
    *) echo "unexpected argument $1" >&2; exit 64 ;;
  esac
done
if [ -n "$FAKE_WORKER_MARK_DIR" ]; then
  # Written under another name and renamed (atomic within a directory), so a
  # test polling the directory sees a whole pid file or none, never an empty one.
  mark="$FAKE_WORKER_MARK_DIR/rank-$RANK.pid"
  echo $$ > "$mark.partial" && mv "$mark.partial" "$mark"
fi
echo "rank=$RANK role=$DISTBENCH_ROLE master=$MASTER_ADDR:$MASTER_PORT metrics=$DISTBENCH_METRICS_PORT linger=$DISTBENCH_METRICS_LINGER_SECONDS progress=$DISTBENCH_PROGRESS dump=$dump" >&2
if [ "$config" != "$DISTBENCH_CONFIG" ] || [ ! -r "$config" ]; then
  echo "config '$config' / '$DISTBENCH_CONFIG' is not readable" >&2
  exit 5
fi
echo "stdout of rank $RANK"
echo "@@distbench-progress epoch=1 total=1" >&2
if [ "$RANK" = "$FAKE_WORKER_FAIL_RANK" ]; then
  echo "rank $RANK giving up" >&2
  exit 7
fi
if [ -n "$FAKE_WORKER_SLEEP" ]; then sleep "$FAKE_WORKER_SLEEP"; fi
if [ "$DISTBENCH_ROLE" = master ]; then
  echo "All: p50: 0.100s"
  if [ -n "$report" ]; then echo '{"schemaVersion": 1}' > "$report"; fi
fi
exit 0
