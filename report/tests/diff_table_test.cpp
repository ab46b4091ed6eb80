#include "distbench/report/diff_table.h"

#include <gtest/gtest.h>

#include <sstream>

#include "distbench/testing/report/diff_test_reports.h"

namespace distbench::report {
namespace {

using testing::ddpReport;
using testing::ddpSeries;

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string spaces(size_t n) { return std::string(n, ' '); }

// A row with the percentiles and the median change given outright, so the
// expected text does not depend on the bootstrap.
RowDiff row(const Series& series, std::vector<double> base, std::vector<double> test, double median,
            double low, double high) {
  RowDiff r;
  r.base = &series;
  r.test = &series;
  r.basePercentiles = std::move(base);
  r.testPercentiles = std::move(test);
  r.median = {median, low, high, low > 0 || high < 0};
  return r;
}

GroupDiff group(const Series& series, std::vector<RowDiff> rows) {
  GroupDiff g;
  g.group = series.group;
  g.sampleOf = series.sampleOf;
  g.workUnit = series.workUnit;
  g.rows = std::move(rows);
  return g;
}

TEST(DiffTable, MetadataIsTheSeedLayoutWithBaseAndTestSideBySide) {
  auto base = ddpReport({}, 25);
  auto test = ddpReport({}, 1);
  test.versions["cuda"] = "11.7";
  test.backend = "nccl";
  const std::vector<std::string> lines = linesOf(formatMetadata(base, test));
  EXPECT_EQ(lines[0], spaces(20) + " " + spaces(12) + "baseline" + spaces(6) + spaces(16) + "test");
  EXPECT_EQ(lines[1], spaces(20) + " " + std::string(20, '-') + spaces(6) + std::string(20, '-'));
  auto line = [&](const std::string& key) {
    for (const std::string& l : lines) {
      if (l.rfind(key + ":", 0) == 0) return l;
    }
    return std::string("(no " + key + ")");
  };
  // diff.py: f"{key + ':':20s} {va:>20s}  vs  {vb:>20s}".
  EXPECT_EQ(line("bucket_size"),
            "bucket_size:" + spaces(8) + " " + spaces(18) + "25  vs  " + spaces(19) + "1");
  EXPECT_EQ(line("cuda_version"),
            "cuda_version:" + spaces(7) + " " + spaces(17) + "n/a  vs  " + spaces(16) + "11.7");
  EXPECT_EQ(line("distributed_backend"),
            "distributed_backend: " + spaces(16) + "gloo  vs  " + spaces(16) + "nccl");
  EXPECT_EQ(line("pytorch_version"), "pytorch_version:" + spaces(4) + " " + spaces(14) +
                                         "1.13.1  vs  " + spaces(14) + "1.13.1");
  for (const char* key : {"device", "distbench_version", "host_cpu", "trainers", "world_size",
                          "parameter_servers", "gpus", "nccl_version", "cuda_driver_version",
                          "cudnn_version"}) {
    EXPECT_NE(line(key).rfind(key, 0), std::string::npos) << key;
  }
  EXPECT_EQ(lines.back(), "") << "a blank line before the first group";
}

TEST(DiffTable, LongValuesWidenTheColumnsForEveryLine) {
  auto base = ddpReport({});
  base.host.cpuModel = "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz";  // 45 characters
  const std::vector<std::string> lines = linesOf(formatMetadata(base, base));
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    EXPECT_EQ(lines[i].size(), 20 + 1 + 45 + 6 + 45) << lines[i];
  }
}

TEST(DiffTable, GpusAreCountedWhenAllTheSame) {
  auto base = ddpReport({});
  auto test = base;
  test.host.gpus = {"NVIDIA H100", "NVIDIA H100"};
  const std::string text = formatMetadata(base, test);
  EXPECT_NE(text.find("none  vs  " + spaces(5) + "2 x NVIDIA H100\n"), std::string::npos) << text;
}

TEST(DiffTable, RowsShowTestTimeRateAndSignedChangePerPercentile) {
  const Series s = ddpSeries("resnet50", 32, "1M/2R", 2, {0.1});
  const GroupDiff g = group(s, {row(s, {0.100, 0.100}, {0.101, 0.110}, 0.032, 0.011, 0.050),
                                row(s, {0.100, 0.100}, {0.095, 0.100}, -0.05, -0.08, 0.004)});
  const std::vector<std::string> lines = linesOf(formatGroup(g, {}));
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0], "Benchmark: resnet50 with batch size 32");
  EXPECT_EQ(lines[1], "");
  // The seed's widths: {:>10}, then {:>16}{:>10}{:>10} per percentile.
  EXPECT_EQ(lines[2], spaces(10) + spaces(8) + "sec/iter" + spaces(4) + "ex/sec" + spaces(6) +
                          "diff" + spaces(8) + "sec/iter" + spaces(4) + "ex/sec" + spaces(6) +
                          "diff" + spaces(12) + "diff" + spaces(9) + "95% CI");
  // 32 / 0.101 = 316.8 ex/s; +1.0% is (0.101 - 0.100) / 0.100: slower.
  EXPECT_EQ(lines[3],
            "    1M/2R:  p75:    0.101s     317/s     +1.0%  p95:    0.110s     291/s    +10.0%"
            "  median   +3.2% [+1.1%, +5.0%]");
  EXPECT_EQ(lines[4],
            "    1M/2R:  p75:    0.095s     337/s     -5.0%  p95:    0.100s     320/s     +0.0%"
            "  median   -5.0% [-8.0%, +0.4%] n.s.");
  EXPECT_EQ(lines[5], "");
}

