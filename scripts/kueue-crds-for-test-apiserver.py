#!/usr/bin/env python3
"""Makes a vendored Kueue CRD loadable by the tests' kube-apiserver (1.20).

That server refuses `default: ""` on a string property ("Invalid value: "null":
in body must be of type string"); Kueue's Workload CRD has 67, from the pod
template it embeds. This drops those lines. Two of them default the list-map
key of podSets[].template.spec.imagePullSecrets, which 1.20 then wants
required ("must have a default or be a required property"), so `name` is made
required there. Nothing else changes; a CRD without such lines is copied as is.

  kueue-crds-for-test-apiserver.py IN.yaml OUT.yaml
"""
import re
import sys

EMPTY_DEFAULT = re.compile(r' *default: ""')
PULL_SECRETS = re.compile(r'( *)imagePullSecrets:')


def patch(lines):
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if EMPTY_DEFAULT.fullmatch(line):
            continue
        out.append(line)
        m = PULL_SECRETS.fullmatch(line)
        if not m:
            continue
        # Copy the list's schema up to its items' `type: object`, then say
        # that `name` is required.
        body = ' ' * (len(m.group(1)) + 4)
        while i < len(lines) and lines[i] != body + 'type: object':
            if not EMPTY_DEFAULT.fullmatch(lines[i]):
                out.append(lines[i])
            i += 1
        out.append(body + 'required:')
        out.append(body + '- name')
    return out


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        lines = f.read().split('\n')
    with open(argv[2], 'w') as f:
        f.write('\n'.join(patch(lines)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
