// The Collectives part of the report page: nccl-tests' two plots, latency
// and bus bandwidth against message size, both axes logarithmic.
#include <algorithm>
#include <string>
#include <vector>

#include "distbench/cli/report_page/page_numbers.h"
#include "distbench/cli/report_page/report_page_sections.h"
#include "distbench/cli/report_page/report_results.h"

namespace distbench::cli {
namespace {

using vl::arr;
using vl::field;
using vl::Json;
using vl::num;
using vl::obj;
using vl::str;

// Sizes are powers of the sweep's step: label them in binary units.
const char* const kBytesLabel =
    "datum.value >= 1073741824 ? format(datum.value / 1073741824, '~g') + ' GiB'"
    " : datum.value >= 1048576 ? format(datum.value / 1048576, '~g') + ' MiB'"
    " : datum.value >= 1024 ? format(datum.value / 1024, '~g') + ' KiB'"
    " : format(datum.value, '~g') + ' B'";

// Ticks at the sizes measured, not at the scale's own round numbers.
Json bytesAxis(const std::vector<double>& sizes) {
  std::vector<Json> ticks;
  for (double size : sizes) ticks.push_back(num(size));
  return field("bytes", "quantitative", "message size (bytes, nccl-tests' size)",
               {{"scale", obj({{"type", str("log")}, {"base", Json::number(2)}})},
                {"axis", obj({{"values", arr(ticks)},
                              {"labelExpr", str(kBytesLabel)},
                              {"labelOverlap", str("greedy")}})}});
}

Chart sizeChart(const std::string& id, const std::string& title, const std::vector<Json>& points,
                const std::string& yField, const std::string& yTitle, const std::string& yFormat) {
  std::vector<double> sizes;
  for (const Json& point : points) {
    const double size = point.at("bytes").as_double();
    if (std::find(sizes.begin(), sizes.end(), size) == sizes.end()) sizes.push_back(size);
  }
  std::sort(sizes.begin(), sizes.end());
  Json spec = obj({
      {"title", str(title)},
      {"width", Json::number(760)},
      {"height", Json::number(340)},
      {"data", obj({{"values", arr(points)}})},
      {"mark", obj({{"type", str("line")}, {"point", Json::boolean(true)}})},
      {"encoding", obj({{"x", bytesAxis(sizes)},
                        {"y", field(yField, "quantitative", yTitle,
                                    {{"scale", obj({{"type", str("log")}})},
                                     {"axis", obj({{"format", str(yFormat)}})}})},
                        {"color", field("collective", "nominal", "op and dtype")},
                        {"tooltip", arr({vl::tooltip("collective", "op and dtype"),
                                         vl::tooltip("bytes", "bytes", ",d"),
                                         vl::tooltip(yField, yTitle, ".4~s")})}})},
  });
  return {id, std::move(spec)};
}

}  // namespace

PageSection collectivesSection(const report::Report& report) {
  PageSection section{"collectives", "Latency and bus bandwidth (Collectives)", "", {}};
  std::vector<Json> latency, busbw;
  int dropped = 0;  // points a logarithmic axis cannot place
  for (const Json& op : listAt(resultsOf(report), "ops")) {
    const std::string collective =
        stringAt(op, "op").value_or("?") + " " + stringAt(op, "dtype").value_or("?");
    // Missing is as undrawable as zero: both become 0 here.
    const double bytes = numberAt(op, "bytes").value_or(0);
    const Json* latencies = member(op, "latency");
    const double p50 = latencies ? numberAt(*latencies, "p50").value_or(0) : 0;
    const double bus = numberAt(op, "busbwGBps").value_or(0);
    auto add = [&](std::vector<Json>& points, const std::string& name, double value) {
      if (bytes > 0 && value > 0) {
        points.push_back(
            obj({{"collective", str(collective)}, {"bytes", num(bytes)}, {name, num(value)}}));
      } else {
        ++dropped;
      }
    };
    add(latency, "latency", p50);
    add(busbw, "busbwGBps", bus);
  }
  if (latency.empty() && busbw.empty()) {
    section.html = noteParagraph("This report lists no op results (results.ops): nothing to draw.");
    return section;
  }
  if (!latency.empty()) {
    section.charts.push_back(sizeChart("collectives-latency",
                                       "Latency (p50) against message size, per op and dtype",
                                       latency, "latency", "p50 latency (seconds)", "~s"));
    section.html += chartFigure(
        section.charts.back(),
        "Median time of one op at each size; each iteration's time is the slowest rank's. "
        "Both axes are logarithmic.");
  }
  if (!busbw.empty()) {
    section.charts.push_back(sizeChart(
        "collectives-busbw", "Bus bandwidth (at p50) against message size, per op and dtype", busbw,
        "busbwGBps", "busbw (GB/s)", "~g"));
    section.html += chartFigure(
        section.charts.back(),
        "nccl-tests' bus bandwidth: bytes / p50 / 1e9 times the op's factor for the rank count, "
        "comparable across ops. Both axes are logarithmic.");
  }
  if (dropped > 0) {
    section.html += noteParagraph(std::to_string(dropped) +
                                  " values of zero or less, or missing, are not drawn: a "
                                  "logarithmic axis has no place for them.");
  }
  return section;
}

}  // namespace distbench::cli
