#!/usr/bin/env python3
"""Checks the one include style.

Every part's header is included as "distbench/<part>/<path in the part>",
whatever part it lives in, so an include line says whose header it is; and
that path is where the header is on disk, under the part's include folder
(<part>/include/distbench/<part>/..., operator/kube/include/distbench/kube/...),
so grep, an editor and a reader without a build all find it: no build step
makes an include path up. The exceptions are a library's private header
beside its includer (api/src/*.h) and a test folder's own helpers, included
by their path from that folder. Every contiguous block of #include lines is
sorted. Prints each offence as FILE:LINE: what, and exits 1 if there is any.

Usage: check-include-style.py [REPO_ROOT]
"""
import os
import re
import subprocess
import sys

# Folders whose headers may be included by their path beside the includer:
# headers private to one library, test folders' own helpers, and a
# benchmark program's own.
LOCAL_FOLDERS = ("api/src/", "report/src/", "operator/kube/src/", "worker/tests/", "operator/tests/", "cli/tests/", "charts/tests/",
                 "api/tests/", "operator/kube/tests/", "report/tests/", "benchmarks/tests/",
                 "benchmarks/operator_scale/")
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]')


def local_header_ok(path, header):
    """A bare or folder-relative include that names a local header."""
    for folder in LOCAL_FOLDERS:
        if not path.startswith(folder):
            continue
        for base in (os.path.dirname(path), folder.rstrip("/")):
            if os.path.isfile(os.path.join(base, header)):
                return True
    return False


def check(path, lines, offences, on_disk):
    block = []  # (line number, sort key) of the current run of includes
    def close_block():
        keys = [k for _, k in block]
        if keys != sorted(keys):
            first = next(n for (n, k), s in zip(block, sorted(keys)) if k != s)
            offences.append(f"{path}:{first}: include block not sorted")
        block.clear()
    for number, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if not m:
            close_block()
            continue
        kind, header = m.groups()
        block.append((number, header))
        if kind != '"':
            continue
        if header.startswith("distbench/"):
            if header not in on_disk:
                offences.append(f'{path}:{number}: "{header}": no such file under an include/ '
                                'folder (a part\'s headers live at <part>/include/distbench/<part>/)')
            continue
        if not local_header_ok(path, header):
            offences.append(f'{path}:{number}: "{header}": include project headers as '
                            '"distbench/<part>/..."')
    close_block()


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))
    os.chdir(root)
    files = subprocess.run(["git", "ls-files", "*.h", "*.cpp", "*.cpp.in", "*.cu"],
                           capture_output=True, text=True, check=True).stdout.split()
    # "distbench/..." paths of the headers under every include/ folder.
    on_disk = set()
    for path in files:
        at = path.find("include/distbench/")
        if at == 0 or (at > 0 and path[at - 1] == "/"):
            on_disk.add(path[at + len("include/"):])
    offences = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            check(path, f.read().split("\n"), offences, on_disk)
    for o in offences:
        print(o)
    print(f"{len(files)} files checked, {len(offences)} offences")
    return 1 if offences else 0


if __name__ == "__main__":
    sys.exit(main())
