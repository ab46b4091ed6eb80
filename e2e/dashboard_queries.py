#!/usr/bin/env python3
"""Evaluates every PromQL expression of a Grafana dashboard through
Prometheus's HTTP API as Grafana draws a time-series panel (a range query,
/api/v1/query_range, over the dashboard's time window), and checks that each
parses and that every panel returns data in one of the given windows.

  dashboard_queries.py [--only KINDS] [--data-optional KINDS]
                       URL DASHBOARD.json START:END [START:END...]

Each window is one benchmark run, from its apply to its Succeeded (Unix
seconds). Dashboard variables: $benchmark, $namespace, $schedule -> .*
(Grafana's "All"), $__rate_interval -> 1m (four times a 2 s scrape interval
is Grafana's minimum; a minute spans a whole tiny run). A panel returns data
when any of its expressions has a point in any window. Exit 1, naming the
panels, otherwise.

Panels and annotation queries are of three kinds: operator (they read
distbench_operator_*), schedule (distbench_schedule_*: the continuous
benchmarking row and the regression annotations) and worker (the rest).
KINDS is a comma-separated list of them.
  --only KINDS           evaluate those kinds' panels only (a local run has
                         no operator: --only worker; e2e scenario 16 checks
                         --only schedule)
  --data-optional KINDS  those kinds' expressions must evaluate, but may
                         return nothing (scenario 09 runs no schedule, so its
                         schedule panels are empty there)

Why windows and not instants: a gang's ranks finish together and exit
together after their metrics linger, and a target that goes away gets
Prometheus's staleness markers, so an instant query for a plain gauge
(distbench_build_info) is empty a moment later while rate() over a minute
still has data; only a moment chosen from pod phases, which the kubelet
reports seconds late on a loaded node, could catch it.
"""
import json
import sys
import urllib.error
import urllib.parse
import urllib.request

SUBSTITUTIONS = {"$benchmark": ".*", "$namespace": ".*", "$schedule": ".*",
                 "$__rate_interval": "1m"}
KINDS = ("worker", "operator", "schedule")


def panels(items):
    for p in items:
        yield from panels(p.get("panels", []))
        if p.get("targets"):
            yield p


def annotations(dashboard):
    """Annotation queries, as panels of one target each."""
    for a in dashboard.get("annotations", {}).get("list", []):
        if a.get("expr"):
            yield {"title": "annotation " + a.get("name", "?"), "targets": [{"expr": a["expr"]}]}


def kind_of(panel):
    exprs = [t.get("expr", "") for t in panel["targets"]]
    if any("distbench_operator_" in e for e in exprs):
        return "operator"
    if any("distbench_schedule_" in e for e in exprs):
        return "schedule"
    return "worker"


STEP_SECONDS = 2  # the scrape interval: what Grafana picks for a short window


def query_range(url, expr, window):
    start, end = window
    data = urllib.parse.urlencode(
        {"query": expr, "start": start, "end": end, "step": STEP_SECONDS}).encode()
    try:
        with urllib.request.urlopen(url + "/api/v1/query_range", data=data, timeout=30) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:  # 400: the expression does not parse
        return json.load(e)


def kinds(arg, flag):
    chosen = set(arg.split(","))
    unknown = chosen - set(KINDS)
    if unknown:
        raise ValueError(f"{flag}: unknown kind {', '.join(sorted(unknown))} (kinds: {', '.join(KINDS)})")
    return chosen


def main():
    args = sys.argv[1:]
    only, optional = set(KINDS), set()
    try:
        while args[:1] in (["--only"], ["--data-optional"]) and len(args) > 1:
            if args[0] == "--only":
                only = kinds(args[1], "--only")
            else:
                optional = kinds(args[1], "--data-optional")
            args = args[2:]
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    if len(args) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    url, dashboard, window_args = args[0], args[1], args[2:]
    windows = [tuple(w.split(":", 1)) for w in window_args]
    with open(dashboard) as f:
        d = json.load(f)
    failures = []
    for p in list(panels(d["panels"])) + list(annotations(d)):
        title = p.get("title", "?")
        kind = kind_of(p)
        if kind not in only:
            continue
        series = 0
        for t in p["targets"]:
            expr = t["expr"]
            for var, value in SUBSTITUTIONS.items():
                expr = expr.replace(var, value)
            for window in windows:
                r = query_range(url, expr, window)
                if r.get("status") != "success":
                    failures.append(f"{title}: does not evaluate: {expr}: {r.get('error')}")
                    break
                series += len(r["data"]["result"])
        status = "data" if series else ("no data" if kind in optional else "NO DATA")
        print(f"  [{kind:8}] {status:7} {series:4} series  {title}")
        if not series and kind not in optional:
            failures.append(f"{kind} panel '{title}' returns no data in any of the windows {window_args}")
    for f in failures:
        print("FAILED: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
