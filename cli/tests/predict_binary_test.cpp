// `distbench predict` as users run it: the built binary on the real reports
// of testing/fixtures/report (README.md there) and on a synthetic DDP report
// with bucket timings, as the worker writes them for issue 22.
#include <cpprest/json.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "distbench/process/binary_runner.h"
#include "distbench/process/temp_dir.h"
#include "distbench/report/prediction.h"
#include "distbench/report/report_json.h"

namespace distbench::cli {
namespace {

using Result = process::BinaryResult;
using web::json::value;

const std::string kFixtures = REPORT_FIXTURE_DIR;
const std::string kDdp = kFixtures + "/ddp-smallcnn.json";
const std::string kHybrid = kFixtures + "/tutorial-run.json";
const std::string kCollectives = kFixtures + "/collectives-tiny.json";

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class PredictBinary : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }

  Result run(const std::string& args) {
    // Under `timeout`: a prediction that loops without bound fails the
    // test instead of hanging it.
    return process::runCaptured("timeout -s KILL 10 '" DISTBENCH_BINARY "' predict " + args,
                                path("stdout"), path("stderr"));
  }

  // The predicted p50 of `row` from --json output.
  double predicted(const std::string& args, const std::string& row) {
    const Result r = run(args + " --json");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    const value doc = value::parse(r.out);
    for (const value& v : doc.at("rows").as_array()) {
      if (v.at("row").as_string() == row) return v.at("predictedSeconds").as_double();
    }
    ADD_FAILURE() << "no row " << row << " in " << r.out;
    return 0;
  }

  process::TempDir dir_;
};

TEST_F(PredictBinary, PrintsATableAndTheModelForEachKind) {
  for (const std::string& report : {kDdp, kHybrid, kCollectives}) {
    const Result r = run(report + " --bandwidth 100mbit");
    ASSERT_EQ(r.exitCode, 0) << report << "\n" << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_TRUE(has(r.out, "group")) << r.out;
    for (const char* column : {"row", "measured p50", "predicted p50", "bound", "efficiency"}) {
      EXPECT_TRUE(has(r.out, column)) << column << "\n" << r.out;
    }
    EXPECT_TRUE(has(r.out, "model: eta 0.87, beta = 8/(eta*B) = 9.2e-08 s/byte at 100mbit"))
        << r.out;
    // Every series of the report is a row of the table.
    for (const report::Series& s : report::loadReportFile(report).series) {
      EXPECT_TRUE(has(r.out, s.row)) << s.row;
    }
  }
}

TEST_F(PredictBinary, ASlowerLinkSlowsTheRowsThatCommunicateOnly) {
  const report::Report ddp = report::loadReportFile(kDdp);
  const Result r = run(kDdp + " --bandwidth 100mbit --json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const value doc = value::parse(r.out);
  for (const value& row : doc.at("rows").as_array()) {
    const double measured = row.at("measuredSeconds").as_double();
    const double p = row.at("predictedSeconds").as_double();
    if (row.at("row").as_string() == "1M/2R") {
      // 1.57 MB of gradients each way at 100mbit: over 100 ms more.
      EXPECT_GT(p, measured + 0.1);
      EXPECT_EQ(row.at("bound").as_string(), "communication");
      EXPECT_FALSE(row.at("lowerSeconds").is_null());  // this report has no bucket timings
    } else {
      EXPECT_NEAR(p, measured, 1e-4) << row.at("row").as_string();
    }
  }
  EXPECT_EQ(doc.at("model").at("efficiency").as_double(), 0.87);
  EXPECT_LT(predicted(kDdp + " --bandwidth 1gbit", "1M/2R"),
            predicted(kDdp + " --bandwidth 100mbit", "1M/2R"));
}

TEST_F(PredictBinary, TheSlowestRankPacesTheRingAndMoreRanksCostMore) {
  const double slowRank = predicted(kDdp + " --bandwidth 1gbit --rank 2=50mbit", "1M/2R");
  EXPECT_DOUBLE_EQ(slowRank, predicted(kDdp + " --bandwidth 50mbit", "1M/2R"));
  EXPECT_DOUBLE_EQ(predicted(kDdp + " --bandwidth 1gbit --rank=2=50mbit", "1M/2R"), slowRank);
  EXPECT_GT(predicted(kDdp + " --bandwidth 100mbit --world-size 8", "1M/2R"),
            predicted(kDdp + " --bandwidth 100mbit", "1M/2R"));
  // More trainers load the one PS of the tutorial run; its 3 KB messages
  // slow it much only on a slow link (at 100mbit the RPCs' own time is the
  // longer, and the wire adds little to it).
  EXPECT_GT(predicted(kHybrid + " --bandwidth 1mbit --world-size 8", "Trainer0"),
            predicted(kHybrid + " --bandwidth 1mbit", "Trainer0"));
  const double asMeasured = predicted(kHybrid + "", "Trainer0");
  EXPECT_GE(predicted(kHybrid + " --bandwidth 100mbit", "Trainer0"), asMeasured);
  EXPECT_LT(predicted(kHybrid + " --bandwidth 100mbit", "Trainer0"), 1.2 * asMeasured);
  // A higher efficiency means less wire time.
  EXPECT_LT(predicted(kHybrid + " --bandwidth 1mbit --efficiency 1", "Trainer0"),
            predicted(kHybrid + " --bandwidth 1mbit", "Trainer0"));
}

TEST_F(PredictBinary, ReplaysBucketTimingsWhenTheReportHasThem) {
  // The DDP fixture with bucket timings added, as the worker writes them:
  // one bucket of all gradients launched at the end of backward.
  report::Report r = report::loadReportFile(kDdp);
  value results = value::parse(r.resultsJson);
  value& row = results.at("models").at(0).at("rows").at(2);
  const double backward = row.at("phases").at("backward").at("p50").as_double();
  const double bytes = 4.0 * results.at("models").at(0).at("parameters").as_double();
  value bucket = value::object();
  bucket["index"] = 0;
  bucket["parameters"] = 10;
  bucket["bytes"] = bytes;
  bucket["firstGradient"] = 0.0;
  bucket["launched"] = backward;
  bucket["completed"] = backward + 0.001;
  row["buckets"] = value::array({bucket});
  row["gradientBytes"] = bytes;
  r.resultsJson = results.serialize();
  report::writeReportFile(path("buckets.json"), r);

  const Result text = run(path("buckets.json") + " --bandwidth 100mbit");
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_TRUE(has(text.out, "1 bucket(s) replayed at their measured share of backward")) << text.out;
  report::PredictOptions options;
  options.bitsPerSecond = 100e6;
  double expected = 0;
  for (const auto& p : report::predict(r, options)) {
    if (p.row == "1M/2R") expected = p.predictedSeconds;
  }
  EXPECT_NEAR(predicted(path("buckets.json") + " --bandwidth 100mbit", "1M/2R"), expected, 1e-9);
}

TEST_F(PredictBinary, BadInputExitsTwoNamingTheFlag) {
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {kDdp + " --bandwidth fast", "--bandwidth"},
      {kDdp + " --bandwidth 0", "--bandwidth"},
      {kDdp + " --rank 9=1gbit", "--rank 9: no such rank"},
      {kDdp + " --rank two=1gbit", "--rank"},
      {kDdp + " --rank 2", "--rank needs N=RATE"},
      {kDdp + " --rank 2=slow", "--rank 2"},
      {kDdp + " --efficiency 1.5", "--efficiency"},
      {kDdp + " --world-size 0", "--world-size"},
      {kDdp + " --world-size many", "--world-size"},
      {kDdp + " --parameter-servers 2", "--parameter-servers: only a HybridDDPRPC run"},
      {kHybrid + " --parameter-servers 0", "--parameter-servers"},
      {kDdp + " --link-burst lots", "--link-burst"},
      {kDdp + " --link-burst -5", "--link-burst"},
      {kDdp + " --latency 1ms", "--latency"},
      {"--bandwidth 1gbit", "missing REPORT"},
      {kDdp + " " + kDdp, "expected one report"},
  };
  for (const Case& c : cases) {
    const Result r = run(c.args);
    EXPECT_EQ(r.exitCode, 2) << c.args;
    EXPECT_TRUE(has(r.err, c.message)) << c.args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << c.args;
  }
}

