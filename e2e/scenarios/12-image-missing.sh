#!/usr/bin/env bash
# A trainer image the node does not have and cannot pull (the suite has no
# registry: the kubelet's pull from localhost is refused at once): the pod
# waits in ErrImagePull / ImagePullBackOff, and at
# spec.runtime.rendezvousTimeoutSeconds the run is Failed with reason
# ImagePullBackOff, the message naming the image.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start image-missing
new_namespace e2e-image-missing

image=localhost/distbench/no-such-image:e2e
apply_bench "$e2e_root/e2e/specs/collectives.yaml" \
  ".spec.runtime.rendezvousTimeoutSeconds = 15
   | .spec.podTemplates = {trainer: {image: \"$image\"}}"
wait_phase Failed 120

condition=$(bench_json | jq -c '.status.conditions[] | select(.type == "Failed")')
log "Failed condition: $condition"
jq -e '.status == "True" and .reason == "ImagePullBackOff"' <<<"$condition" >/dev/null ||
  { on_failure; die "condition Failed is not True/ImagePullBackOff: $condition"; }
grep -Fq "$image" <<<"$(jq -r .message <<<"$condition")" ||
  { on_failure; die "the Failed message does not name the image $image"; }
log "ok: Failed/ImagePullBackOff naming $image"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
