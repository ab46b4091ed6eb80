// `distbench diff` as users run it: the built binary on report files. The
// fixtures are real runs of the default and tutorial presets (see
// testing/fixtures/diff/README.md); the rest are written here with writeReportFile.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>

#include "distbench/process/binary_runner.h"
#include "distbench/process/temp_dir.h"
#include "distbench/report/report_json.h"
#include "distbench/testing/report/diff_test_reports.h"

namespace distbench::cli {
namespace {

using report::testing::around;
using report::testing::ddpReport;
using report::testing::ddpSeries;
using Result = process::BinaryResult;
using process::TempDir;
using process::slurp;

const std::string kFixtures = DIFF_FIXTURE_DIR;
const std::string kRun1 = kFixtures + "/default-run1.json";
const std::string kRun2 = kFixtures + "/default-run2.json";
const std::string kTutorial = kFixtures + "/tutorial-run1.json";
const std::string kTutorial2 = kFixtures + "/tutorial-run2.json";

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class DiffBinary : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }

  std::string write(const std::string& name, const report::Report& report) {
    report::writeReportFile(path(name), report);
    return path(name);
  }

  Result diff(const std::string& args) {
    return process::runCaptured("'" DISTBENCH_BINARY "' diff " + args, path("stdout"),
                                path("stderr"));
  }

  TempDir dir_;
};

TEST_F(DiffBinary, ComparesTwoRealRuns) {
  const Result r = diff(kRun1 + " " + kRun2);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(std::regex_search(r.out, std::regex("(^|\n) +baseline +test\n")));
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex("\npytorch_version: +1\\.13\\.0  vs  +1\\.13\\.0\n")));
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nbucket_size: +25  vs  +25\n")));
  EXPECT_TRUE(has(r.out, "\n\nBenchmark: HybridDDPRPC\n\n")) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n +sec/epoch +ex/sec +diff +sec/epoch")));
  // Run 2 is faster: the median of the pooled epochs is 2.8% lower, and 800
  // samples make that significant.
  EXPECT_TRUE(has(r.out, "\n      All:  p75:    0.554s     998/s     -2.5%  p95:")) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("median   -2\\.8% \\[-[0-9.]+%, -[0-9.]+%\\]\n")))
      << r.out;
  for (int i = 0; i < 8; ++i) {
    EXPECT_TRUE(has(r.out, "\n Trainer" + std::to_string(i) + ":  p75:")) << i;
  }
  EXPECT_FALSE(has(r.out, "regressions")) << "no threshold, no verdict";
}

TEST_F(DiffBinary, SameSeedSameOutput) {
  const std::string first = diff(kRun1 + " " + kRun2 + " --seed 7").out;
  EXPECT_EQ(diff(kRun1 + " " + kRun2 + " --seed 7").out, first);
  EXPECT_NE(diff(kRun1 + " " + kRun2 + " --seed 8").out, first) << "the intervals move";
}

TEST_F(DiffBinary, ThresholdExits1OnASignificantSlowdown) {
  // Reversed: run 1 took 2.9% longer per epoch than run 2.
  const Result r = diff(kRun2 + " " + kRun1 + " --threshold 2");
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("\nregressions over 2% \\(median slower, 95% CI above 0\\): "
                        "HybridDDPRPC: [^\n]*HybridDDPRPC: All \\+2\\.9%\n$")))
      << r.out;

  const Result over = diff(kRun2 + " " + kRun1 + " --threshold 10");
  EXPECT_EQ(over.exitCode, 0) << over.err;
  EXPECT_TRUE(has(over.out, "\nno regressions over 10% (median slower, 95% CI above 0)\n"))
      << over.out;

  const Result faster = diff(kRun1 + " " + kRun2 + " --threshold 0");
  EXPECT_EQ(faster.exitCode, 0) << "a speedup is no regression";
}

TEST_F(DiffBinary, NoisySlowdownsAreNoRegression) {
  // Two tutorial runs: p75 up 8-10%, but every median's interval spans at
  // least -12% to +16%: 100 epochs of 30 ms are too noisy to tell.
  const Result r = diff(kTutorial + " " + kTutorial2 + " --threshold 1");
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex("\n      All:  p75: +0\\.041s +[0-9]+/s +\\+7\\.7%")))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\\] n\\.s\\.\n\n"))) << r.out;
  EXPECT_TRUE(has(r.out, "\nno regressions over 1% (median slower, 95% CI above 0)\n")) << r.out;
}