// A report crafted to make the model loop or allocate without bound (one
// bucket per bucketCapMB of gradients, one entry per rank) is refused
// before anything is modelled, naming what to fix, and at once.
TEST_F(PredictBinary, ACraftedReportExitsTwoWithinTwoSecondsNamingTheField) {
  struct Case {
    std::string report;  // a fixture, or a file crafted from the DDP one
    std::function<void(report::Report&, value&)> craft;
    std::string args, message;
  };
  auto row = [](value& results) -> value& { return results.at("models").at(0).at("rows").at(2); };
  const std::vector<Case> cases = {
      {"huge-gradients.json", [&](report::Report&, value& v) { row(v)["gradientBytes"] = 1e300; },
       "", "results.models[0].rows[2].gradientBytes"},
      {"tiny-buckets.json",
       [&](report::Report& r, value& v) {
         r.bucketCapMB = 1e-9;
         row(v)["gradientBytes"] = 1e12;
       },
       "", "bucketCapMB"},
      {"many-ranks.json", [&](report::Report&, value& v) { row(v)["ranks"] = 1e9; }, "",
       "results.models[0].rows[2].ranks"},
      {"many-trainers.json", [](report::Report& r, value&) { r.trainers = 1000000000; }, "",
       "topology.trainers"},
      {kDdp, nullptr, " --world-size 1000000000", "--world-size"},
      {kHybrid, nullptr, " --world-size 1000000000", "--world-size"},
  };
  for (const Case& c : cases) {
    std::string file = c.report;
    if (c.craft) {
      report::Report r = report::loadReportFile(kDdp);
      value results = value::parse(r.resultsJson);
      c.craft(r, results);
      r.resultsJson = results.serialize();
      file = path(c.report);
      report::writeReportFile(file, r);
    }
    const auto start = std::chrono::steady_clock::now();
    const Result result = run("--bandwidth 100mbit " + file + c.args);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(result.exitCode, 2) << c.report << c.args << "\n" << result.out << result.err;
    EXPECT_LT(seconds, 2.0) << c.report << c.args;
    EXPECT_TRUE(has(result.err, c.message)) << c.report << c.args << "\n" << result.err;
    EXPECT_EQ(result.out, "") << c.report << c.args;
  }
}

TEST_F(PredictBinary, AnUnreadableReportExitsTwo) {
  const Result r = run(path("missing.json") + " --bandwidth 1gbit");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(has(r.err, "distbench predict: ")) << r.err;
  EXPECT_TRUE(has(r.err, "missing.json")) << r.err;
}

TEST_F(PredictBinary, HelpDescribesTheFlags) {
  const Result r = run("--help");
  ASSERT_EQ(r.exitCode, 0);
  for (const char* flag : {"--bandwidth", "--rank", "--world-size", "--parameter-servers",
                           "--link-burst", "--efficiency", "--json"}) {
    EXPECT_TRUE(has(r.out, flag)) << flag;
  }
}

}  // namespace
}  // namespace distbench::cli
