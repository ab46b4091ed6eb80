// The DDP part of the report page: per model, throughput and scaling
// efficiency against world size, and the phase split of each sweep row.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "distbench/cli/report_page/html_text.h"
#include "distbench/cli/report_page/page_numbers.h"
#include "distbench/cli/report_page/report_page_sections.h"
#include "distbench/cli/report_page/report_results.h"
#include "distbench/cli/report_page/stacked_phase_chart.h"

namespace distbench::cli {
namespace {

using vl::arr;
using vl::field;
using vl::Json;
using vl::num;
using vl::obj;
using vl::str;

// One iteration, in the order it happens, as rows[].phases names the parts.
const std::vector<std::string> kPhases = {"forward", "backward", "allreduceWait", "optimizerStep"};

struct SweepRow {
  std::string label;  // "no ddp", "1M/2R"
  int ranks = 1;
  bool ddp = true;
  std::optional<double> examplesPerSecond;  // aggregate, at the row's p50
  std::optional<double> efficiency;
  Json phases;  // null when absent
};

std::vector<SweepRow> rowsOf(const Json& model) {
  std::vector<SweepRow> rows;
  for (const Json& entry : listAt(model, "rows")) {
    SweepRow row;
    row.label = stringAt(entry, "row").value_or("?");
    row.ranks = static_cast<int>(numberAt(entry, "ranks").value_or(1));
    const Json* ddp = member(entry, "ddp");
    row.ddp = !(ddp && ddp->is_boolean() && !ddp->as_bool());
    if (const Json* rate = member(entry, "aggregateExamplesPerSecond")) {
      row.examplesPerSecond = numberAt(*rate, "p50");
    }
    row.efficiency = numberAt(entry, "scalingEfficiency");
    if (const Json* phases = member(entry, "phases"); phases && phases->is_object()) {
      row.phases = *phases;
    }
    rows.push_back(row);
  }
  return rows;
}

// The heading the diff prints for the model's rows ("resnet18 with batch
// size 16"), from its first series; composed the same way without one.
std::string groupName(const report::Report& report, const Json& model) {
  for (const Json& entry : listAt(model, "rows")) {
    if (const report::Series* s = seriesOf(report, entry)) return s->group;
  }
  return stringAt(model, "model").value_or("model") + " with batch size " +
         formatNumber(numberAt(model, "batchSize").value_or(NAN));
}

Json ranksAxis() {
  return field("ranks", "quantitative", "world size (ranks)",
               {{"axis", obj({{"tickMinStep", Json::number(1)}, {"format", str("d")}})}});
}

// DDP rows as a line, `no ddp` as a point, and the ideal: the `no ddp` rate
// times the ranks, which a row at 100% scaling efficiency would reach.
std::optional<Chart> throughputChart(const std::string& id, const std::string& group,
                                     const std::vector<SweepRow>& rows) {
  std::optional<double> single;
  for (const SweepRow& row : rows) {
    if (!row.ddp && row.examplesPerSecond) single = row.examplesPerSecond;
  }
  std::vector<Json> points;
  for (const SweepRow& row : rows) {
    if (!row.examplesPerSecond) continue;
    const std::string line = row.ddp ? "DDP" : "no DDP (one rank alone)";
    points.push_back(obj({{"line", str(line)},
                          {"row", str(row.label)},
                          {"ranks", Json::number(row.ranks)},
                          {"examplesPerSecond", num(*row.examplesPerSecond)}}));
    if (row.ddp && single) {
      points.push_back(obj({{"line", str("ideal: no-DDP rate × ranks")},
                            {"row", str(row.label)},
                            {"ranks", Json::number(row.ranks)},
                            {"examplesPerSecond", num(*single * row.ranks)}}));
    }
  }
  if (points.empty()) return std::nullopt;
  Json spec = obj({
      {"title", str(group + ": aggregate examples/s at p50 against world size")},
      {"width", Json::number(560)},
      {"height", Json::number(300)},
      {"data", obj({{"values", arr(points)}})},
      {"mark", obj({{"type", str("line")}, {"point", Json::boolean(true)}})},
      {"encoding",
       obj({{"x", ranksAxis()},
            {"y", field("examplesPerSecond", "quantitative", "examples/s, all ranks (at p50)")},
            {"color", field("line", "nominal", "")},
            {"strokeDash", field("line", "nominal", "")},
            {"tooltip", arr({vl::tooltip("row", "row"), vl::tooltip("line", "line"),
                             vl::tooltip("examplesPerSecond", "examples/s", ".4~s")})}})},
  });
  return Chart{id, std::move(spec)};
}

std::optional<Chart> efficiencyChart(const std::string& id, const std::string& group,
                                     const std::vector<SweepRow>& rows) {
  std::vector<Json> points;
  for (const SweepRow& row : rows) {
    if (!row.ddp || !row.efficiency) continue;
    points.push_back(obj({{"row", str(row.label)},
                          {"ranks", Json::number(row.ranks)},
                          {"efficiency", num(*row.efficiency)}}));
  }
  if (points.empty()) return std::nullopt;
  Json spec = obj({
      {"title", str(group + ": scaling efficiency against world size")},
      {"width", Json::number(560)},
      {"height", Json::number(240)},
      {"data", obj({{"values", arr(points)}})},
      {"mark", obj({{"type", str("line")}, {"point", Json::boolean(true)}})},
      {"encoding",
       obj({{"x", ranksAxis()},
            {"y", field("efficiency", "quantitative", "scaling efficiency (no-ddp p50 / row p50)",
                        {{"axis", obj({{"format", str(".0%")}})}})},
            {"tooltip", arr({vl::tooltip("row", "row"),
                             vl::tooltip("efficiency", "scaling efficiency", ".1%")})}})},
  });
  return Chart{id, std::move(spec)};
}

std::optional<Chart> phaseChart(const std::string& id, const std::string& group,
                                const std::vector<SweepRow>& rows) {
  std::vector<PhaseBar> bars;
  for (const SweepRow& row : rows) {
    if (!row.phases.is_null()) bars.push_back({row.label, &row.phases});
  }
  StackedPhaseChart chart;
  chart.id = id;
  chart.title = group + ": per-iteration time by phase, the p50 of each phase, stacked";
  chart.width = 560;
  chart.barField = "row";
  chart.barAxisTitle = "row";
  chart.secondsTitle = "seconds per iteration (sum of the phases' p50)";
  chart.phases = kPhases;
  chart.statistics = {"p95"};
  return stackedPhaseChart(chart, bars);
}

}  // namespace

PageSection ddpSection(const report::Report& report) {
  PageSection section{"ddp", "Throughput, scaling and phases (DDP)", "", {}};
  const std::vector<Json> models = listAt(resultsOf(report), "models");
  if (models.empty()) {
    section.html = noteParagraph("This report lists no model (results.models): nothing to draw.");
    return section;
  }
  for (size_t m = 0; m < models.size(); ++m) {
    const Json& model = models[m];
    const std::string group = groupName(report, model);
    const std::vector<SweepRow> rows = rowsOf(model);
    const std::string suffix = "-" + std::to_string(m);
    section.html += "<h3>" + htmlEscape(group) + "</h3>\n";

    if (auto chart = throughputChart("ddp-throughput" + suffix, group, rows)) {
      section.charts.push_back(std::move(*chart));
      section.html += chartFigure(
          section.charts.back(),
          "Examples per second of all ranks together, at each row's median iteration time "
          "(ranks × batch size / p50). The dashed ideal is the no-DDP rate times the ranks.");
    } else {
      section.html += noteParagraph("No row of " + group + " has aggregateExamplesPerSecond.");
    }
    if (auto chart = efficiencyChart("ddp-efficiency" + suffix, group, rows)) {
      section.charts.push_back(std::move(*chart));
      section.html += chartFigure(
          section.charts.back(),
          "The no-ddp row's p50 over each DDP row's p50: the aggregate throughput as a fraction "
          "of that many perfectly scaling single replicas. 100% is perfect scaling.");
    } else {
      section.html += noteParagraph("No scaling efficiency for " + group +
                                    ": the sweep has no DDP row with scalingEfficiency.");
    }
    if (auto chart = phaseChart("ddp-phases" + suffix, group, rows)) {
      section.charts.push_back(std::move(*chart));
      section.html += chartFigure(
          section.charts.back(),
          "Seconds per iteration in forward (with the loss), backward, waiting for allreduce "
          "after backward, and the optimizer step: the p50 of each, stacked. A row's own p50 "
          "can differ from the sum.");
    } else {
      section.html += noteParagraph("No per-phase timings for " + group + " (rows[].phases).");
    }
  }
  return section;
}

}  // namespace distbench::cli
