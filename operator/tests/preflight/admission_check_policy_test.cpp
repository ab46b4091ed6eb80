// An AdmissionCheck of the gate: whether it is ours, the policy its
// parameters name (or why none can be used), and its Active condition,
// written only when it changes.
#include "distbench/operator/preflight/admission_check_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

namespace distbench::op {
namespace {

using ::testing::HasSubstr;
using web::json::value;

value admissionCheck(const std::string& parameters,
                     const std::string& controller = "distbench.io/preflight") {
  return value::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"AdmissionCheck",
      "metadata":{"name":"fabric","generation":3},
      "spec":{"controllerName":")" + controller + R"(")" +
                      (parameters.empty() ? "" : R"(,"parameters":)" + parameters) + "}}");
}

const std::string kRef =
    R"({"apiGroup":"distbench.io","kind":"DistBenchPreflightPolicy","name":"gate"})";

value policyObject(const std::string& kind = "Fabric") {
  return value::parse(R"({"apiVersion":"distbench.io/v1alpha1","kind":"DistBenchPreflightPolicy",
      "metadata":{"name":"gate","uid":"p-1","generation":1},
      "spec":{"template":{"spec":{"benchmark":{"kind":")" + kind + R"("}}}}})");
}

PolicyGetter policies(std::map<std::string, value> objects) {
  return [objects](const std::string& name) -> std::optional<value> {
    auto it = objects.find(name);
    if (it == objects.end()) return std::nullopt;
    return it->second;
  };
}

TEST(AdmissionCheckPolicy, OursByControllerName) {
  EXPECT_TRUE(isPreflightCheck(admissionCheck(kRef)));
  EXPECT_FALSE(isPreflightCheck(admissionCheck(kRef, "kueue.x-k8s.io/provisioning-request")));
}

TEST(AdmissionCheckPolicy, FindsAndParsesThePolicy) {
  const CheckPolicy p = checkPolicy(admissionCheck(kRef), policies({{"gate", policyObject()}}));
  ASSERT_TRUE(p.policy.has_value()) << p.error;
  EXPECT_EQ(p.policy->metadata.name, "gate");
  EXPECT_EQ(p.policy->spec.attempts, 3);
}

TEST(AdmissionCheckPolicy, SaysWhyThereIsNoPolicy) {
  const PolicyGetter some = policies({{"gate", policyObject()}});
  const CheckPolicy none = checkPolicy(admissionCheck(""), some);
  EXPECT_EQ(none.reason, "BadParametersRef");
  EXPECT_THAT(none.error, HasSubstr("missing parameters reference"));
  const CheckPolicy group = checkPolicy(
      admissionCheck(R"({"apiGroup":"kueue.x-k8s.io","kind":"DistBenchPreflightPolicy","name":"gate"})"),
      some);
  EXPECT_THAT(group.error, HasSubstr("wrong group \"kueue.x-k8s.io\""));
  const CheckPolicy kind = checkPolicy(
      admissionCheck(R"({"apiGroup":"distbench.io","kind":"DistBenchmark","name":"gate"})"), some);
  EXPECT_THAT(kind.error, HasSubstr("wrong kind \"DistBenchmark\""));
  const CheckPolicy missing = checkPolicy(admissionCheck(kRef), policies({}));
  EXPECT_EQ(missing.reason, "PolicyNotFound");
  EXPECT_THAT(missing.error, HasSubstr("DistBenchPreflightPolicy gate not found"));
  const CheckPolicy invalid =
      checkPolicy(admissionCheck(kRef), policies({{"gate", policyObject("DDP")}}));
  EXPECT_EQ(invalid.reason, "InvalidPolicy");
  EXPECT_THAT(invalid.error, HasSubstr("spec.template.spec.benchmark.kind"));
}

TEST(AdmissionCheckPolicy, ActiveIsWrittenOnlyWhenItChanges) {
  const value check = admissionCheck(kRef);
  const CheckPolicy good = checkPolicy(check, policies({{"gate", policyObject()}}));
  const std::optional<value> first = activeConditionUpdate(check, good, "2026-11-28T10:00:00Z");
  ASSERT_TRUE(first.has_value());
  const value& condition = first->at("status").at("conditions").at(0);
  EXPECT_EQ(condition.at("type").as_string(), "Active");
  EXPECT_EQ(condition.at("status").as_string(), "True");
  EXPECT_EQ(condition.at("reason").as_string(), "Active");
  EXPECT_EQ(condition.at("message").as_string(), "The admission check is active");
  EXPECT_EQ(condition.at("observedGeneration").as_integer(), 3);
  EXPECT_FALSE(activeConditionUpdate(*first, good, "2026-11-28T10:05:00Z").has_value());

  const CheckPolicy gone = checkPolicy(check, policies({}));
  const std::optional<value> inactive =
      activeConditionUpdate(*first, gone, "2026-11-28T10:05:00Z");
  ASSERT_TRUE(inactive.has_value());
  const value& off = inactive->at("status").at("conditions").at(0);
  EXPECT_EQ(off.at("status").as_string(), "False");
  EXPECT_EQ(off.at("reason").as_string(), "PolicyNotFound");
  EXPECT_EQ(off.at("lastTransitionTime").as_string(), "2026-11-28T10:05:00Z");
}

}  // namespace
}  // namespace distbench::op
