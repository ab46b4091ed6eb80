#include "distbench/cli/report_page/stacked_phase_chart.h"

#include <cmath>

#include "distbench/cli/report_page/report_results.h"

namespace distbench::cli {

using vl::arr;
using vl::field;
using vl::Json;
using vl::num;
using vl::obj;
using vl::str;

std::optional<Chart> stackedPhaseChart(const StackedPhaseChart& chart,
                                       const std::vector<PhaseBar>& bars) {
  std::vector<Json> values;
  std::vector<std::string> order;
  for (const PhaseBar& bar : bars) {
    order.push_back(bar.label);
    for (size_t i = 0; i < chart.phases.size(); ++i) {
      const Json* phase = member(*bar.phases, chart.phases[i]);
      const std::optional<double> p50 = phase ? numberAt(*phase, "p50") : std::nullopt;
      if (!p50) continue;
      std::vector<std::pair<std::string, Json>> value = {
          {chart.barField, str(bar.label)},
          {"phase", str(chart.phases[i])},
          {"order", Json::number(static_cast<int>(i))},
          {"seconds", num(*p50)}};
      for (const std::string& statistic : chart.statistics) {
        value.emplace_back(statistic, num(numberAt(*phase, statistic).value_or(NAN)));
      }
      values.push_back(obj(std::move(value)));
    }
  }
  if (values.empty()) return std::nullopt;
  std::vector<Json> tooltip = {vl::tooltip(chart.barField, chart.barField),
                               vl::tooltip("phase", "phase"),
                               vl::tooltip("seconds", "p50 seconds", ".4~s")};
  for (const std::string& statistic : chart.statistics) {
    tooltip.push_back(vl::tooltip(statistic, statistic + " seconds", ".4~s"));
  }
  Json spec = obj({
      {"title", str(chart.title)},
      {"width", Json::number(chart.width)},
      {"data", obj({{"values", arr(values)}})},
      {"mark", str("bar")},
      {"encoding",
       obj({{"y",
             field(chart.barField, "nominal", chart.barAxisTitle, {{"sort", vl::strings(order)}})},
            {"x", field("seconds", "quantitative", chart.secondsTitle, {{"stack", str("zero")}})},
            {"color", field("phase", "nominal", "phase",
                            {{"scale", obj({{"domain", vl::strings(chart.phases)}})}})},
            {"order", field("order", "quantitative", "")},
            {"tooltip", arr(tooltip)}})},
  });
  return Chart{chart.id, std::move(spec)};
}

}  // namespace distbench::cli
