// `distbench report` as users run it: the built binary on real reports
// (testing/fixtures/report/README.md, testing/fixtures/diff/README.md). Exit statuses and
// messages follow `distbench diff`'s, which the refusal tests run beside it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "distbench/cli/report_page/chart_libraries.h"
#include "distbench/process/binary_runner.h"
#include "distbench/process/temp_dir.h"
#include "distbench/report/report_json.h"
#include "report_page/report_page_test_util.h"

namespace distbench::cli {
namespace {

using process::slurp;
using process::TempDir;
using testing::contains;
using testing::dataBlock;
using testing::kDiffFixtures;
using testing::kReportFixtures;
using Result = process::BinaryResult;

const std::string kTutorialPrePhases = kReportFixtures + "/tutorial-run-pre-phases.json";
const std::string kTutorial = kReportFixtures + "/tutorial-run.json";
const std::string kDdp = kReportFixtures + "/ddp-smallcnn.json";
const std::string kCollectives = kReportFixtures + "/collectives-tiny.json";

bool exists(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

class ReportBinary : public ::testing::Test {
 protected:
  void SetUp() override {
    if (chartLibraries().empty()) GTEST_SKIP() << "built with -DDISTBENCH_REPORT_HTML=OFF";
  }

  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }

  Result run(const std::string& command, const std::string& args) {
    return process::runCaptured("'" DISTBENCH_BINARY "' " + command + " " + args, path("stdout"),
                                path("stderr"));
  }

  TempDir dir_;
};

TEST_F(ReportBinary, WritesAPageForEachKind) {
  for (const std::string& report : {kTutorial, kTutorialPrePhases, kDdp, kCollectives}) {
    const Result r = run("report", report + " -o " + path("page.html"));
    ASSERT_EQ(r.exitCode, 0) << report << "\n" << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "distbench report: wrote " + path("page.html") + "\n");
    const std::string page = slurp(path("page.html"));
    EXPECT_EQ(page.rfind("<!DOCTYPE html>\n", 0), 0u) << report;
    EXPECT_TRUE(contains(page, "</html>\n")) << report;
    EXPECT_EQ(report::parseReport(dataBlock(page).at("report").serialize()).name,
              report::loadReportFile(report).name);
    EXPECT_FALSE(exists(path("page.html.partial")));
  }
}

TEST_F(ReportBinary, OutputFlagHasALongForm) {
  const Result r = run("report", kDdp + " --output=" + path("ddp.html"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(exists(path("ddp.html")));
}

TEST_F(ReportBinary, ComparesWithABaselineAndExitsOneOnARegressionAsDiffDoes) {
  // diff's documented example: run2 against run1 regresses over 2% (cli.md).
  const std::string base = kDiffFixtures + "/default-run2.json";
  const std::string test = kDiffFixtures + "/default-run1.json";
  const Result diff = run("diff", base + " " + test + " --threshold 2");
  const Result page =
      run("report", test + " --baseline " + base + " --threshold 2 -o " + path("page.html"));
  EXPECT_EQ(diff.exitCode, 1);
  EXPECT_EQ(page.exitCode, 1) << page.err;
  EXPECT_TRUE(contains(page.err, "regressions over 2% against the baseline")) << page.err;
  const std::string html = slurp(path("page.html"));
  // The diff's verdict line, word for word.
  const size_t at = diff.out.find("regressions over 2%");
  ASSERT_NE(at, std::string::npos) << diff.out;
  std::string verdict = diff.out.substr(at);
  verdict.pop_back();  // its newline
  EXPECT_TRUE(contains(html, "<p class=\"verdict bad\">" + verdict)) << verdict;
  EXPECT_EQ(dataBlock(html).at("charts").as_array().at(0).at("id").as_string(), "baseline-change");

  const Result relaxed =
      run("report", test + " --baseline " + base + " --threshold 50 -o " + path("relaxed.html"));
  EXPECT_EQ(relaxed.exitCode, 0) << relaxed.err;
  EXPECT_TRUE(contains(slurp(path("relaxed.html")), "<p class=\"verdict good\">no regressions"));
}

TEST_F(ReportBinary, RefusesABaselineOfAnotherKindWithDiffsMessage) {
  const Result diff = run("diff", kDdp + " " + kCollectives);
  const Result page =
      run("report", kCollectives + " --baseline " + kDdp + " -o " + path("page.html"));
  EXPECT_EQ(diff.exitCode, 2);
  EXPECT_EQ(page.exitCode, 2);
  EXPECT_EQ(page.err,
            "distbench report: cannot compare: base is a DDP benchmark, test a "
            "Collectives benchmark\n");
  EXPECT_EQ(page.err.substr(page.err.find(':')), diff.err.substr(diff.err.find(':')));
  EXPECT_FALSE(exists(path("page.html")));
}

TEST_F(ReportBinary, RefusesABaselineOfAnotherModelWithDiffsMessage) {
  // Both HybridDDPRPC, but the tutorial's model is not the default's.
  const std::string base = kDiffFixtures + "/default-run1.json";
  const std::string test = kDiffFixtures + "/tutorial-run1.json";
  const Result diff = run("diff", base + " " + test);
  const Result page = run("report", test + " --baseline " + base + " -o " + path("page.html"));
  EXPECT_EQ(page.exitCode, 2);
  EXPECT_TRUE(contains(page.err, "cannot compare: base benchmarks HybridDDPRPC")) << page.err;
  EXPECT_EQ(page.err.substr(page.err.find(':')), diff.err.substr(diff.err.find(':')));
  EXPECT_FALSE(exists(path("page.html")));
}

// As diff: a gate that compared nothing must not pass. The page is still
// written, saying why each row was not compared.
TEST_F(ReportBinary, ABaselineWithNoComparableRowExitsTwoAfterWritingThePage) {
  report::Report other = report::loadReportFile(kTutorial);
  for (report::Series& s : other.series) s.ranks = 7;
  report::writeReportFile(path("other-ranks.json"), other);
  const Result diff = run("diff", kTutorial + " " + path("other-ranks.json"));
  const Result page = run(
      "report", path("other-ranks.json") + " --baseline " + kTutorial + " -o " + path("page.html"));
  EXPECT_EQ(diff.exitCode, 2);
  EXPECT_EQ(page.exitCode, 2);
  EXPECT_TRUE(contains(page.err, "no row could be compared with the baseline")) << page.err;
  const std::string html = slurp(path("page.html"));
  EXPECT_TRUE(contains(html, "<p class=\"verdict bad\">nothing compared"));
  EXPECT_TRUE(contains(html,
                       "Not compared (they measured different things): Trainer0 (ranks 1 "
                       "vs 7)"));
  EXPECT_EQ(dataBlock(html).at("charts").as_array().at(0).at("id").as_string(), "hybrid-epoch-cdf");
}

TEST_F(ReportBinary, AnUnwritablePageIsNamedAndLeavesNothingBehind) {
  const std::string missingDir = path("no-such-dir") + "/page.html";
  Result r = run("report", kDdp + " -o " + missingDir);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err,
            "distbench report: cannot write " + missingDir + ": No such file or directory\n");

  // A directory in the way: the page is assembled beside it, then cannot replace it.
  ASSERT_EQ(::mkdir(path("taken").c_str(), 0755), 0);
  r = run("report", kDdp + " -o " + path("taken"));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err, "distbench report: cannot write " + path("taken") + ": Is a directory\n");
  EXPECT_FALSE(exists(path("taken.partial")));

  if (::geteuid() != 0) {  // root writes anywhere
    ASSERT_EQ(::mkdir(path("read-only").c_str(), 0555), 0);
    r = run("report", kDdp + " -o " + path("read-only") + "/page.html");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(contains(r.err, "cannot write " + path("read-only") + "/page.html: Permission"));
  }
}

// `distbench report` may run as root in a shared directory: no link planted
// beside the page (at the old temporary name PAGE.partial) is followed, and a
// page path that is a link is refused.
TEST_F(ReportBinary, APlantedLinkIsNotFollowed) {
  std::ofstream(path("victim")) << "keep";
  ASSERT_EQ(::symlink(path("victim").c_str(), path("page.html.partial").c_str()), 0);
  Result r = run("report", kDdp + " -o " + path("page.html"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(slurp(path("victim")), "keep");
  EXPECT_EQ(slurp(path("page.html")).rfind("<!DOCTYPE html>\n", 0), 0u);

  ASSERT_EQ(::symlink(path("victim").c_str(), path("linked.html").c_str()), 0);
  r = run("report", kDdp + " -o " + path("linked.html"));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "refusing to write " + path("linked.html") +
                                  ": it is a symbolic link"))
      << r.err;
  EXPECT_EQ(slurp(path("victim")), "keep");
}

TEST_F(ReportBinary, AnUnreadableReportIsNamed) {
  std::ofstream(path("broken.json")) << "{\"schemaVersion\": 2}";
  Result r = run("report", path("broken.json") + " -o " + path("page.html"));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "distbench report: " + path("broken.json") + ": ")) << r.err;
  r = run("report", kDdp + " --baseline " + path("missing.json") + " -o " + path("page.html"));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, path("missing.json"))) << r.err;
  EXPECT_FALSE(exists(path("page.html")));
}

