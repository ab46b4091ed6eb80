#!/usr/bin/env python3
"""Opens a `distbench report` page in headless Chromium, offline, and checks
that it drew: every chart rendered marks, nothing failed, nothing was fetched.
Optionally keeps a screenshot of the whole page.

    render-report-page.py PAGE.html [--screenshot PNG] [--width 1280]

The page records its own state into #distbench-render-status
(cli/src/report_page/report_page_script.cpp): the marks each chart
rendered, counted on the Vega view's scenegraph; every uncaught error,
unhandled rejection, console.error and console.warn; every resource it
loaded. Chromium runs with
--dump-dom, so that record comes back in the serialised DOM, and with every
route to the network closed (a proxy at 127.0.0.1:9, where nothing listens,
and a resolver that resolves nothing), so a page that needed the network
would fail here.

Exit status 0 and one JSON line (charts and their mark counts, height) when
the page passed; 1 and the reasons otherwise; 2 when Chromium is missing or
did not finish. CHROMIUM names the browser (default: chromium on PATH).
"""
import argparse
import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

STATUS = re.compile(r'<pre id="distbench-render-status"[^>]*>(.*?)</pre>', re.S)
DATA = re.compile(r'<script type="application/json" id="distbench-report-data">(.*?)</script>', re.S)
SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.S | re.I)
# A reference that would leave the file: http(s):, or protocol-relative //.
REMOTE = re.compile(r"""\b(?:src|href|srcset|action|poster|data)\s*=\s*["']?\s*(?:https?:|//)""", re.I)
# Tall enough for any page; the screenshot is cropped to the page's height.
MAX_HEIGHT = 8000


def chromium_command():
    name = os.environ.get("CHROMIUM", "chromium")
    path = shutil.which(name)
    if not path:
        sys.exit(f"render-report-page: no {name} on PATH (Debian: apt-get install chromium)")
    return path


def run_chromium(page, width, screenshot, profile):
    args = [
        chromium_command(), "--headless=new", "--no-sandbox", "--disable-gpu",
        # Offline: every request goes to a proxy that is not there, and no
        # name resolves.
        "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
        # Nothing of Chromium's own on the network either, and a fresh profile.
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", "--no-default-browser-check", f"--user-data-dir={profile}",
        "--hide-scrollbars", "--force-device-scale-factor=1",
        # Virtual time runs as fast as the page lets it: the budget is an upper
        # bound, not a wait.
        "--virtual-time-budget=60000", "--dump-dom",
    ]
    if screenshot:
        args += [f"--screenshot={screenshot}", f"--window-size={width},{MAX_HEIGHT}"]
    else:
        args += [f"--window-size={width},900"]
    args.append("file://" + os.path.abspath(page))
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        print(f"render-report-page: {page}: Chromium did not finish in 180 s", file=sys.stderr)
        sys.exit(2)
    if done.returncode != 0 or not done.stdout:
        stderr = [line for line in done.stderr.splitlines() if "dbus" not in line]
        print(f"render-report-page: {page}: Chromium exited {done.returncode}:\n" +
              "\n".join(stderr[-20:]), file=sys.stderr)
        sys.exit(2)
    return done.stdout


def problems_of(dom):
    """What is wrong with the page, as Chromium left it; and its record."""
    status_match = STATUS.search(dom)
    if not status_match:
        return ["no #distbench-render-status element: not a distbench report page"], {}
    status = json.loads(html.unescape(status_match.group(1)) or "{}")
    problems = []
    if not status.get("done"):
        problems.append("the page never finished drawing (done is not true)")
    problems += [f"error: {e}" for e in status.get("errors", [])]
    problems += [f"warning: {w}" for w in status.get("warnings", [])]
    problems += [f"fetched {r}" for r in status.get("resources", [])]

    data_match = DATA.search(dom)
    charts = [c["id"] for c in json.loads(data_match.group(1))["charts"]] if data_match else []
    if not data_match:
        problems.append("no #distbench-report-data block")
    drawn = status.get("charts", {})
    for chart in charts:
        if drawn.get(chart, 0) <= 0:
            problems.append(f"chart {chart} rendered {drawn.get(chart, 0)} marks")
        if f'id="{chart}"' not in dom:
            problems.append(f"chart {chart} has no element to be drawn into")
    for chart in drawn:
        if chart not in charts:
            problems.append(f"drew {chart}, which the data block does not list")

    outside_scripts = SCRIPT.sub("", dom)
    for remote in REMOTE.finditer(outside_scripts):
        start = max(0, remote.start() - 60)
        problems.append("a reference off the file: ..." + outside_scripts[start:remote.end() + 40])
    return problems, status


def crop_png(path, height):
    """Keeps the top `height` rows. PNG filters refer only to rows above, so
    the first rows of the image data decode alone."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    chunks, at = [], 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        chunks.append((kind, data[at + 8:at + 8 + length]))
        at += 12 + length
    ihdr = chunks[0][1]
    width, old_height, depth, colour = struct.unpack(">IIBB", ihdr[:10])
    if height >= old_height:
        return
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    row = 1 + width * channels * depth // 8
    pixels = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    out = [(b"IHDR", struct.pack(">II", width, height) + ihdr[8:])]
    out += [(k, b) for k, b in chunks[1:] if k not in (b"IDAT", b"IEND")]
    out += [(b"IDAT", zlib.compress(pixels[:row * height], 9)), (b"IEND", b"")]
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        for kind, body in out:
            f.write(struct.pack(">I", len(body)) + kind + body)
            f.write(struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page")
    parser.add_argument("--screenshot", help="write a PNG of the whole page here")
    parser.add_argument("--width", type=int, default=1280)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="distbench-chromium-") as profile:
        dom = run_chromium(args.page, args.width, args.screenshot, profile)
    problems, status = problems_of(dom)
    if problems:
        print(f"render-report-page: {args.page}: FAILED", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        sys.exit(1)
    height = min(int(status.get("height") or MAX_HEIGHT), MAX_HEIGHT)
    if args.screenshot:
        crop_png(args.screenshot, height)
    print(json.dumps({"page": args.page, "charts": status["charts"], "height": height}))


if __name__ == "__main__":
    main()
