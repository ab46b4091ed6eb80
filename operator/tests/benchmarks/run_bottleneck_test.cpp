// The bottleneck line the operator copies from the master's result summary.
#include "distbench/operator/benchmarks/run_bottleneck.h"

#include <gtest/gtest.h>

#include "distbench/kube/bounded_message.h"

namespace distbench::op {
namespace {

using web::json::value;

TEST(RunBottleneck, IsTheSummarysBottleneckLine) {
  const value summary = value::parse(
      R"({"kind":"DDP","p50":"0.210s","bottleneck":"smallcnn 1M/4R: communication-bound"})");
  EXPECT_EQ(bottleneckOf(summary), "smallcnn 1M/4R: communication-bound");
}

TEST(RunBottleneck, AbsentEmptyOrNotTextIsNone) {
  EXPECT_FALSE(bottleneckOf(value::parse(R"({"kind":"DDP","p50":"0.210s"})")));
  EXPECT_FALSE(bottleneckOf(value::parse(R"({"bottleneck":""})")));
  EXPECT_FALSE(bottleneckOf(value::parse(R"({"bottleneck":{"row":"All"}})")));
  EXPECT_FALSE(bottleneckOf(value::parse(R"(["bottleneck"])")));
}

TEST(RunBottleneck, IsBoundedAsEveryStatusMessage) {
  value summary = value::object();
  summary["bottleneck"] = value::string(std::string(5000, 'x'));
  const std::optional<std::string> line = bottleneckOf(summary);
  ASSERT_TRUE(line.has_value());
  EXPECT_LE(line->size(), kube::kMaxMessageBytes);
  EXPECT_NE(line->find("[cut, 5000 bytes in all]"), std::string::npos) << *line;
}

}  // namespace
}  // namespace distbench::op
