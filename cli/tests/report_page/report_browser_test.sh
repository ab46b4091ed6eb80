#!/usr/bin/env bash
# The report page in a real browser, offline: Debian's Chromium, headless,
# with no route to the network.
#   1. scripts/report-screenshots.sh --short: real `distbench run`s of each
#      kind (HybridDDPRPC, DDP, Collectives), a page of each, a page compared
#      with a baseline, and the committed report without phase timings;
#      each drawn and checked by scripts/render-report-page.py (every chart
#      rendered marks, counted on the Vega view; no uncaught error, rejection,
#      console error or warning; nothing fetched; no reference off the file)
#      and screenshot. So the docs' screenshot script runs here too.
#   2. The screenshots are PNGs 1280 pixels wide and as tall as the page.
#   3. The checker fails pages that are broken in each way it looks for: a
#      chart Vega-Lite rejects, a chart with no data, an image from the web.
#   report_browser_test.sh BIN_DIR
# Exit 77 (skipped) without chromium, except under CI=true, where that fails.
set -euo pipefail
bin=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
log() { echo "report-browser [$((SECONDS))s]: $*"; }
chromium=${CHROMIUM:-chromium}
if ! command -v "$chromium" >/dev/null; then
  [[ ${CI:-} == true ]] && { log "FAILED: no $chromium (scripts/install-deps.sh installs Debian's)"; exit 1; }
  log "SKIPPED: no $chromium on PATH"
  exit 77
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/distbench-report-browser.XXXXXX")
trap 'rm -rf "$dir"' EXIT
pages=$dir/pages

# 1.
DISTBENCH_BIN=$bin "$root/scripts/report-screenshots.sh" --short "$pages"

# 2.
python3 - "$pages" <<'EOF'
import glob, os, struct, sys
names = ["report-hybrid", "report-ddp", "report-collectives", "report-baseline",
         "report-trend", "report-hybrid-pre-phases"]
for name in names:
    path = os.path.join(sys.argv[1], name + ".png")
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    assert width == 1280, f"{path}: {width} pixels wide"
    # Header, charts, tables: well over a screen; under the 8000 of the window.
    assert 1000 < height < 8000, f"{path}: {height} pixels tall"
    assert os.path.getsize(path) > 50_000, f"{path}: {os.path.getsize(path)} bytes, blank?"
print(f"report-browser: {len(names)} screenshots 1280 wide")
EOF

# 3. Each broken copy of a good page must fail, saying why.
broken() {  # broken NAME EXPECTED PYTHON: the DDP page edited by PYTHON (page in `p`)
  local name=$1 expected=$2 edit=$3
  python3 - "$pages/report-ddp.html" "$dir/$name.html" "$edit" <<'EOF'
import json, re, sys
source, target, edit = sys.argv[1:]
p = open(source, encoding="utf-8").read()
block = re.compile(r'(<script type="application/json" id="distbench-report-data">)(.*?)(</script>)', re.S)
data = json.loads(block.search(p).group(2))
exec(edit)
text = json.dumps(data).replace("<", "\\u003c")
p = block.sub(lambda m: m.group(1) + text + m.group(3), p)
open(target, "w", encoding="utf-8").write(p)
EOF
  local rc=0
  python3 "$root/scripts/render-report-page.py" "$dir/$name.html" >"$dir/$name.out" 2>&1 || rc=$?
  if ((rc != 1)) || ! grep -qF -- "$expected" "$dir/$name.out"; then
    log "FAILED: the checker passed or misjudged a page with $name (exit $rc, expected '$expected'):"
    cat "$dir/$name.out"
    exit 1
  fi
  log "a page with $name fails: $(grep -F -- "$expected" "$dir/$name.out" | head -n1 | sed 's/^ *//')"
}
broken "an invalid mark" "error: ddp-phases-0:" \
  'data["charts"][2]["spec"]["mark"] = "no-such-mark"'
broken "a chart without data" "chart ddp-efficiency-0 rendered 0 marks" \
  'data["charts"][1]["spec"]["data"]["values"] = []'
broken "an image from the web" "https://example.com/" \
  'p = p.replace("</main>", "<img src=\"https://example.com/logo.png\"></main>")'
log "ok"
