// The HybridDDPRPC part of the report page.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "distbench/cli/report_page/page_numbers.h"
#include "distbench/cli/report_page/report_page_sections.h"
#include "distbench/cli/report_page/report_results.h"
#include "distbench/cli/report_page/stacked_phase_chart.h"
#include "distbench/report/percentiles.h"

namespace distbench::cli {
namespace {

using vl::arr;
using vl::field;
using vl::Json;
using vl::num;
using vl::obj;
using vl::str;

// One batch of a trainer, in the order it happens, as results.trainers[].phases
// names the parts.
const std::vector<std::string> kPhases = {"lookup", "forward",       "backward",
                                          "push",   "allreduceWait", "optimizerStep"};

struct Trainer {
  std::string name;
  const report::Series* series = nullptr;
  std::optional<Json> phases;  // results.trainers[i].phases, when it is an object
};

std::vector<Trainer> trainersOf(const report::Report& report, const Json& results) {
  std::vector<Trainer> trainers;
  for (const Json& entry : listAt(results, "trainers")) {
    const report::Series* series = seriesOf(report, entry);
    if (!series || series->samples.empty()) continue;
    Trainer t;
    t.series = series;
    t.name = stringAt(entry, "name").value_or(series->row);
    const Json* phases = member(entry, "phases");
    if (phases && phases->is_object()) t.phases = *phases;
    trainers.push_back(t);
  }
  return trainers;
}

double percentileOf(const report::Series& series, double p) {
  std::vector<double> sorted = series.samples;
  std::sort(sorted.begin(), sorted.end());
  return report::percentileLinear(sorted, p);
}

Json names(const std::vector<Trainer>& trainers) {
  std::vector<std::string> texts;
  for (const Trainer& t : trainers) texts.push_back(t.name);
  return vl::strings(texts);
}

// Each trainer's epoch times as a step curve: the fraction of epochs that
// took at most x seconds, with p50 and p95 marked on the curve.
Chart cdfChart(const std::vector<Trainer>& trainers) {
  std::vector<Json> samples, marks;
  for (const Trainer& t : trainers) {
    for (double seconds : t.series->samples) {
      samples.push_back(obj({{"trainer", str(t.name)}, {"seconds", num(seconds)}}));
    }
    for (int p : {50, 95}) {
      marks.push_back(obj({{"trainer", str(t.name)},
                           {"percentile", str("p" + std::to_string(p))},
                           {"fraction", num(p / 100.0)},
                           {"seconds", num(percentileOf(*t.series, p))}}));
    }
  }
  const Json trainerColor = field("trainer", "nominal", "trainer", {{"sort", names(trainers)}});
  const Json x = field("seconds", "quantitative", "seconds per epoch",
                       {{"scale", obj({{"zero", Json::boolean(false)}})}});
  const Json y = field("fraction", "quantitative", "fraction of epochs taking at most x",
                       {{"scale", obj({{"domain", arr({num(0), num(1)})}})}});
  // cume_dist over each trainer's epochs sorted by time: the CDF's height.
  const Json cumulative =
      obj({{"window", arr({obj({{"op", str("cume_dist")}, {"as", str("fraction")}})})},
           {"sort", arr({obj({{"field", str("seconds")}})})},
           {"groupby", vl::strings({"trainer"})}});
  const Json lines =
      obj({{"data", obj({{"values", arr(samples)}})},
           {"transform", arr({cumulative})},
           {"mark", obj({{"type", str("line")}, {"interpolate", str("step-after")}})},
           {"encoding", obj({{"x", x}, {"y", y}, {"color", trainerColor}})}});
  // The two levels, once each: dashed across the plot, labelled at its left.
  const Json oncePerLevel =
      obj({{"aggregate",
            arr({obj({{"op", str("min")}, {"field", str("fraction")}, {"as", str("fraction")}})})},
           {"groupby", vl::strings({"percentile"})}});
  const Json levelRule = obj({{"mark", obj({{"type", str("rule")},
                                            {"color", str("#999")},
                                            {"strokeDash", arr({num(4), num(4)})}})},
                              {"encoding", obj({{"y", y}})}});
  const Json levelLabel =
      obj({{"mark", obj({{"type", str("text")},
                         {"align", str("left")},
                         {"dx", num(4)},
                         {"dy", num(-7)},
                         {"x", num(0)},
                         {"color", str("#555")}})},
           {"encoding", obj({{"y", y}, {"text", field("percentile", "nominal", "")}})}});
  const Json levels = obj({{"data", obj({{"values", arr(marks)}})},
                           {"transform", arr({oncePerLevel})},
                           {"layer", arr({levelRule, levelLabel})}});
  const Json shape = field("percentile", "nominal", "marked",
                           {{"scale", obj({{"domain", vl::strings({"p50", "p95"})},
                                           {"range", vl::strings({"circle", "triangle-up"})}})}});
  const Json points =
      obj({{"data", obj({{"values", arr(marks)}})},
           {"mark", obj({{"type", str("point")},
                         {"filled", Json::boolean(true)},
                         {"size", Json::number(110)},
                         {"stroke", str("white")},
                         {"strokeWidth", num(1.5)},
                         {"opacity", num(1)}})},
           {"encoding",
            obj({{"x", x},
                 {"y", y},
                 {"color", trainerColor},
                 {"shape", shape},
                 {"tooltip",
                  arr({vl::tooltip("trainer", "trainer"), vl::tooltip("percentile", "percentile"),
                       vl::tooltip("seconds", "seconds per epoch", ".4~s")})}})}});
  Json spec = obj({
      {"title", str("Epoch time per trainer: empirical CDF, p50 and p95 marked")},
      {"width", Json::number(760)},
      {"height", Json::number(320)},
      {"layer", arr({lines, levels, points})},
  });
  return {"hybrid-epoch-cdf", std::move(spec)};
}

// The same epochs as box plots, one per trainer and one for every trainer
// pooled, with p95 as a tick beside the box's median.
Chart boxChart(const std::vector<Trainer>& trainers, const report::Series* all) {
  std::vector<Json> samples, p95s;
  std::vector<std::string> order;
  auto add = [&](const std::string& name, const report::Series& series) {
    order.push_back(name);
    for (double seconds : series.samples) {
      samples.push_back(obj({{"trainer", str(name)}, {"seconds", num(seconds)}}));
    }
    p95s.push_back(obj({{"trainer", str(name)}, {"seconds", num(percentileOf(series, 95))}}));
  };
  for (const Trainer& t : trainers) add(t.name, *t.series);
  if (all && !all->samples.empty()) add("all trainers", *all);
  const Json x = field("seconds", "quantitative", "seconds per epoch",
                       {{"scale", obj({{"zero", Json::boolean(false)}})}});
  const Json y = field("trainer", "nominal", "", {{"sort", vl::strings(order)}});
  Json spec = obj({
      {"title", str("Epoch time per trainer: box from p25 to p75, median line, whiskers to "
                    "min and max, p95 tick")},
      {"width", Json::number(760)},
      {"layer",
       arr({obj({{"data", obj({{"values", arr(samples)}})},
                 {"mark", obj({{"type", str("boxplot")}, {"extent", str("min-max")}})},
                 {"encoding", obj({{"x", x}, {"y", y}})}}),
            obj({{"data", obj({{"values", arr(p95s)}})},
                 {"mark", obj({{"type", str("tick")},
                               {"color", str("#d62728")},
                               {"thickness", Json::number(2)}})},
                 {"encoding", obj({{"x", x},
                                   {"y", y},
                                   {"tooltip", arr({vl::tooltip("trainer", "trainer"),
                                                    vl::tooltip("seconds", "p95 seconds per epoch",
                                                                ".4~s")})}})}})})},
  });
  return {"hybrid-epoch-box", std::move(spec)};
}

// Each trainer's batch split into its phases, one bar per trainer. The p50s
// of the phases do not add up to the p50 of a batch, so the title says which
// statistic is stacked. Nothing when no phase has a p50.
std::optional<Chart> phaseChart(const std::vector<Trainer>& trainers) {
  std::vector<PhaseBar> bars;
  for (const Trainer& t : trainers) {
    if (t.phases) bars.push_back({t.name, &*t.phases});
  }
  StackedPhaseChart chart;
  chart.id = "hybrid-phases";
  chart.title = "Per-batch time by phase, per trainer: the p50 of each phase, stacked";
  chart.width = 760;
  chart.barField = "trainer";
  chart.barAxisTitle = "";  // the trainers' names say what they are
  chart.secondsTitle = "seconds per batch (sum of the phases' p50)";
  chart.phases = kPhases;
  chart.statistics = {"p95", "mean"};
  return stackedPhaseChart(chart, bars);
}

}  // namespace

PageSection hybridSection(const report::Report& report) {
  PageSection section{"hybrid", "Epoch times and phases (HybridDDPRPC)", "", {}};
  const Json results = resultsOf(report);
  const std::vector<Trainer> trainers = trainersOf(report, results);
  if (trainers.empty()) {
    section.html = noteParagraph(
        "This report lists no trainer with epoch times (results.trainers), so there is nothing "
        "to draw.");
    return section;
  }

  const Json* allEntry = member(results, "all");
  const report::Series* all = allEntry ? seriesOf(report, *allEntry) : nullptr;
  section.charts.push_back(cdfChart(trainers));
  section.html += chartFigure(
      section.charts.back(),
      "Each line is one trainer's measured epochs (warm-up excluded), sorted: the height at x is "
      "the fraction of epochs that took at most x seconds. Circles mark each trainer's p50, "
      "triangles its p95 (linear interpolation, as the tables and distbench diff compute them).");
  section.charts.push_back(boxChart(trainers, all));
  section.html += chartFigure(section.charts.back(),
                              "The same epochs per trainer, and every trainer's pooled.");

  std::vector<std::string> without;
  for (const Trainer& t : trainers) {
    if (!t.phases) without.push_back(t.name);
  }
  std::optional<Chart> phases = phaseChart(trainers);
  if (!phases) {
    section.html += noteParagraph(
        "No per-phase breakdown: this report has no per-batch phase timings "
        "(results.trainers[].phases: lookup, forward, backward, push, allreduceWait, "
        "optimizerStep). distbench versions before they were recorded wrote reports without "
        "them.");
    return section;
  }
  section.charts.push_back(std::move(*phases));
  std::string caption =
      "Seconds per batch in each phase, over the measured epochs: the p50 of each phase, stacked "
      "in the order the phases happen. A batch's own p50 can differ from the sum.";
  if (!without.empty()) {
    std::string list;
    for (const std::string& name : without) list += (list.empty() ? "" : ", ") + name;
    caption += " No phase timings in this report for: " + list + ".";
  }
  section.html += chartFigure(section.charts.back(), caption);
  return section;
}

}  // namespace distbench::cli
