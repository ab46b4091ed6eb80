// Reading a report from the master's log, and storing it beside a diff,
// within bounds: the master's image is the user's, and prints what it likes.
#include "distbench/operator/benchmarks/run_report.h"

#include <gtest/gtest.h>

#include <string>

#include "distbench/report/report_log.h"

namespace distbench::op {
namespace {

using web::json::value;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(RunReport, TheLogIsReadWithinTheBoundsOfTheLargestReport) {
  // Enough lines and bytes for the largest frame and what is printed around
  // it, and no more than a couple of MiB whatever the log holds.
  EXPECT_GE(masterLogTailLines(), report::reportLogFrameLines(kMaxStoredReportBytes) + 100);
  EXPECT_GE(masterLogLimitBytes(), report::reportLogFrameBytes(kMaxStoredReportBytes) + 64 * 1024);
  EXPECT_LE(masterLogLimitBytes(), 2u * 1024 * 1024);
  // As docs/crd-reference.md says them.
  EXPECT_EQ(masterLogTailLines(), 1302u);
  EXPECT_EQ(masterLogLimitBytes(), 1759218u);
  EXPECT_EQ(masterLogQuery(), "container=worker&tailLines=" + std::to_string(masterLogTailLines()) +
                                  "&limitBytes=" + std::to_string(masterLogLimitBytes()));
}

TEST(RunReport, AFrameAnnouncingMoreThanAConfigMapHoldsIsTooLargeUndecoded) {
  // The begin line alone says so: its lines are never decoded (there are
  // none here, and the checksum is nonsense).
  const std::string log =
      "master: done\n@@distbench-report begin v1 bytes=5000000000 fnv1a64=0000000000000000 "
      "lines=1\n@@distbench-report Zm9v\n@@distbench-report end\n";
  const ExtractedReport r = reportFromMasterLog(log, "big-master-0");
  EXPECT_FALSE(r.found);
  EXPECT_EQ(r.reason, "ReportTooLarge");
  EXPECT_TRUE(contains(r.message, "announces 5000000000 bytes")) << r.message;
  EXPECT_TRUE(contains(r.message, std::to_string(kMaxStoredReportBytes))) << r.message;
  EXPECT_TRUE(contains(r.message, "big-master-0")) << r.message;
}

TEST(RunReport, ALogCutAtTheBoundWithoutAWholeFrameIsTooLarge) {
  // What the kubelet answers for a log whose last lines are huge: the first
  // limitBytes of them, and a frame begun but cut.
  std::string log(masterLogLimitBytes() - 200, 'x');
  log += "\n" + report::reportLogLines(std::string(3000, '{')).substr(0, 150);
  log.resize(masterLogLimitBytes(), 'y');
  ExtractedReport r = reportFromMasterLog(log, "chatty-master-0");
  EXPECT_EQ(r.reason, "ReportTooLarge");
  EXPECT_TRUE(contains(r.message, std::to_string(masterLogLimitBytes()) + " bytes")) << r.message;
  // And one with no frame at all in the bytes read.
  r = reportFromMasterLog(std::string(masterLogLimitBytes(), 'z'), "chatty-master-0");
  EXPECT_EQ(r.reason, "ReportTooLarge");
  // Shorter than the bound, the log is whole: a missing frame is missing.
  r = reportFromMasterLog("master: done\n", "quiet-master-0");
  EXPECT_EQ(r.reason, "ReportMissing");
}

TEST(RunReport, TheDiffIsCutToWhatTheConfigMapHoldsBesideTheReport) {
  std::string diff;
  for (int i = 0; diff.size() < 300 * 1024; ++i)
    diff += "HybridDDPRPC / Trainer" + std::to_string(i) + "  0.0371s  0.0402s  +8.4%\n";
  bool cut = true;
  EXPECT_EQ(boundedDiff(diff, 10 * 1024, &cut), diff);
  EXPECT_FALSE(cut);

  const std::size_t report = kMaxStoredReportBytes;
  const std::string stored = boundedDiff(diff, report, &cut);
  EXPECT_TRUE(cut);
  EXPECT_LE(report + stored.size() + 32, kMaxReportConfigMapDataBytes);
  EXPECT_GT(stored.size(), 64u * 1024) << "cut far more than needed";
  // Whole lines, then one that says what happened.
  const std::size_t noteAt = stored.rfind('\n', stored.size() - 2) + 1;
  EXPECT_EQ(diff.compare(0, noteAt, stored, 0, noteAt), 0);
  EXPECT_TRUE(contains(stored.substr(noteAt), "cut: the whole table is " +
                                                  std::to_string(diff.size()) + " bytes"))
      << stored.substr(noteAt);
}

value configMap(const std::string& labels, const std::string& owners) {
  return value::parse(R"({"metadata":{"name":"x","labels":)" + labels +
                      R"(,"ownerReferences":)" + owners + "}}");
}

std::string owner(const std::string& name, bool controller = true,
                  const std::string& kind = "DistBenchmark") {
  return R"({"apiVersion":"distbench.io/v1alpha1","kind":")" + kind + R"(","name":")" + name +
         R"(","uid":"u","controller":)" + (controller ? "true" : "false") + "}";
}

TEST(RunReport, OnlyConfigMapsThatOptInServeAsABaseline) {
  api::Baseline byConfigMap;
  byConfigMap.configMap = api::ConfigMapKeyRef{"x", "report.json"};
  api::Baseline byBenchmark;
  byBenchmark.benchmark = "nightly";

  // Someone's ConfigMap: neither.
  const value plain = configMap("{}", "[]");
  EXPECT_FALSE(servesAsBaseline(plain, byConfigMap));
  EXPECT_FALSE(servesAsBaseline(plain, byBenchmark));
  EXPECT_FALSE(servesAsBaseline(configMap(R"({"distbench.io/baseline":"yes"})", "[]"), byConfigMap));
  // Labelled as a baseline.
  EXPECT_TRUE(servesAsBaseline(configMap(R"({"distbench.io/baseline":"true"})", "[]"), byConfigMap));
  // A DistBenchmark's report: any for configMap, that one for benchmark.
  const value nightly = configMap("{}", "[" + owner("nightly") + "]");
  EXPECT_TRUE(servesAsBaseline(nightly, byConfigMap));
  EXPECT_TRUE(servesAsBaseline(nightly, byBenchmark));
  EXPECT_FALSE(servesAsBaseline(configMap("{}", "[" + owner("other") + "]"), byBenchmark));
  EXPECT_FALSE(servesAsBaseline(configMap("{}", "[" + owner("nightly", false) + "]"), byBenchmark));
  EXPECT_FALSE(servesAsBaseline(configMap("{}", "[" + owner("nightly", true, "Deployment") + "]"),
                                byBenchmark));
  // A report left by an earlier benchmark of that name: labelled, no owner.
  EXPECT_TRUE(servesAsBaseline(configMap(R"({"distbench.io/benchmark":"nightly"})", "[]"), byBenchmark));
  EXPECT_FALSE(servesAsBaseline(configMap(R"({"distbench.io/benchmark":"nightly"})",
                                          "[" + owner("other") + "]"),
                                byBenchmark));
}

}  // namespace
}  // namespace distbench::op
