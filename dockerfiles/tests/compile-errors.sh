# shellcheck shell=bash disable=SC2154
# Sourced by scripts/check-libtorch2.sh and scripts/check-cuda-build.sh:
#
#   write_compile_errors LOG OUT TITLE
#
# writes to OUT every distinct compiler or linker error of the build log LOG
# (each once, in the order met, with the source line GCC prints under it,
# paths made relative to the checkout, which the containers mount or copy at
# /src), under a header naming TITLE, the time, the commit and the log;
# prints how many and in how many files. With no error in LOG, OUT says so.
# Returns 0 when LOG has no error, 1 otherwise.
compile_error_pattern='(: error:|: fatal error:|undefined reference to|ld returned [0-9]+ exit status)'

write_compile_errors() {
  local log=$1 out=$2 title=$3 n files
  mkdir -p "$(dirname "$out")"
  {
    echo "# $title"
    echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), checkout $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?') plus its uncommitted changes"
    echo "# full build log: $log"
  } >"$out"
  if ! grep -qE "$compile_error_pattern" "$log" 2>/dev/null; then
    echo "# no compile or link errors" >>"$out"
    return 0
  fi
  # Paths: /src/... in the compiler's own messages; ccache (CCACHE_BASEDIR=/src)
  # makes the ones it passes on relative to the build directory, ../../src/...
  # After each new error: its source lines and the compiler's notes (the
  # candidates, the instantiation chain); before it, the function it is in.
  sed -E 's#(^|[ (])(/src/|(\.\./)+src/)#\1#g' "$log" | awk -v pat="$compile_error_pattern" '
    $0 ~ pat {
      if (seen[$0]++) { follow = 0; next }
      print ""; if (where != "") print where; print; follow = 1; where = ""; next
    }
    / In (member |static member |lambda |constructor |destructor )?function|: In instantiation of|: In (static )?member function/ { where = $0; follow = 0; next }
    follow && (/^ *[0-9]* *\|/ || /: note: / || /^ *(In file included from|from |required from)/ || /: +required from /) { print; next }
    { follow = 0; if ($0 !~ /^(In file included|  +from )/) where = "" }
  ' >>"$out"
  n=$(grep -cE "$compile_error_pattern" "$out")
  files=$(grep -E "$compile_error_pattern" "$out" | grep -oE '^[^ :]+\.(cpp|cc|cu|h|hpp|cuh):' | sort -u | wc -l)
  echo "$n distinct errors in $files source files: $out"
  return 1
}

#   append_test_failures CTEST_LOG OUT
#
# appends to OUT the output of every test that failed in CTEST_LOG (ctest
# --output-on-failure), paths made relative to the checkout. Returns 1 when
# one failed.
append_test_failures() {
  local log=$1 out=$2
  grep -qE '\*\*\*(Failed|Timeout|Exception)|  Not Run' "$log" 2>/dev/null || return 0
  {
    echo
    echo "# Tests that failed (ctest log: $log)"
    sed -E 's#(^|[ (])(/src/|(\.\./)+src/)#\1#g' "$log" | awk '
      /Test +#[0-9]+: .*\*\*\*(Failed|Timeout|Exception)|  Not Run/ { on = 1; print ""; print; next }
      /^ *Start +[0-9]+: |^ *[0-9]+\/[0-9]+ Test +#[0-9]+: |^[0-9]+% tests passed/ { on = 0 }
      on && !/^(Running main|Note: Google Test filter|\[(==========|----------)\])/ { print }
    '
    sed -n '/^The following tests FAILED/,$p' "$log"
  } >>"$out"
  return 1
}