TEST(DiffTable, HeaderColumnsEndWhereTheirCellsEnd) {
  const Series s = ddpSeries("resnet50", 32, "a much longer row label", 2, {0.1});
  const GroupDiff g = group(s, {row(s, {1, 1}, {1234.5, 2}, 12.345, 1.1, 20.5)});
  const std::vector<std::string> lines = linesOf(formatGroup(g, {}));
  const std::string& header = lines[2];
  const std::string& line = lines[3];
  EXPECT_EQ(header.find("sec/iter") + 8, line.find("1234.500s") + 9) << header << "\n" << line;
  EXPECT_EQ(header.find("diff") + 4, line.find("+123350.0%") + 10) << header << "\n" << line;
  EXPECT_EQ(header.size(), line.size()) << header << "\n" << line;
}

TEST(DiffTable, SmallTimesGetMoreDecimals) {
  const Series s = ddpSeries("resnet50", 32, "1M/1R", 1, {0.1});
  const GroupDiff g = group(s, {row(s, {0.001, 0.002}, {0.0012, 0.05}, 0, -0.01, 0.01)});
  const std::string text = formatGroup(g, {});
  EXPECT_NE(text.find(" 0.0012s "), std::string::npos) << text;
  EXPECT_NE(text.find(" 0.0500s "), std::string::npos) << "one column, one precision\n" << text;
  EXPECT_EQ(text.find("0.000s"), std::string::npos) << text;
}

TEST(DiffTable, BytesShowGigabytesPerSecondAndOps) {
  Series s = ddpSeries("allreduce", 0, "1048576", 4, {0.001});
  s.group = "allreduce float32";
  s.sampleOf = "op";
  s.workUnit = "bytes";
  s.workPerSample = 1048576;
  const GroupDiff g = group(s, {row(s, {0.001, 0.001}, {0.0011, 0.0021}, 0.5, 0.4, 0.6)});
  const std::vector<std::string> lines = linesOf(formatGroup(g, {}));
  EXPECT_NE(lines[2].find("  sec/op      GB/s"), std::string::npos) << lines[2];
  EXPECT_EQ(lines[2].find("ex/sec"), std::string::npos) << lines[2];
  // 1048576 B / 0.0011 s = 0.953 GB/s, nccl-tests' algbw.
  EXPECT_NE(lines[3].find("  p75:   0.0011s 0.953GB/s    +10.0%"), std::string::npos) << lines[3];
  EXPECT_NE(lines[3].find("  p95:   0.0021s 0.499GB/s   +110.0%"), std::string::npos) << lines[3];
}

TEST(DiffTable, PercentilesAndConfidenceAreConfigurable) {
  const Series s = ddpSeries("resnet50", 32, "1M/1R", 1, {0.1});
  DiffOptions options;
  options.percentiles = {50, 90, 99};
  options.bootstrap.confidence = 0.9;
  const GroupDiff g = group(s, {row(s, {1, 1, 1}, {1, 1, 1}, 0, -0.01, 0.01)});
  const std::vector<std::string> lines = linesOf(formatGroup(g, options));
  EXPECT_NE(lines[2].find("90% CI"), std::string::npos) << lines[2];
  for (const char* p : {"  p50: ", "  p90: ", "  p99: "}) {
    EXPECT_NE(lines[3].find(p), std::string::npos) << p << lines[3];
  }
  EXPECT_EQ(lines[3].find("p75"), std::string::npos) << lines[3];
}

TEST(DiffTable, RowsInOnlyOneReportAreListedUnderNotes) {
  const Series s = ddpSeries("resnet50", 32, "1M/1R", 1, {0.1});
  GroupDiff g = group(s, {row(s, {1, 1}, {1, 1}, 0, -0.01, 0.01)});
  g.onlyInBase = {"1M/4R", "2M/8R"};
  g.onlyInTest = {"1M/8R"};
  g.notCompared = {"1M/2R (ranks 2 vs 4)"};
  const std::vector<std::string> lines = linesOf(formatGroup(g, {}));
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(lines[4], "  only in base: 1M/4R, 2M/8R");
  EXPECT_EQ(lines[5], "  only in test: 1M/8R");
  EXPECT_EQ(lines[6], "  not compared: 1M/2R (ranks 2 vs 4)");

  g.rows.clear();
  EXPECT_EQ(formatGroup(g, {}),
            "Benchmark: resnet50 with batch size 32\n\n  only in base: 1M/4R, 2M/8R\n"
            "  only in test: 1M/8R\n  not compared: 1M/2R (ranks 2 vs 4)\n\n")
      << "no column header without rows";
}

