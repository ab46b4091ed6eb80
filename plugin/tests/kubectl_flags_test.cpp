#include "distbench/plugin/kubectl_flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace distbench::plugin {
namespace {

using ::testing::ElementsAre;

TEST(KubectlFlags, KubectlsGlobalFlagsGoToKubectlWithTheirValues) {
  const SplitArgs s = splitKubectlFlags({"-n", "team-a", "--context=kind", "report", "small", "-o",
                                         "page.html", "--kubeconfig", "/k", "-nteam-b",
                                         "--insecure-skip-tls-verify", "--baseline", "old"});
  EXPECT_THAT(s.kubectl, ElementsAre("-n", "team-a", "--context=kind", "--kubeconfig", "/k",
                                     "-nteam-b", "--insecure-skip-tls-verify"));
  EXPECT_THAT(s.rest, ElementsAre("report", "small", "-o", "page.html", "--baseline", "old"));
}

TEST(KubectlFlags, AfterDoubleDashNothingIsTaken) {
  const SplitArgs s = splitKubectlFlags({"logs", "--", "-n", "x"});
  EXPECT_TRUE(s.kubectl.empty());
  EXPECT_THAT(s.rest, ElementsAre("logs", "--", "-n", "x"));
}

}  // namespace
}  // namespace distbench::plugin
