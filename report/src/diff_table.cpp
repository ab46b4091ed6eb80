#include "distbench/report/diff_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

namespace distbench::report {
namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// Right-aligned in `width`, as diff.py's {:>N}.
std::string right(const std::string& text, size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

std::string left(const std::string& text, size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string percent(double percentValue) { return format("%+.1f%%", percentValue); }

// "95% CI": the interval's name wherever it is printed.
std::string intervalName(const DiffOptions& options) {
  return format("%g", options.bootstrap.confidence * 100) + "% CI";
}

std::string versionOf(const Report& r, const std::string& name) {
  auto it = r.versions.find(name);
  return it == r.versions.end() ? "n/a" : it->second;
}

std::string gpusOf(const Report& r) {
  const std::vector<std::string>& gpus = r.host.gpus;
  if (gpus.empty()) return "none";
  if (std::all_of(gpus.begin(), gpus.end(), [&](const std::string& g) { return g == gpus[0]; })) {
    return std::to_string(gpus.size()) + " x " + gpus[0];
  }
  std::string text;
  for (const std::string& g : gpus) text += (text.empty() ? "" : ", ") + g;
  return text;
}

using Field = std::pair<const char*, std::string (*)(const Report&)>;

// Sorted by key, as diff.py prints its keys. The seed's names where it has
// the field (bucket_size, cuda_version, distributed_backend, pytorch_version).
const Field kFields[] = {
    {"benchmark", [](const Report& r) { return r.name; }},
    {"bucket_size", [](const Report& r) { return format("%g", r.bucketCapMB); }},
    {"cuda_driver_version", [](const Report& r) { return versionOf(r, "cudaDriver"); }},
    {"cuda_version", [](const Report& r) { return versionOf(r, "cuda"); }},
    {"cudnn_version", [](const Report& r) { return versionOf(r, "cudnn"); }},
    {"device", [](const Report& r) { return r.device; }},
    {"distbench_version", [](const Report& r) { return versionOf(r, "distbench"); }},
    {"distributed_backend", [](const Report& r) { return r.backend; }},
    {"gpus", gpusOf},
    {"host_cpu", [](const Report& r) { return r.host.cpuModel; }},
    {"logical_cpus", [](const Report& r) { return std::to_string(r.host.logicalCpus); }},
    {"nccl_version", [](const Report& r) { return versionOf(r, "nccl"); }},
    {"parameter_servers", [](const Report& r) { return std::to_string(r.parameterServers); }},
    {"pytorch_version", [](const Report& r) { return versionOf(r, "torch"); }},
    {"seed", [](const Report& r) { return std::to_string(r.seed); }},
    {"trainers", [](const Report& r) { return std::to_string(r.trainers); }},
    {"world_size", [](const Report& r) { return std::to_string(r.worldSize); }},
};

std::string sampleHeader(const std::string& sampleOf) {
  return sampleOf == "iteration" ? "sec/iter" : "sec/" + sampleOf;
}

std::string percentileLabel(int p) {
  char text[16];
  std::snprintf(text, sizeof text, "  p%02d: ", p);
  return text;
}

constexpr const char* kMedianLabel = "  median ";

// Every cell of one row, before alignment.
struct RowCells {
  std::string label;
  std::vector<std::string> times, rates, changes;  // one per percentile
  std::string median, interval, marker;
};

// The cells of every row, with one precision per column: enough decimals for
// the column's smallest value.
std::vector<RowCells> cellsOf(const GroupDiff& group) {
  const bool bytes = group.workUnit == "bytes";
  // Work per second at a percentile's time: examples/s, or GB/s as nccl-tests'
  // algbw.
  auto rateOf = [&](const RowDiff& row, double seconds) {
    // Times are at base's work per sample (RowDiff::testWorkScale).
    const double rate = row.base->workPerSample / seconds;
    return bytes ? rate / 1e9 : rate;
  };
  double smallestTime = INFINITY, smallestRate = INFINITY;
  for (const RowDiff& row : group.rows) {
    for (double seconds : row.testPercentiles) {
      smallestTime = std::min(smallestTime, seconds);
      if (seconds > 0) smallestRate = std::min(smallestRate, rateOf(row, seconds));
    }
  }
  const int timeDecimals = decimalsFor(smallestTime, 3, 2);
  const int rateDecimals = decimalsFor(smallestRate, 0, 3);

  std::vector<RowCells> cells;
  for (const RowDiff& row : group.rows) {
    RowCells c;
    c.label = row.base->row + ":";
    for (size_t i = 0; i < row.testPercentiles.size(); ++i) {
      const double seconds = row.testPercentiles[i];
      c.times.push_back(fixed(seconds, timeDecimals) + "s");
      c.rates.push_back(
          seconds > 0 ? fixed(rateOf(row, seconds), rateDecimals) + (bytes ? "GB/s" : "/s") : "-");
      c.changes.push_back(percent(percentChange(row.basePercentiles[i], seconds)));
    }
    c.median = percent(row.median.pointChange * 100);
    c.interval = "[" + percent(row.median.low * 100) + ", " + percent(row.median.high * 100) + "]";
    c.marker = row.median.significant ? "" : " n.s.";
    cells.push_back(std::move(c));
  }
  return cells;
}

}  // namespace

int decimalsFor(double smallest, int minDecimals, int significantDigits) {
  if (!(smallest > 0) || !std::isfinite(smallest)) return minDecimals;
  const int leading = static_cast<int>(std::floor(std::log10(smallest)));
  return std::clamp(significantDigits - 1 - leading, minDecimals, 9);
}

std::string formatMetadata(const Report& base, const Report& test) {
  size_t keyWidth = 20, valueWidth = 20;
  for (const auto& [key, value] : kFields) {
    keyWidth = std::max(keyWidth, std::string(key).size() + 1);
    valueWidth = std::max({valueWidth, value(base).size(), value(test).size()});
  }
  std::string text = left("", keyWidth) + " " + right("baseline", valueWidth) + "      " +
                     right("test", valueWidth) + "\n";
  const std::string dashes(20, '-');
  text += left("", keyWidth) + " " + right(dashes, valueWidth) + "      " +
          right(dashes, valueWidth) + "\n";
  for (const auto& [key, value] : kFields) {
    text += left(std::string(key) + ":", keyWidth) + " " + right(value(base), valueWidth) +
            "  vs  " + right(value(test), valueWidth) + "\n";
  }
  return text + "\n";
}

std::string formatGroup(const GroupDiff& group, const DiffOptions& options) {
  const bool bytes = group.workUnit == "bytes";
  const std::vector<RowCells> cells = cellsOf(group);

  // diff.py's widths are the minimums; wider values widen their column.
  const std::string ci = intervalName(options);
  size_t labelWidth = 10, timeWidth = 9, rateWidth = 9, changeWidth = 9, medianWidth = 7;
  size_t intervalWidth = ci.size();
  for (const RowCells& c : cells) {
    labelWidth = std::max(labelWidth, c.label.size());
    for (const std::string& t : c.times) timeWidth = std::max(timeWidth, t.size());
    for (const std::string& r : c.rates) rateWidth = std::max(rateWidth, r.size());
    for (const std::string& d : c.changes) changeWidth = std::max(changeWidth, d.size());
    medianWidth = std::max(medianWidth, c.median.size());
    intervalWidth = std::max(intervalWidth, c.interval.size());
  }

  std::string text = "Benchmark: " + group.group + "\n\n";
  if (!cells.empty()) {
    std::string header = std::string(labelWidth, ' ');
    for (int p : options.percentiles) {
      header += right(sampleHeader(group.sampleOf), percentileLabel(p).size() + timeWidth) +
                right(bytes ? "GB/s" : "ex/sec", 1 + rateWidth) + right("diff", 1 + changeWidth);
    }
    header += right("diff", std::string(kMedianLabel).size() + medianWidth) +
              right(ci, 1 + intervalWidth);
    text += header + "\n";
  }
  for (const RowCells& c : cells) {
    std::string line = right(c.label, labelWidth);
    for (size_t i = 0; i < options.percentiles.size(); ++i) {
      line += percentileLabel(options.percentiles[i]) + right(c.times[i], timeWidth) + " " +
              right(c.rates[i], rateWidth) + " " + right(c.changes[i], changeWidth);
    }
    line += kMedianLabel + right(c.median, medianWidth) + " " + right(c.interval, intervalWidth) +
            c.marker;
    text += line + "\n";
  }
  auto note = [&](const char* what, const std::vector<std::string>& rows) {
    if (rows.empty()) return;
    std::string list;
    for (const std::string& row : rows) list += (list.empty() ? "" : ", ") + row;
    text += std::string("  ") + what + ": " + list + "\n";
  };
  note("only in base", group.onlyInBase);
  note("only in test", group.onlyInTest);
  note("not compared", group.notCompared);
  note("per unit of work, test scaled to base's", group.perWork);
  return text + "\n";
}

std::string formatRegressions(const ReportDiff& diff, const DiffOptions& options) {
  if (diff.comparedRows() == 0) return "nothing compared: no row is in both reports with the same work\n";
  if (!options.thresholdPercent) return "";
  const std::string over = "over " + format("%g", *options.thresholdPercent) +
                           "% (median slower, " + format("%g", options.bootstrap.confidence * 100) +
                           "% CI above 0)";
  std::string list;
  for (const GroupDiff& group : diff.groups) {
    for (const RowDiff& row : group.rows) {
      if (!row.regressed) continue;
      list += (list.empty() ? "" : "; ") + group.group + ": " + row.base->row + " " +
              percent(row.median.pointChange * 100);
    }
  }
  if (list.empty()) return "no regressions " + over + "\n";
  return "regressions " + over + ": " + list + "\n";
}

std::string describeRow(const GroupDiff& group, const RowDiff& row, const DiffOptions& options) {
  return group.group + " / " + row.base->row + ": median " + percent(row.median.pointChange * 100) +
         " (" + intervalName(options) + " " + percent(row.median.low * 100) + " .. " +
         percent(row.median.high * 100) + ")";
}

std::string formatDiff(const Report& base, const Report& test, const ReportDiff& diff,
                       const DiffOptions& options) {
  std::string text = formatMetadata(base, test);
  for (const GroupDiff& group : diff.groups) text += formatGroup(group, options);
  return text + formatRegressions(diff, options);
}

}  // namespace distbench::report
