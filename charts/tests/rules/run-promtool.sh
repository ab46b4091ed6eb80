#!/usr/bin/env bash
# The chart's alerting rules through promtool (Debian's prometheus package;
# scripts/install-e2e-deps.sh installs it): `check rules` on the plain rules
# file the PrometheusRule is rendered from, then `test rules` on the
# synthetic series of distbench-rules-test.yaml beside this script.
#   run-promtool.sh [PROMTOOL]
# Exit 77 (skipped) without promtool, except under CI=true, where that fails.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rules=$here/../../distbench-operator/rules/distbench-rules.yaml
promtool=${1:-$(command -v promtool || true)}
if [[ -z $promtool || ! -x $promtool ]]; then
  if [[ ${CI:-} == true ]]; then
    echo "alert-rules: FAILED: no promtool (scripts/install-e2e-deps.sh installs Debian's prometheus, which has it)" >&2
    exit 1
  fi
  echo "alert-rules: SKIPPED: no promtool on PATH (Debian package prometheus)"
  exit 77
fi
"$promtool" --version 2>&1 | head -n 1
"$promtool" check rules "$rules"
# promtool resolves rule_files relative to the test file.
"$promtool" test rules "$here/distbench-rules-test.yaml"
