// Whose an object found under a child's name is: a table, no API server.
#include "distbench/operator/common/ownership.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/operator/common/labels.h"

namespace distbench::op {
namespace {

using web::json::value;

value object(const std::string& label, const std::string& ownerKind, const std::string& ownerUid) {
  value o = value::object();
  o["metadata"]["name"] = value::string("b-config");
  if (!label.empty()) o["metadata"]["labels"][kLabelBenchmark] = value::string(label);
  if (!ownerKind.empty()) {
    value ref = value::object();
    ref["kind"] = value::string(ownerKind);
    ref["uid"] = value::string(ownerUid);
    ref["controller"] = value::boolean(true);
    o["metadata"]["ownerReferences"] = value::array({ref});
  }
  return o;
}

TEST(OwnershipTest, ClaimTable) {
  struct Case {
    std::string name;
    value found;
    ChildClaim want;
  };
  const std::vector<Case> cases = {
      {"OurControllerReference", object("b", api::kKind, "uid"), ChildClaim::Ours},
      // The reference decides, whatever the label says.
      {"OursWithoutTheLabel", object("", api::kKind, "uid"), ChildClaim::Ours},
      {"AnEarlierBenchmarkOfTheName", object("b", api::kKind, "old-uid"), ChildClaim::Earlier},
      {"TheLabelAlone", object("b", "", ""), ChildClaim::Labelled},
      {"TheLabelAndAnotherKindsReference", object("b", "Deployment", "d"), ChildClaim::Labelled},
      {"AnotherBenchmarksLabel", object("c", api::kKind, "old-uid"), ChildClaim::Foreign},
      {"Nothing", object("", "", ""), ChildClaim::Foreign},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(claimOf(c.found, "uid", "b"), c.want);
  }
}

}  // namespace
}  // namespace distbench::op
