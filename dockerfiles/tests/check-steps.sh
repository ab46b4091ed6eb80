# Sourced by scripts/check-libtorch2.sh and scripts/check-cuda-build.sh: one
# run at a time per cache directory, and each step timed for the summary
# they print at the end.
#
#   hold_lock FILE     waits for, then holds until exit, an flock on FILE
#                      (ctest and a developer may both start a check)
#   timed NAME CMD...  runs CMD, records "NAME  SECONDS  ok|FAILED (exit N)"
#                      in the array `timings`, and returns CMD's status
#   t_all              when the check started (date +%s)

hold_lock() {
  exec 9>"$1"
  if ! flock -n 9; then
    echo "another run holds $1; waiting"
    flock 9
  fi
}

timings=()
t_all=$(date +%s)
timed() {
  local name=$1 t0 rc=0
  shift
  t0=$(date +%s)
  "$@" || rc=$?
  timings+=("$(printf '%-40s %4ss  %s' "$name" "$(($(date +%s) - t0))" \
    "$( ((rc == 0)) && echo ok || echo "FAILED (exit $rc)")")")
  return $rc
}
