// The Fabric part of the report page: the pair matrix as a heat map (each
// measured link's bandwidth against the line, so a slow node is a dark row
// and column and a slow link one dark cell), then the suspects and the
// nodes with their intervals. The verdict is report::judgeFabric's at the
// run's own threshold, as the master printed it and the operator wrote it.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "distbench/cli/report_page/html_table.h"
#include "distbench/cli/report_page/page_numbers.h"
#include "distbench/cli/report_page/report_page_sections.h"
#include "distbench/cli/report_page/report_results.h"
#include "distbench/report/fabric.h"
#include "distbench/report/fabric_verdict.h"

namespace distbench::cli {
namespace {

using vl::arr;
using vl::field;
using vl::Json;
using vl::num;
using vl::obj;
using vl::str;

// The run's spec.benchmark.fabric.thresholdPercent, from its resolved
// config; the kind's default where the report lacks it.
double thresholdOf(const report::Report& r) {
  double threshold = report::FabricVerdictOptions{}.thresholdPercent;
  try {
    const Json config = Json::parse(r.configJson);
    const Json* spec = member(config, "spec");
    const Json* benchmark = spec ? member(*spec, "benchmark") : nullptr;
    const Json* fabric = benchmark ? member(*benchmark, "fabric") : nullptr;
    if (fabric) threshold = numberAt(*fabric, "thresholdPercent").value_or(threshold);
  } catch (const std::exception&) {
  }
  return threshold;
}

std::string flopRate(double flops) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3g GFLOP/s", flops / 1e9);
  return text;
}

std::string interval(const report::FabricEstimate& e, double scale, const char* unit) {
  char text[96];
  std::snprintf(text, sizeof text, "%.3g %s [%.3g, %.3g]", e.value / scale, unit, e.low / scale,
                e.high / scale);
  return text;
}

std::string label(const report::FabricNode& n) {
  return n.node.empty() ? n.name : n.name + " (" + n.node + ")";
}

Chart pairMatrix(const report::FabricVerdict& v, const report::FabricMeasurements& m) {
  std::vector<Json> cells;
  std::vector<Json> order;
  for (const report::FabricNode& n : m.nodes) order.push_back(str(label(n)));
  for (const report::FabricLinkVerdict& l : v.links) {
    const double ratio = v.lineBandwidth > 0 ? l.bandwidth.value / v.lineBandwidth : 0;
    for (const auto& [x, y] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
      cells.push_back(obj({{"x", str(label(m.nodes[static_cast<size_t>(x)]))},
                           {"y", str(label(m.nodes[static_cast<size_t>(y)]))},
                           {"ratio", num(ratio)},
                           {"bandwidth", num(l.bandwidth.value)},
                           {"status", str(report::toString(l.status))}}));
    }
  }
  Json spec = obj({
      {"title", str("Link bandwidth against the line, per pair of nodes")},
      {"width", Json::number(std::min<size_t>(760, 40 + 28 * m.nodes.size()))},
      {"height", Json::number(std::min<size_t>(760, 40 + 28 * m.nodes.size()))},
      {"data", obj({{"values", arr(cells)}})},
      {"mark", str("rect")},
      {"encoding", obj({{"x", field("x", "nominal", "node", {{"sort", arr(order)}})},
                        {"y", field("y", "nominal", "peer", {{"sort", arr(order)}})},
                        {"color", field("ratio", "quantitative", "bandwidth / line",
                                        {{"scale", obj({{"domain", arr({num(0), num(1.25)})},
                                                        {"scheme", str("redyellowgreen")},
                                                        {"clamp", Json::boolean(true)}})}})},
                        {"tooltip", arr({vl::tooltip("x", "node"), vl::tooltip("y", "peer"),
                                         vl::tooltip("bandwidth", "bytes/s", ".4~s"),
                                         vl::tooltip("ratio", "of the line", ".2f"),
                                         vl::tooltip("status", "status")})}})},
  });
  return {"fabric-matrix", std::move(spec)};
}

}  // namespace

PageSection fabricSection(const report::Report& run) {
  PageSection section{"fabric", "Where the fabric is slow (Fabric)", "", {}};
  report::FabricMeasurements m;
  try {
    m = report::parseFabric(run.resultsJson, "report");
  } catch (const report::ReportError& e) {
    section.html = noteParagraph(std::string("No fabric measurements to draw: ") + e.what());
    return section;
  }
  report::FabricVerdictOptions options;
  options.thresholdPercent = thresholdOf(run);
  const report::FabricVerdict v = report::judgeFabric(m, options);

  section.html += noteParagraph(
      std::to_string(v.pairsMeasured) + " of " + std::to_string(v.pairsTotal) +
      " pairs measured; line " + formatRate(v.lineBandwidth, "bytes") + " (" + v.lineSource +
      "); a link, node or probe is slow when its whole 95 % interval lies below " +
      formatNumber(100 - options.thresholdPercent) + " %" +
      " of the line, inconclusive where the interval straddles that.");
  if (v.suspects.empty()) {
    section.html += noteParagraph("No suspect: every node, link and compute probe is within " +
                                  formatNumber(options.thresholdPercent) + " %" + " of the line.");
  } else {
    HtmlTable suspects({"status", "what", "where", "estimate [95 % interval]", "line", "evidence"});
    for (const report::FabricSuspect& s : v.suspects) {
      const bool compute = s.what == "compute";
      suspects.addRow({report::toString(s.status), s.what, s.where,
                       interval(s.estimate, 1e9, compute ? "GFLOP/s" : "GB/s"),
                       compute ? flopRate(s.line) : formatRate(s.line, "bytes"), s.evidence},
                      s.status == report::FabricStatus::Slow ? "regressed" : "");
    }
    section.html += suspects.html();
  }
  if (!v.links.empty()) {
    section.charts.push_back(pairMatrix(v, m));
    section.html += chartFigure(
        section.charts.back(),
        "Each measured pair's bandwidth (bytes / median seconds at the largest message, both "
        "directions) over the line; pairs not measured are blank. A slow node is a dark row "
        "and column, a slow link one dark cell.");
  }
  HtmlTable nodes({"node", "links [95 % interval]", "links", "compute [95 % interval]", "compute",
                   "peers measured", "slow peers"});
  for (const report::FabricNodeVerdict& n : v.nodes) {
    nodes.addRow({label(m.nodes[static_cast<size_t>(n.index)]), interval(n.bandwidth, 1e9, "GB/s"),
                  report::toString(n.link), interval(n.compute, 1e9, "GFLOP/s"),
                  report::toString(n.computeStatus), std::to_string(n.peersMeasured),
                  std::to_string(n.slowPeers)});
  }
  section.html += nodes.html();
  return section;
}

}  // namespace distbench::cli