TEST_F(DiffBinary, PercentilesConfidenceAndResamplesApply) {
  const Result r =
      diff(kRun1 + " " + kRun2 + " --percentiles 50,99 --confidence 0.8 --resamples 300");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(has(r.out, "      All:  p50: ")) << r.out;
  EXPECT_TRUE(has(r.out, "  p99: ")) << r.out;
  EXPECT_FALSE(has(r.out, "p75")) << r.out;
  EXPECT_TRUE(has(r.out, "80% CI")) << r.out;
}

TEST_F(DiffBinary, RefusesDifferentModels) {
  const Result r = diff(kRun1 + " " + kTutorial);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "distbench diff: cannot compare: base benchmarks HybridDDPRPC, test benchmarks "
            "HybridDDPRPC (denseLayers 256,128,ReLU,64,32,8 vs 8, embeddingDim 64 vs 16, "
            "numEmbeddings 300 vs 100)\n");
}

// JSON can spell a number a double cannot hold (1e999 reads as infinity):
// a report holding one is refused, naming the field, not compared.
TEST_F(DiffBinary, ANonFiniteSampleExits2NamingIt) {
  std::string text = slurp(kTutorial);
  const std::string first = "\"samples\":[";
  const size_t at = text.find(first);
  ASSERT_NE(at, std::string::npos);
  const size_t begin = at + first.size();
  text.replace(begin, text.find(',', begin) - begin, "1e999");
  const std::string broken = path("broken.json");
  std::ofstream(broken) << text;
  const Result r = diff(kTutorial + " " + broken);
  EXPECT_EQ(r.exitCode, 2) << r.out;
  EXPECT_TRUE(has(r.err, broken + ": series[0].samples[0]: must be a finite number")) << r.err;
}

TEST_F(DiffBinary, RefusesDifferentBatchSizesAndKinds) {
  const std::string bs32 =
      write("bs32.json", ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, around(0.1, 0.01))}));
  const std::string bs16 =
      write("bs16.json", ddpReport({ddpSeries("resnet50", 16, "1M/1R", 1, around(0.1, 0.01))}));
  const Result r = diff(bs32 + " " + bs16);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(has(r.err,
                  "distbench diff: cannot compare: base benchmarks resnet50 with batch "
                  "size 32, test benchmarks resnet50 with batch size 16 (batchSize 32 vs "
                  "16)\n"))
      << r.err;

  const Result kinds = diff(bs32 + " " + kRun1);
  EXPECT_EQ(kinds.exitCode, 2);
  EXPECT_TRUE(has(kinds.err,
                  "cannot compare: base is a DDP benchmark, test a HybridDDPRPC "
                  "benchmark"))
      << kinds.err;
}

TEST_F(DiffBinary, ListsRowsInOnlyOneReport) {
  const std::string base =
      write("base.json", ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, around(0.1, 0.01)),
                                    ddpSeries("resnet50", 32, "1M/2R", 2, around(0.1, 0.01))}));
  const std::string test =
      write("test.json", ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, around(0.1, 0.01)),
                                    ddpSeries("resnet50", 32, "1M/4R", 4, around(0.1, 0.01))}));
  const Result r = diff(base + " " + test);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(has(r.out, "  only in base: 1M/2R\n  only in test: 1M/4R\n")) << r.out;
}

// A --threshold gate in CI must not pass because nothing was compared.
TEST_F(DiffBinary, NothingComparedExits2EvenWithAThreshold) {
  const std::string base =
      write("base.json", ddpReport({ddpSeries("resnet50", 32, "1M/2R", 2, around(0.1, 0.01))}));
  const std::string test =
      write("test.json", ddpReport({ddpSeries("resnet50", 32, "1M/2R", 4, around(0.1, 0.01))}));
  const Result r = diff(base + " " + test + " --threshold 5");
  EXPECT_EQ(r.exitCode, 2) << r.out;
  EXPECT_TRUE(has(r.out, "  not compared: 1M/2R (ranks 2 vs 4)\n")) << r.out;
  EXPECT_TRUE(has(r.out, "nothing compared: no row is in both reports with the same work\n"))
      << r.out;
  EXPECT_FALSE(has(r.out, "no regressions")) << r.out;
  EXPECT_TRUE(has(r.err, "no row could be compared")) << r.err;
}

