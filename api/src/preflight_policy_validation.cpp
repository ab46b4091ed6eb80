// validate(DistBenchPreflightPolicy): the policy's own fields, its
// template's metadata, and its template's spec as the runs the gate makes.
#include <algorithm>
#include <string>

#include "distbench/api/preflight_policy.h"
#include "distbench/api/spec_validation.h"
#include "field_errors.h"
#include "object_name_rules.h"
#include "run_template_reader.h"

namespace distbench::api {
namespace {

using detail::FieldErrors;

void checkMetadata(const DistBenchPreflightPolicy& p, FieldErrors& e) {
  detail::checkTypeMeta(p.apiVersion, p.kind, kPreflightPolicyKind, e);
  const std::string& name = p.metadata.name;
  if (name.empty()) {
    e.fail("metadata.name", "required");
  } else if (!detail::isDns1123Label(name)) {
    e.fail("metadata.name",
           "must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and "
           "ending with a letter or digit; it labels the runs the gate makes");
  }
}

void checkPolicy(const PreflightPolicySpec& spec, FieldErrors& e) {
  e.between("spec.attempts", spec.attempts, 1, kMaxPreflightAttempts);
  e.between<int64_t>("spec.retryDelaySeconds", spec.retryDelaySeconds, 0,
                     kMaxPreflightRetryDelaySeconds);
  e.between<int64_t>("spec.timeoutSeconds", spec.timeoutSeconds, 1, kMaxPreflightTimeoutSeconds);
}

// The template as the runs for the smallest and the largest assignment, its
// errors under the policy's paths. The fields the gate sets are its own.
void checkTemplateSpec(const DistBenchPreflightPolicy& p, FieldErrors& e) {
  const DistBenchmarkSpec& spec = p.spec.template_.spec;
  if (spec.benchmark.kind != BenchmarkKind::Fabric) {
    return e.fail("spec.template.spec.benchmark.kind",
                  std::string("must be Fabric: the gate measures the workload's nodes with the "
                              "Fabric kind, not ") +
                      toString(spec.benchmark.kind));
  }
  if (!spec.benchmark.fabric.nodes.empty()) {
    e.fail("spec.template.spec.benchmark.fabric.nodes",
           "set by the gate to the workload's nodes; remove it");
  }
  std::vector<FieldError> seen;
  for (int nodes : {2, kMaxPreflightNodes}) {
    PreflightTarget target;
    target.workloadName = std::string(253, 'w');
    target.workloadNamespace = "default";
    target.workloadUid = "00000000-0000-0000-0000-000000000000";
    target.checkName = "check";
    target.attempt = kMaxPreflightAttempts;
    for (int i = 0; i < nodes; ++i) target.nodes.push_back("node-" + std::to_string(i));
    DistBenchPreflightPolicy checked = p;
    checked.spec.template_.spec.benchmark.fabric.nodes.clear();
    for (FieldError& error : validate(preflightRun(checked, target))) {
      if (error.field == "spec.topology.trainers" ||
          error.field.rfind("spec.benchmark.fabric.nodes", 0) == 0) {
        continue;
      }
      if (error.field.rfind("spec.", 0) != 0 && error.field != "spec") continue;
      error.field = "spec.template." + error.field;
      const bool repeated = std::any_of(seen.begin(), seen.end(), [&](const FieldError& s) {
        return s.field == error.field && s.message == error.message;
      });
      if (repeated) continue;
      seen.push_back(error);
      e.fail(error.field, error.message);
    }
  }
}

}  // namespace

std::vector<FieldError> validate(const DistBenchPreflightPolicy& policy) {
  FieldErrors e;
  checkMetadata(policy, e);
  checkPolicy(policy.spec, e);
  detail::checkRunTemplateMetadata(
      policy.spec.template_.metadata,
      {{kPreflightWorkloadUidLabel, kPreflightAttemptLabel, kPreflightPolicyLabel},
       {kPreflightWorkloadAnnotation},
       "the preflight gate"},
      e);
  checkTemplateSpec(policy, e);
  return e.take();
}

}  // namespace distbench::api