TEST_F(ReportBinary, BadCommandLinesExitTwoWithUsage) {
  for (const std::string& args :
       {std::string(""), kDdp, kDdp + " " + kTutorial + " -o " + path("p.html"),
        kDdp + " -o " + path("p.html") + " --threshold 5",
        kDdp + " -o " + path("p.html") + " --baseline " + kDdp + " --threshold -1",
        kDdp + " -o " + path("p.html") + " --bogus"}) {
    const Result r = run("report", args);
    EXPECT_EQ(r.exitCode, 2) << args;
    EXPECT_TRUE(contains(r.err, "see 'distbench report --help'")) << args << "\n" << r.err;
  }
  EXPECT_TRUE(contains(run("report", kDdp).err, "missing -o FILE"));
  EXPECT_TRUE(contains(run("report", kDdp + " -o x --seed 3").err, "--seed needs --baseline"));
  EXPECT_FALSE(exists(path("p.html")));
}

TEST_F(ReportBinary, HelpDescribesTheCommand) {
  const Result r = run("report", "--help");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.out.rfind("usage: distbench report RUN.json -o PAGE.html", 0), 0u) << r.out;
  EXPECT_TRUE(contains(r.out, "--threshold PCT"));
  EXPECT_TRUE(contains(run("--help", "").out, "  report RUN -o PAGE.html"));
}

