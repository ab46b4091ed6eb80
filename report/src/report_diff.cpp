#include "distbench/report/report_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>

#include "distbench/report/percentiles.h"

namespace distbench::report {
namespace {

struct Group {
  std::string name;
  const std::map<std::string, std::string>* key = nullptr;  // of its first series
  std::vector<const Series*> series;
};

std::vector<Group> groupsOf(const Report& report) {
  std::vector<Group> groups;
  for (const Series& s : report.series) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.name == s.group; });
    if (it == groups.end()) {
      groups.push_back({s.group, &s.groupKey, {}});
      it = std::prev(groups.end());
    }
    it->series.push_back(&s);
  }
  return groups;
}

const Group* find(const std::vector<Group>& groups, const std::string& name) {
  for (const Group& g : groups) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// "batchSize 32 vs 16": every key whose value differs, base first.
std::string keyDifferences(const std::map<std::string, std::string>& base,
                           const std::map<std::string, std::string>& test) {
  std::set<std::string> names;
  for (const auto& [name, value] : base) names.insert(name);
  for (const auto& [name, value] : test) names.insert(name);
  std::vector<std::string> differences;
  for (const std::string& name : names) {
    const std::string a = base.count(name) ? base.at(name) : "(none)";
    const std::string b = test.count(name) ? test.at(name) : "(none)";
    if (a != b) differences.push_back(name + " " + a + " vs " + b);
  }
  return differences.empty() ? "the group names differ" : join(differences);
}

[[noreturn]] void refuseGroups(const Group& base, const Group& test, size_t morePairs) {
  std::string message = "cannot compare: base benchmarks " + base.name + ", test benchmarks " +
                        test.name + " (" + keyDifferences(*base.key, *test.key) + ")";
  if (morePairs > 0) {
    message += "; " + std::to_string(morePairs) +
               (morePairs == 1 ? " more group differs" : " more groups differ");
  }
  throw IncomparableReports(message);
}

void checkComparable(const Report& base, const Report& test, const std::vector<Group>& baseGroups,
                     const std::vector<Group>& testGroups) {
  if (base.kind != test.kind) {
    throw IncomparableReports("cannot compare: base is a " + base.kind + " benchmark, test a " +
                              test.kind + " benchmark");
  }
  std::vector<const Group*> onlyInBase, onlyInTest;
  for (const Group& g : baseGroups) {
    if (!find(testGroups, g.name)) onlyInBase.push_back(&g);
  }
  for (const Group& g : testGroups) {
    if (!find(baseGroups, g.name)) onlyInTest.push_back(&g);
  }
  if (onlyInBase.empty() && onlyInTest.empty()) {
    for (const Group& g : baseGroups) {
      const Group& t = *find(testGroups, g.name);
      if (*g.key != *t.key) refuseGroups(g, t, 0);
    }
    return;
  }
  // As many groups on each side: most likely the same sweep with a model or a
  // batch size changed, so say what changed in the first pair.
  if (onlyInBase.size() == onlyInTest.size()) {
    refuseGroups(*onlyInBase.front(), *onlyInTest.front(), onlyInBase.size() - 1);
  }
  std::vector<std::string> baseNames, testNames;
  for (const Group* g : onlyInBase) baseNames.push_back(g->name);
  for (const Group* g : onlyInTest) testNames.push_back(g->name);
  std::string message = "cannot compare: base and test benchmark different groups";
  if (!baseNames.empty()) message += "; only in base: " + join(baseNames);
  if (!testNames.empty()) message += "; only in test: " + join(testNames);
  throw IncomparableReports(message);
}

std::string numberText(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// An epoch's work is the sum of batch sizes the generator drew at random, so
// two runs of one configuration (the group keys, which hold what sets the
// work, are equal by now) report slightly different mean work per epoch.
// Those rows are compared per unit of work. An iteration's or an op's work
// is fixed by the configuration: there a difference is a different thing.
bool workVariesByChance(const Series& base, const Series& test) {
  return base.sampleOf == "epoch" && base.workPerSample > 0 && test.workPerSample > 0;
}

// Why two rows with the same label cannot be compared, or "" when they can.
std::string rowMismatch(const Series& base, const Series& test) {
  if (base.ranks != test.ranks) {
    return "ranks " + std::to_string(base.ranks) + " vs " + std::to_string(test.ranks);
  }
  if (base.sampleOf != test.sampleOf)
    return "seconds per " + base.sampleOf + " vs " + test.sampleOf;
  if (base.workUnit != test.workUnit) return "work in " + base.workUnit + " vs " + test.workUnit;
  if (base.workPerSample != test.workPerSample && !workVariesByChance(base, test)) {
    return "workPerSample " + numberText(base.workPerSample) + " vs " +
           numberText(test.workPerSample);
  }
  for (double seconds : base.samples) {
    if (!(seconds > 0)) return "base has a sample of 0 seconds, no change can be relative to it";
  }
  return "";
}

std::vector<double> percentilesOf(std::vector<double> samples, const std::vector<int>& ps) {
  std::sort(samples.begin(), samples.end());
  std::vector<double> values;
  for (int p : ps) values.push_back(percentileLinear(samples, p));
  return values;
}

RowDiff compareRow(const Series& base, const Series& test, const DiffOptions& options) {
  RowDiff row;
  row.base = &base;
  row.test = &test;
  std::vector<double> testSamples = test.samples;
  if (base.workPerSample != test.workPerSample) {
    row.testWorkScale = base.workPerSample / test.workPerSample;
    for (double& seconds : testSamples) seconds *= row.testWorkScale;
  }
  row.basePercentiles = percentilesOf(base.samples, options.percentiles);
  row.testPercentiles = percentilesOf(testSamples, options.percentiles);
  // A base that pools runs (a rolling baseline) is resampled run by run.
  row.median =
      bootstrapPooledMedianChange(base.samples, base.runSamples, testSamples, options.bootstrap);
  // Significant and slower: a large but noisy change is not worth failing a build over.
  row.regressed = options.thresholdPercent &&
                  row.median.pointChange * 100 > *options.thresholdPercent && row.median.low > 0;
  return row;
}

GroupDiff compareGroup(const Group& base, const Group& test, const DiffOptions& options) {
  GroupDiff diff;
  diff.group = base.name;
  diff.sampleOf = base.series.front()->sampleOf;
  diff.workUnit = base.series.front()->workUnit;
  auto findRow = [](const Group& g, const std::string& row) -> const Series* {
    for (const Series* s : g.series) {
      if (s->row == row) return s;
    }
    return nullptr;
  };
  for (const Series* b : base.series) {
    const Series* t = findRow(test, b->row);
    if (!t) {
      diff.onlyInBase.push_back(b->row);
    } else if (std::string why = rowMismatch(*b, *t); !why.empty()) {
      diff.notCompared.push_back(b->row + " (" + why + ")");
    } else {
      diff.rows.push_back(compareRow(*b, *t, options));
      if (diff.rows.back().testWorkScale != 1) {
        diff.perWork.push_back(b->row + " (" + b->workUnit + " per " + b->sampleOf + " " +
                               numberText(b->workPerSample) + " vs " +
                               numberText(t->workPerSample) + ")");
      }
    }
  }
  for (const Series* t : test.series) {
    if (!findRow(base, t->row)) diff.onlyInTest.push_back(t->row);
  }
  return diff;
}

}  // namespace

double percentChange(double base, double test) { return (test - base) / base * 100; }

bool anyRegression(const ReportDiff& diff) {
  for (const GroupDiff& group : diff.groups) {
    for (const RowDiff& row : group.rows) {
      if (row.regressed) return true;
    }
  }
  return false;
}

const RowDiff* worstRow(const ReportDiff& diff, const GroupDiff** group) {
  const RowDiff* worst = nullptr;
  const GroupDiff* worstGroup = nullptr;
  for (const GroupDiff& g : diff.groups) {
    for (const RowDiff& row : g.rows) {
      // A NaN change (which no comparison orders) never beats a number.
      if (!worst || row.median.pointChange > worst->median.pointChange ||
          (std::isnan(worst->median.pointChange) && !std::isnan(row.median.pointChange))) {
        worst = &row;
        worstGroup = &g;
      }
    }
  }
  if (group) *group = worstGroup;
  return worst;
}

size_t ReportDiff::comparedRows() const {
  size_t n = 0;
  for (const GroupDiff& g : groups) n += g.rows.size();
  return n;
}

ReportDiff compareReports(const Report& base, const Report& test, const DiffOptions& options) {
  for (int p : options.percentiles) {
    if (p < 0 || p > 100) throw std::invalid_argument("percentiles must be in [0, 100]");
  }
  const std::vector<Group> baseGroups = groupsOf(base);
  const std::vector<Group> testGroups = groupsOf(test);
  checkComparable(base, test, baseGroups, testGroups);
  ReportDiff diff;
  for (const Group& g : baseGroups) {
    diff.groups.push_back(compareGroup(g, *find(testGroups, g.name), options));
  }
  return diff;
}

}  // namespace distbench::report
