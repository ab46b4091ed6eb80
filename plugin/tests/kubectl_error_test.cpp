// kubectl's own words (kubectl 1.35 against a 1.20 API server, as the kube
// tests see them) classified and explained.
#include "distbench/plugin/kubectl_error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace distbench::plugin {
namespace {

using ::testing::HasSubstr;

KubectlResult failed(const std::string& err) { return {1, "", err}; }

TEST(KubectlError, EachCaseAUserMeetsIsToldApart) {
  EXPECT_EQ(
      classifyKubectlFailure("error: the server doesn't have a resource type \"distbenchmarks\"\n"),
      KubectlFailure::NoCrd);
  EXPECT_EQ(classifyKubectlFailure(
                "Error from server (Forbidden): configmaps \"small-report\" is forbidden: User "
                "\"distbench-user\" cannot get resource \"configmaps\" in API group \"\" in the "
                "namespace \"t\"\n"),
            KubectlFailure::Forbidden);
  EXPECT_EQ(classifyKubectlFailure("error: You must be logged in to the server (Unauthorized)\n"),
            KubectlFailure::Unauthorized);
  EXPECT_EQ(classifyKubectlFailure("The connection to the server 127.0.0.1:1 was refused - did "
                                   "you specify the right host or port?\n"),
            KubectlFailure::Unreachable);
  EXPECT_EQ(classifyKubectlFailure("Error from server (NotFound): distbenchmarks.distbench.io "
                                   "\"nope\" not found\n"),
            KubectlFailure::NotFound);
  EXPECT_EQ(classifyKubectlFailure("error: something else\n"), KubectlFailure::Other);
  // Forbidden by a quota or an admission webhook is not about rights; a
  // kubeconfig's own "not found" is not the server's.
  EXPECT_EQ(classifyKubectlFailure("Error from server (Forbidden): distbenchmarks.distbench.io "
                                   "\"x\" is forbidden: exceeded quota: q, requested: count/x=1\n"),
            KubectlFailure::Other);
  EXPECT_EQ(classifyKubectlFailure("error: context was not found for specified context: typo\n"),
            KubectlFailure::Other);
}

TEST(KubectlError, TheExplanationKeepsKubectlsLineAndSaysWhatToDo) {
  EXPECT_THAT(explainKubectlFailure(
                  {"get", "distbenchmarks"},
                  failed("error: the server doesn't have a resource type \"distbenchmarks\"\n")),
              HasSubstr("install the operator's chart"));
  const std::string rbac = explainKubectlFailure(
      {"get", "configmap", "small-report"},
      failed("Error from server (Forbidden): configmaps \"small-report\" is forbidden: User "
             "\"u\" cannot get resource \"configmaps\"\n"));
  EXPECT_THAT(rbac, HasSubstr("refused by the cluster's RBAC"));
  EXPECT_THAT(rbac, HasSubstr("cannot get resource \"configmaps\""));
  EXPECT_EQ(explainKubectlFailure({"get", "x"}, failed("error: odd\n\n")),
            "kubectl get x failed (exit 1): odd");
}

}  // namespace
}  // namespace distbench::plugin
