// The termination-message summary: the right headline per kind (each kind's
// rule, as its KindEntry registers it), and never over Kubernetes' 4096 bytes.
#include "distbench/worker/common/result_summary.h"

#include <cpprest/json.h>
#include <gtest/gtest.h>

#include "distbench/report/attribution.h"
#include "distbench/worker/common/benchmark_kind.h"

namespace distbench::worker {
namespace {

using web::json::value;

HeadlineRule headlineOf(api::BenchmarkKind kind) { return kindEntry(kind).headline; }

report::Series series(const std::string& group, const std::string& row, double seconds,
                      double work = 10) {
  report::Series s;
  s.group = group;
  s.row = row;
  s.samples = {seconds, seconds, seconds};
  s.workPerSample = work;
  return s;
}

TEST(ResultSummary, HybridHeadlineIsTheAllRow) {
  report::Report r;
  r.kind = "HybridDDPRPC";
  r.series = {series("HybridDDPRPC", "Trainer0", 0.5), series("HybridDDPRPC", "Trainer1", 0.7),
              series("HybridDDPRPC", "All", 0.6, 20)};
  r.series[2].samples = {0.5, 0.6, 0.7};
  const value v = value::parse(resultSummaryJson(r, headlineOf(api::BenchmarkKind::HybridDDPRPC)));
  EXPECT_EQ(v.at("kind").as_string(), "HybridDDPRPC");
  EXPECT_EQ(v.at("p50").as_string(), "0.600s");
  EXPECT_EQ(v.at("headline").as_string(), "HybridDDPRPC All");
  ASSERT_EQ(v.at("rows").size(), 3u);
  EXPECT_EQ(v.at("rows").at(0).at("row").as_string(), "All");
  EXPECT_DOUBLE_EQ(v.at("rows").at(0).at("p95").as_double(), 0.69);
  EXPECT_DOUBLE_EQ(v.at("rows").at(0).at("perSecond").as_double(), 20 / 0.6);
  EXPECT_FALSE(v.at("truncated").as_bool());
}

// A median of 0 s (a clock too coarse for the op) has no rate: the summary
// must stay JSON the operator can read (JSON has no infinity, nor NaN).
TEST(ResultSummary, ARowOfZeroSecondsHasNoRate) {
  report::Report r;
  r.kind = "Collectives";
  r.series = {series("allreduce float32", "1024", 0), series("allreduce float32", "0", 0, 0)};
  const std::string text = resultSummaryJson(r, headlineOf(api::BenchmarkKind::Collectives));
  value v;
  ASSERT_NO_THROW(v = value::parse(text)) << text;
  ASSERT_EQ(v.at("rows").size(), 2u) << text;
  for (const value& row : v.at("rows").as_array())
    EXPECT_TRUE(row.at("perSecond").is_null()) << text;
}

TEST(ResultSummary, DdpHeadlineIsTheLargestRowOfTheFirstModel) {
  report::Report r;
  r.kind = "DDP";
  r.series = {series("resnet50 with batch size 32", "no ddp", 0.1),
              series("resnet50 with batch size 32", "1M/2R", 0.12),
              series("resnet101 with batch size 32", "no ddp", 0.2)};
  r.series[1].ranks = 2;
  const value v = value::parse(resultSummaryJson(r, headlineOf(api::BenchmarkKind::DDP)));
  EXPECT_EQ(v.at("headline").as_string(), "resnet50 with batch size 32 1M/2R");
  EXPECT_EQ(v.at("p50").as_string(), "0.120s");
  // Per replica, as the table's ex/sec column.
  EXPECT_DOUBLE_EQ(v.at("rows").at(0).at("perSecond").as_double(), 10 / 0.12);
}

TEST(ResultSummary, CollectivesHeadlineIsTheLargestAllreduceAndRowsStayUnderTheLimit) {
  report::Report r;
  r.kind = "Collectives";
  for (const char* group :
       {"allgather float32", "allreduce float32", "allreduce int64", "broadcast float32"}) {
    for (int bytes = 1024; bytes <= (1 << 26); bytes *= 2) {
      r.series.push_back(series(group, std::to_string(bytes), bytes * 1e-9 + 1e-5, bytes));
    }
  }
  const std::string json = resultSummaryJson(r, headlineOf(api::BenchmarkKind::Collectives));
  EXPECT_LE(json.size(), kTerminationMessageLimit);
  const value v = value::parse(json);
  EXPECT_EQ(v.at("headline").as_string(), "allreduce float32 67108864");
  EXPECT_TRUE(v.at("truncated").as_bool());
  EXPECT_EQ(v.at("rows").at(0).at("row").as_string(), "67108864");
  EXPECT_EQ(v.at("p50").as_string(), "0.067s");
}

TEST(ResultSummary, CarriesTheAttributionsLineAndDropsRowsRatherThanIt) {
  report::Report r;
  r.kind = "Collectives";
  for (int bytes = 1024; bytes <= (1 << 26); bytes *= 2) {
    r.series.push_back(series("allreduce float32", std::to_string(bytes), 1e-3, bytes));
    r.series.push_back(series("broadcast float32", std::to_string(bytes), 1e-3, bytes));
  }
  const std::string line(report::kSummaryLimit, 'b');
  r.attributionJson = R"({"summary":")" + line + R"(","rows":[]})";
  const std::string json = resultSummaryJson(r, headlineOf(api::BenchmarkKind::Collectives));
  EXPECT_LE(json.size(), kTerminationMessageLimit);
  const value v = value::parse(json);
  EXPECT_EQ(v.at("bottleneck").as_string(), line);
  EXPECT_TRUE(v.at("truncated").as_bool());
}

TEST(ResultSummary, WithoutAttributionHasNoBottleneck) {
  report::Report r;
  r.kind = "DDP";
  r.series = {series("resnet50 with batch size 32", "no ddp", 0.1)};
  const value v = value::parse(resultSummaryJson(r, headlineOf(api::BenchmarkKind::DDP)));
  EXPECT_FALSE(v.has_field("bottleneck"));
}

}  // namespace
}  // namespace distbench::worker
