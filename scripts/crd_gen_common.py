"""What the generators of distbench's derived CRDs share.

A DistBenchmarkSchedule's and a DistBenchPreflightPolicy's spec.template.spec
is a DistBenchmark spec, so their generators copy its schema from
crds/distbench.io_distbenchmarks.yaml rather than keep it twice by hand; the
schema builders and the write/--check/--stdout entry point are here.
"""
import difflib
import os
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHMARK_CRD = os.path.join(ROOT, "crds", "distbench.io_distbenchmarks.yaml")


def integer(description, default=None, minimum=None, maximum=None, fmt="int32"):
    schema = {"type": "integer", "format": fmt, "description": description}
    if default is not None:
        schema["default"] = default
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


def string(description, **extra):
    schema = {"type": "string", "description": description}
    schema.update(extra)
    return schema


def time(description):
    return string(description, format="date-time")


def string_map(description):
    return {"type": "object", "description": description,
            "additionalProperties": {"type": "string"}}


def benchmark_crd_version():
    """The DistBenchmark CRD's (only) version: its name and schema."""
    with open(BENCHMARK_CRD) as f:
        source = yaml.safe_load(f)
    return source["spec"]["versions"][0]


def custom_resource_definition(kind, plural, singular, short_name, scope, version_name,
                               columns, description, spec, status=None):
    """A distbench.io CRD of one version: what the generated CRDs share.

    `status`: the status schema, which also turns on the status
    subresource; None for a resource without one.
    """
    version = {"name": version_name, "served": True, "storage": True}
    if status is not None:
        version["subresources"] = {"status": {}}
    version["additionalPrinterColumns"] = columns
    properties = {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": spec,
    }
    if status is not None:
        properties["status"] = status
    version["schema"] = {"openAPIV3Schema": {
        "type": "object",
        "description": description,
        "required": ["spec"],
        "properties": properties,
    }}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.distbench.io"},
        "spec": {
            "group": "distbench.io",
            "scope": scope,
            "names": {
                "kind": kind,
                "listKind": kind + "List",
                "plural": plural,
                "singular": singular,
                "shortNames": [short_name],
                "categories": ["distbench"],
            },
            "versions": [version],
        },
    }


def dump(header, crd):
    return header + yaml.safe_dump(crd, sort_keys=False, width=100, allow_unicode=True,
                                   default_flow_style=False)


def main(argv, target, generate, script, doc):
    """`script` rewrites `target`; --check exits 1 when it is stale; --stdout prints it."""
    text = generate()
    if argv[1:] == ["--stdout"]:
        sys.stdout.write(text)
    elif argv[1:] == ["--check"]:
        with open(target) as f:
            committed = f.read()
        if committed != text:
            sys.stdout.writelines(difflib.unified_diff(
                committed.splitlines(True), text.splitlines(True), target, "generated"))
            print(f"{target} is stale: run python3 {script}", file=sys.stderr)
            return 1
    elif argv[1:] == []:
        with open(target, "w") as f:
            f.write(text)
    else:
        print(doc, file=sys.stderr)
        return 2
    return 0
