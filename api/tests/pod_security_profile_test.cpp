#include "distbench/api/pod_security_profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace distbench::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<std::string> fieldsOf(const std::vector<FieldError>& errors) {
  std::vector<std::string> out;
  for (const FieldError& e : errors) out.push_back(e.field);
  return out;
}

TEST(PodSecurityProfileTest, RestrictedOverridesPass) {
  DistBenchmark b = test::minimalBenchmark();
  EXPECT_THAT(restrictedProfileViolations(b), IsEmpty());
  // What "restricted" still allows: another non-root user, a Localhost
  // profile, NET_BIND_SERVICE, a writable root filesystem.
  PodTemplate& t = b.spec.podTemplates.trainer;
  t.podSecurityContext.runAsUser = 1000;
  t.podSecurityContext.runAsNonRoot = true;
  t.podSecurityContext.seccompProfile = SeccompProfile{"Localhost", "profiles/worker.json"};
  t.securityContext.capabilitiesAdd = std::vector<std::string>{"NET_BIND_SERVICE"};
  t.securityContext.capabilitiesDrop = std::vector<std::string>{"ALL", "NET_RAW"};
  t.securityContext.readOnlyRootFilesystem = false;
  t.securityContext.allowPrivilegeEscalation = false;
  EXPECT_THAT(restrictedProfileViolations(b), IsEmpty());
  EXPECT_NO_THROW(requireRestrictedProfile(b));
}

TEST(PodSecurityProfileTest, EachForbiddenOverrideIsNamed) {
  DistBenchmark b = test::minimalBenchmark();
  PodTemplate& ps = b.spec.podTemplates.parameterServer;
  ps.podSecurityContext.runAsNonRoot = false;
  ps.podSecurityContext.runAsUser = 0;
  ps.podSecurityContext.seccompProfile = SeccompProfile{"Unconfined", ""};
  PodTemplate& trainer = b.spec.podTemplates.trainer;
  trainer.securityContext.allowPrivilegeEscalation = true;
  trainer.securityContext.capabilitiesAdd = std::vector<std::string>{"NET_BIND_SERVICE", "SYS_ADMIN"};
  trainer.securityContext.capabilitiesDrop = std::vector<std::string>{"NET_RAW"};
  const std::vector<FieldError> errors = restrictedProfileViolations(b);
  EXPECT_THAT(fieldsOf(errors),
              ElementsAre("spec.podTemplates.parameterServer.podSecurityContext.runAsNonRoot",
                          "spec.podTemplates.parameterServer.podSecurityContext.runAsUser",
                          "spec.podTemplates.parameterServer.podSecurityContext.seccompProfile.type",
                          "spec.podTemplates.trainer.securityContext.allowPrivilegeEscalation",
                          "spec.podTemplates.trainer.securityContext.capabilities.add[1]",
                          "spec.podTemplates.trainer.securityContext.capabilities.drop"));
  EXPECT_THAT(errors[4].message, HasSubstr("SYS_ADMIN"));
  EXPECT_THAT(errors[0].message, HasSubstr(kAllowPrivilegedOverridesFlag));
  EXPECT_THROW(requireRestrictedProfile(b), SpecError);
  // They are valid specs all the same: a cluster may allow them.
  EXPECT_THAT(validate(b), IsEmpty());
}

}  // namespace
}  // namespace distbench::api
