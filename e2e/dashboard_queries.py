#!/usr/bin/env python3
"""Evaluates every PromQL expression of a Grafana dashboard through
Prometheus's HTTP API (/api/v1/query), as Grafana would, and checks that each
parses and that every panel returns data at one of the given times.

  dashboard_queries.py URL DASHBOARD.json TIME [TIME...]

Dashboard variables: $benchmark -> .* (Grafana's "All"), $__rate_interval ->
1m (four times a 2 s scrape interval is Grafana's minimum; a minute spans a
whole tiny run). A panel returns data when any of its expressions does at
any of the times (each time is a moment a benchmark's ranks were still
serving, after their work). Exit 1, naming the panels, otherwise.
"""
import json
import sys
import urllib.error
import urllib.parse
import urllib.request

SUBSTITUTIONS = {"$benchmark": ".*", "$__rate_interval": "1m"}


def panels(items):
    for p in items:
        yield from panels(p.get("panels", []))
        if p.get("targets"):
            yield p


def query(url, expr, at):
    data = urllib.parse.urlencode({"query": expr, "time": at}).encode()
    try:
        with urllib.request.urlopen(url + "/api/v1/query", data=data, timeout=30) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:  # 400: the expression does not parse
        return json.load(e)


def main():
    url, dashboard, times = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(dashboard) as f:
        d = json.load(f)
    failures = []
    for p in panels(d["panels"]):
        title = p.get("title", "?")
        kind = "operator" if any("distbench_operator_" in t.get("expr", "") for t in p["targets"]) else "worker"
        series = 0
        for t in p["targets"]:
            expr = t["expr"]
            for var, value in SUBSTITUTIONS.items():
                expr = expr.replace(var, value)
            for at in times:
                r = query(url, expr, at)
                if r.get("status") != "success":
                    failures.append(f"{title}: does not evaluate: {expr}: {r.get('error')}")
                    break
                series += len(r["data"]["result"])
        status = "data" if series else "NO DATA"
        print(f"  [{kind:8}] {status:7} {series:4} series  {title}")
        if not series:
            failures.append(f"{kind} panel '{title}' returns no data at any of {times}")
    for f in failures:
        print("FAILED: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