TEST(DiffTable, RegressionLineOnlyWithAThreshold) {
  const Series s = ddpSeries("resnet50", 32, "1M/2R", 2, {0.1});
  ReportDiff diff;
  diff.groups.push_back(group(s, {row(s, {1, 1}, {1, 1}, 0.072, 0.051, 0.09)}));
  DiffOptions options;
  EXPECT_EQ(formatRegressions(diff, options), "");
  options.thresholdPercent = 5;
  EXPECT_EQ(formatRegressions(diff, options),
            "no regressions over 5% (median slower, 95% CI above 0)\n");
  diff.groups[0].rows[0].regressed = true;
  diff.groups[0].rows.push_back(diff.groups[0].rows[0]);
  EXPECT_EQ(formatRegressions(diff, options),
            "regressions over 5% (median slower, 95% CI above 0): resnet50 with batch size 32: "
            "1M/2R +7.2%; resnet50 with batch size 32: 1M/2R +7.2%\n");
}

TEST(DiffTable, DecimalsShowTwoOrThreeSignificantDigits) {
  EXPECT_EQ(decimalsFor(0.5, 3, 2), 3);
  EXPECT_EQ(decimalsFor(0.01, 3, 2), 3);
  EXPECT_EQ(decimalsFor(0.0099, 3, 2), 4);
  EXPECT_EQ(decimalsFor(0.000012, 3, 2), 6);
  EXPECT_EQ(decimalsFor(1e-15, 3, 2), 9) << "capped";
  EXPECT_EQ(decimalsFor(317, 0, 3), 0);
  EXPECT_EQ(decimalsFor(64, 0, 3), 1);
  EXPECT_EQ(decimalsFor(0, 3, 2), 3);
  EXPECT_EQ(decimalsFor(INFINITY, 0, 3), 0);
}

TEST(DiffTable, DescribeRowIsOneLineInTheTablesNumbers) {
  const Series s = ddpSeries("resnet50", 32, "1M/2R", 2, {0.1});
  const GroupDiff g = group(s, {row(s, {1, 1}, {1, 1}, 0.123, 0.081, 0.150)});
  EXPECT_EQ(describeRow(g, g.rows[0], {}),
            "resnet50 with batch size 32 / 1M/2R: median +12.3% (95% CI +8.1% .. +15.0%)");
  // The same numbers as the table's median and interval columns.
  const std::string table = formatGroup(g, {});
  EXPECT_NE(table.find("  median  +12.3% [+8.1%, +15.0%]"), std::string::npos) << table;

  DiffOptions options;
  options.bootstrap.confidence = 0.9;
  const GroupDiff faster = group(s, {row(s, {1, 1}, {1, 1}, -0.0321, -0.05, -0.0149)});
  EXPECT_EQ(describeRow(faster, faster.rows[0], options),
            "resnet50 with batch size 32 / 1M/2R: median -3.2% (90% CI -5.0% .. -1.5%)");
}

TEST(DiffTable, DescribeRowOfTheWorstRowSummarisesAComparison) {
  // What the operator does after a cluster run: compare, pick, describe.
  const auto base = ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, {0.1, 0.1, 0.1}),
                               ddpSeries("resnet50", 32, "1M/2R", 2, {0.2, 0.2, 0.2})});
  const auto test = ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, {0.11, 0.11, 0.11}),
                               ddpSeries("resnet50", 32, "1M/2R", 2, {0.25, 0.25, 0.25})});
  const ReportDiff diff = compareReports(base, test, {});
  const GroupDiff* g = nullptr;
  const RowDiff* worst = worstRow(diff, &g);
  ASSERT_NE(worst, nullptr);
  EXPECT_EQ(describeRow(*g, *worst, {}),
            "resnet50 with batch size 32 / 1M/2R: median +25.0% (95% CI +25.0% .. +25.0%)");
}

TEST(DiffTable, FormatDiffIsMetadataThenGroupsThenVerdict) {
  const auto base = ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, {0.1, 0.1, 0.1})});
  DiffOptions options;
  options.thresholdPercent = 1;
  const ReportDiff diff = compareReports(base, base, options);
  const std::string text = formatDiff(base, base, diff, options);
  const size_t metadata = text.find("bucket_size:");
  const size_t group = text.find("\nBenchmark: resnet50 with batch size 32\n\n");
  const size_t verdict = text.find("\nno regressions over 1%");
  EXPECT_LT(metadata, group);
  EXPECT_LT(group, verdict);
  EXPECT_NE(verdict, std::string::npos) << text;
}

}  // namespace
}  // namespace distbench::report
