#include "distbench/report/baseline_pool.h"

#include <cpprest/json.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "distbench/report/report_json.h"

namespace distbench::report {
namespace {

using web::json::value;

std::string numberText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

std::string runLabel(const Report& run, size_t index) {
  return "run " + std::to_string(index) + " (" + run.name + ")";
}

// Why `next` cannot pool into `pooled`, or "" when it can. The row's work may
// differ only where compareReports would scale it (epoch rows).
std::string rowMismatch(const Series& pooled, const Series& next) {
  if (pooled.ranks != next.ranks) {
    return "ranks " + std::to_string(pooled.ranks) + " vs " + std::to_string(next.ranks);
  }
  if (pooled.sampleOf != next.sampleOf)
    return "sampleOf " + pooled.sampleOf + " vs " + next.sampleOf;
  if (pooled.workUnit != next.workUnit)
    return "workUnit " + pooled.workUnit + " vs " + next.workUnit;
  const bool byChance =
      pooled.sampleOf == "epoch" && pooled.workPerSample > 0 && next.workPerSample > 0;
  if (pooled.workPerSample != next.workPerSample && !byChance) {
    return "workPerSample " + numberText(pooled.workPerSample) + " vs " +
           numberText(next.workPerSample);
  }
  return "";
}

const Series* findGroupKeyOwner(const Report& pool, const std::string& group) {
  for (const Series& s : pool.series) {
    if (s.group == group) return &s;
  }
  return nullptr;
}

Series* findRow(Report& pool, const Series& s) {
  for (Series& p : pool.series) {
    if (p.group == s.group && p.row == s.row) return &p;
  }
  return nullptr;
}

void addRun(Report& pool, const Report& run, size_t index) {
  if (run.kind != pool.kind) {
    throw ReportError("cannot pool " + runLabel(run, index) + ": a " + run.kind +
                      " benchmark, the runs before it are " + pool.kind);
  }
  for (const Series& s : run.series) {
    if (const Series* owner = findGroupKeyOwner(pool, s.group);
        owner && owner->groupKey != s.groupKey) {
      throw ReportError("cannot pool " + runLabel(run, index) + ": group " + s.group +
                        " has another groupKey than in the runs before it");
    }
    Series* pooled = findRow(pool, s);
    if (!pooled) {
      pool.series.push_back(s);
      pool.series.back().runSamples = {static_cast<int>(s.samples.size())};
      continue;
    }
    if (std::string why = rowMismatch(*pooled, s); !why.empty()) {
      throw ReportError("cannot pool " + runLabel(run, index) + ": " + s.group + " / " + s.row +
                        " measured something else (" + why + ")");
    }
    // Per unit of the first run's work, as compareReports compares a test.
    const double scale =
        pooled->workPerSample == s.workPerSample ? 1 : pooled->workPerSample / s.workPerSample;
    for (double seconds : s.samples) pooled->samples.push_back(seconds * scale);
    pooled->runSamples.push_back(static_cast<int>(s.samples.size()));
  }
}

}  // namespace

Report poolReports(const std::vector<Report>& runs) {
  if (runs.empty()) throw ReportError("cannot pool no runs");
  Report pool = trimmedForBaseline(runs.back());
  pool.series.clear();
  pool.kind = runs.front().kind;
  for (size_t i = 0; i < runs.size(); ++i) {
    addRun(pool, runs[i], i);
  }
  pool.name = "pool of " + std::to_string(runs.size()) + (runs.size() == 1 ? " run: " : " runs: ") +
              runs.front().name + (runs.size() > 1 ? " .. " + runs.back().name : "");
  return pool;
}

Report trimmedForBaseline(const Report& report) {
  Report trimmed = report;
  trimmed.configJson = "{}";
  trimmed.resultsJson = "{}";
  trimmed.attributionJson.clear();
  trimmed.localJson.clear();
  return trimmed;
}

std::string runsJson(const std::vector<PooledRun>& runs) {
  std::string json = "[";
  for (size_t i = 0; i < runs.size(); ++i) {
    json += (i == 0 ? "" : ",");
    json += "{\"name\":" + value::string(runs[i].name).serialize() +
            ",\"report\":" + toJson(runs[i].report) + "}";
  }
  return json + "]";
}

std::vector<PooledRun> parseRunsJson(const std::string& json, const std::string& source) {
  value root;
  try {
    root = value::parse(json);
  } catch (const web::json::json_exception& error) {
    throw ReportError(source + ": not valid JSON: " + error.what());
  }
  if (!root.is_array()) throw ReportError(source + ": must be a list of {name, report}");
  std::vector<PooledRun> runs;
  for (size_t i = 0; i < root.size(); ++i) {
    const std::string at = source + ": [" + std::to_string(i) + "]";
    const value& entry = root.at(i);
    if (!entry.is_object()) throw ReportError(at + ": must be an object {name, report}");
    if (!entry.has_field("name") || !entry.at("name").is_string()) {
      throw ReportError(at + ".name: must be a string");
    }
    if (!entry.has_field("report")) throw ReportError(at + ".report: missing (required)");
    runs.push_back({entry.at("name").as_string(),
                    parseReport(entry.at("report").serialize(), at + ".report")});
  }
  return runs;
}

PoolVerdict poolVerdictOf(const ReportDiff& diff) {
  if (diff.comparedRows() == 0) return PoolVerdict::Incomparable;
  return anyRegression(diff) ? PoolVerdict::Regression : PoolVerdict::NoRegression;
}

PoolStep nextPool(const std::vector<PooledRun>& pool, const PooledRun& run, PoolVerdict verdict,
                  int maxRuns) {
  if (maxRuns < 1)
    throw std::invalid_argument("a pool holds at least 1 run, not " + std::to_string(maxRuns));
  PoolStep step;
  step.pool = pool;
  switch (verdict) {
    case PoolVerdict::Regression:
      break;
    case PoolVerdict::Incomparable:
      step.restarted = !pool.empty();
      step.pool.clear();
      step.entered = true;
      break;
    case PoolVerdict::NoBaseline:
    case PoolVerdict::NoRegression:
      step.entered = true;
      // A run that was not compared (the pool too small to judge) may still
      // measure something else than the pool: then it starts a new one.
      if (!pool.empty()) {
        std::vector<Report> reports = reportsOf(pool);
        reports.push_back(run.report);
        try {
          poolReports(reports);
        } catch (const ReportError&) {
          step.restarted = true;
          step.pool.clear();
        }
      }
      break;
  }
  if (step.entered) step.pool.push_back({run.name, trimmedForBaseline(run.report)});
  const size_t keep = static_cast<size_t>(maxRuns);
  if (step.pool.size() > keep) {
    step.pool.erase(step.pool.begin(),
                    step.pool.begin() + static_cast<std::ptrdiff_t>(step.pool.size() - keep));
  }
  return step;
}

bool poolJudges(const std::vector<PooledRun>& pool, int maxRuns) {
  return !pool.empty() && pool.size() >= static_cast<size_t>(std::min(2, std::max(maxRuns, 1)));
}

std::vector<Report> reportsOf(const std::vector<PooledRun>& pool) {
  std::vector<Report> reports;
  reports.reserve(pool.size());
  for (const PooledRun& run : pool) reports.push_back(run.report);
  return reports;
}

}  // namespace distbench::report