// Two runs of the default preset differ in mean examples per epoch only by
// the batch generator's draws: compared per example, a slowdown per example
// is found and an equal speed per example is not one.
TEST_F(DiffBinary, EpochRowsWhoseWorkDiffersByChanceAreComparedPerExample) {
  auto hybrid = [](double examplesPerEpoch, double secondsPerEpoch) {
    report::Series s = ddpSeries("m", 1, "All", 1, around(secondsPerEpoch, 0.01));
    s.group = "HybridDDPRPC";
    s.groupKey = {{"batchesPerEpoch", "10"}};
    s.sampleOf = "epoch";
    s.workPerSample = examplesPerEpoch;
    report::Report r = ddpReport({s});
    r.kind = "HybridDDPRPC";
    return r;
  };
  const std::string base = write("base.json", hybrid(69.87, 0.6987));
  const std::string same = write("same.json", hybrid(69.19, 0.6919));
  const std::string slower = write("slower.json", hybrid(69.19, 0.6919 * 1.10));

  const Result r = diff(base + " " + same + " --threshold 5");
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "  per unit of work, test scaled to base's: All (examples per epoch "
                         "69.87 vs 69.19)\n"))
      << r.out;
  EXPECT_TRUE(has(r.out, "no regressions over 5%")) << r.out;

  const Result s = diff(base + " " + slower + " --threshold 5");
  EXPECT_EQ(s.exitCode, 1) << s.out << s.err;
  EXPECT_TRUE(has(s.out, "HybridDDPRPC: All +10.0%")) << s.out;
}

TEST_F(DiffBinary, UnreadableReportsExit2NamingTheFile) {
  const Result missing = diff(path("nowhere.json") + " " + kRun1);
  EXPECT_EQ(missing.exitCode, 2);
  EXPECT_EQ(missing.err, "distbench diff: cannot read " + path("nowhere.json") +
                             ": No such file or directory\n");

  std::ofstream(path("v1.json")) << R"({"schemaVersion": 1, "results": {}})";
  const Result old = diff(kRun1 + " " + path("v1.json"));
  EXPECT_EQ(old.exitCode, 2);
  EXPECT_TRUE(has(old.err, path("v1.json") + ": schemaVersion: is 1, this distbench reads "
                                             "schema version 2"))
      << old.err;

  std::ofstream(path("junk.json")) << "not json";
  const Result junk = diff(path("junk.json") + " " + kRun1);
  EXPECT_EQ(junk.exitCode, 2);
  EXPECT_TRUE(has(junk.err, path("junk.json") + ": not valid JSON")) << junk.err;
}

TEST_F(DiffBinary, BadCommandLinesExit2WithUsageHint) {
  const std::pair<std::string, std::string> cases[] = {
      {kRun1, "missing TEST"},
      {"", "missing BASE and TEST"},
      {kRun1 + " " + kRun2 + " " + kRun2, "expected two reports, BASE and TEST, not 3 files"},
      {kRun1 + " " + kRun2 + " --bogus", "unknown flag --bogus"},
      {kRun1 + " " + kRun2 + " --threshold -1", "--threshold needs a percentage >= 0, not '-1'"},
      {kRun1 + " " + kRun2 + " --threshold 5%", "--threshold needs a percentage >= 0, not '5%'"},
      {kRun1 + " " + kRun2 + " --confidence 95",
       "--confidence needs a confidence between 0 and 1 (0.95 for 95%), not '95'"},
      {kRun1 + " " + kRun2 + " --resamples 0", "--resamples needs a whole number >= 1, not '0'"},
      {kRun1 + " " + kRun2 + " --percentiles 75,101",
       "--percentiles needs whole numbers 0-100 separated by commas, not '75,101'"},
      {kRun1 + " " + kRun2 + " --percentiles ''",
       "--percentiles needs whole numbers 0-100 separated by commas, not ''"},
      {kRun1 + " " + kRun2 + " --seed -3", "--seed needs a whole number >= 0, not '-3'"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = diff(args);
    EXPECT_EQ(r.exitCode, 2) << args;
    EXPECT_EQ(r.err, "distbench diff: " + message + "\nsee 'distbench diff --help'\n") << args;
    EXPECT_EQ(r.out, "") << args;
  }
}

TEST_F(DiffBinary, HelpDescribesTheFlags) {
  const Result r = diff("--help");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.out.rfind("usage: distbench diff BASE TEST [flags]\n", 0), 0u) << r.out;
  for (const char* flag :
       {"--percentiles", "--threshold", "--confidence", "--resamples", "--seed"}) {
    EXPECT_TRUE(has(r.out, flag)) << flag;
  }
  const std::string main = "'" DISTBENCH_BINARY "' --help >'" + path("main") + "'";
  ASSERT_EQ(std::system(main.c_str()), 0);
  EXPECT_TRUE(has(slurp(path("main")), "\n  diff BASE TEST ")) << slurp(path("main"));
}

}  // namespace
}  // namespace distbench::cli