// Reports of the tutorial fixture written into the test's directory, each
// run's samples scaled: run-1 .. run-N.
std::vector<std::string> writeRuns(const std::string& dir, const std::vector<double>& scales) {
  const report::Report base = report::loadReportFile(kTutorial);
  std::vector<std::string> files;
  for (double scale : scales) {
    report::Report r = base;
    for (report::Series& s : r.series) {
      for (double& seconds : s.samples) seconds *= scale;
    }
    files.push_back(dir + "/run-" + std::to_string(files.size() + 1) + ".json");
    report::writeReportFile(files.back(), r);
  }
  return files;
}

std::string joined(const std::vector<std::string>& files) {
  std::string text;
  for (const std::string& f : files) text += " " + f;
  return text;
}

TEST_F(ReportBinary, TrendPrintsEachRunsVerdictAndExitsOneWhenTheNewestRegressed) {
  const std::vector<std::string> files = writeRuns(dir_.path(), {1.0, 1.01, 0.99, 1.0, 1.5});
  Result r = run("report", "--trend" + joined(files) + " -o " + path("trend.html"));
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_TRUE(contains(r.out,
                       "run-1: NoBaseline\nrun-2: NoBaseline\nrun-3: NoRegression against 2 "
                       "runs; worst HybridDDPRPC / "))
      << r.out;
  EXPECT_TRUE(contains(r.out, "\nrun-5: Regression against 4 runs; worst HybridDDPRPC / "))
      << r.out;
  EXPECT_TRUE(contains(r.out, " +50.0% [")) << r.out;
  EXPECT_TRUE(contains(r.err, "the newest run regressed over 5% against the runs before it"));
  EXPECT_TRUE(contains(slurp(path("trend.html")), "id=\"trend\""));

  // The same runs without the slow one; and a smaller pool and a threshold
  // above the slowdown.
  const std::vector<std::string> unchanged(files.begin(), files.end() - 1);
  r = run("report", "--trend" + joined(unchanged) + " -o " + path("trend.html"));
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  r = run("report", "--trend" + joined(files) + " -o " + path("trend.html") +
                        " --baseline-runs 2 --threshold 60");
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "run-5: NoRegression against 2 runs")) << r.out;
}

TEST_F(ReportBinary, TrendNamesRunsByTheirFilesAndByPathWhereTwoShareAName) {
  const std::vector<std::string> files = writeRuns(dir_.path(), {1.0, 1.0});
  ASSERT_EQ(::mkdir(path("again").c_str(), 0700), 0);
  const std::string again = path("again/run-1.json");
  report::writeReportFile(again, report::loadReportFile(files[0]));
  Result r = run("report", "--trend" + joined(files) + " -o " + path("p.html"));
  EXPECT_EQ(r.out, "run-1: NoBaseline\nrun-2: NoBaseline\n");
  r = run("report", "--trend" + joined(files) + " " + again + " -o " + path("p.html"));
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.rfind(files[0] + ": NoBaseline\n" + files[1] + ": NoBaseline\n" + again +
                            ": NoRegression against 2 runs",
                        0),
            0u)
      << r.out;
}

TEST_F(ReportBinary, TrendRefusesWhatItCannotDo) {
  const std::vector<std::string> files = writeRuns(dir_.path(), {1.0, 1.0});
  const std::string out = " -o " + path("p.html");
  EXPECT_TRUE(contains(run("report", "--trend " + files[0] + out).err,
                       "--trend needs at least two reports"));
  EXPECT_TRUE(contains(run("report", "--trend" + joined(files) + out + " --baseline " + kDdp).err,
                       "--baseline goes without --trend"));
  EXPECT_TRUE(contains(run("report", files[0] + out + " --baseline-runs 3").err,
                       "--baseline-runs needs --trend"));
  EXPECT_TRUE(contains(run("report", "--trend" + joined(files) + out + " --baseline-runs 0").err,
                       "--baseline-runs needs a whole number >= 1, not '0'"));
  // A DDP report after HybridDDPRPC ones: the newest run cannot be judged.
  const Result r = run("report", "--trend" + joined(files) + " " + kDdp + out);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.out,
                       "ddp-smallcnn: Incomparable against 2 runs (cannot compare: base is a "
                       "HybridDDPRPC"))
      << r.out;
}

}  // namespace
}  // namespace distbench::cli
