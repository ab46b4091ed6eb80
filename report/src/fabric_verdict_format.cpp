// The Fabric verdict as the master prints it (fabric_verdict.h): a table
// of the nodes, the worst links, then the suspects or the sentence that
// there is none. ASCII only: it goes to terminals and container logs.
#include <algorithm>
#include <cstdio>
#include <string>

#include "distbench/report/fabric_verdict.h"

namespace distbench::report {
namespace {

// Nodes listed at most; the rest are summed up in one line.
constexpr size_t kMaxNodeRows = 32;
constexpr size_t kWorstLinks = 5;

std::string format(const char* pattern, double x) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, x);
  return text;
}

// Decimal units, as bandwidths are quoted: 1.25 GB/s.
std::string bandwidth(double bytesPerSecond) {
  const char* units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  int u = 0;
  while (bytesPerSecond >= 1000 && u < 4) {
    bytesPerSecond /= 1000;
    ++u;
  }
  return format("%.3g", bytesPerSecond) + " " + units[u];
}

std::string interval(const FabricEstimate& e) {
  return bandwidth(e.value) + " [" + bandwidth(e.low) + ", " + bandwidth(e.high) + "]";
}

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s + " ";
}

std::string nodeStatus(const FabricNodeVerdict& n) {
  std::string s;
  if (n.link != FabricStatus::Ok) s = std::string(toString(n.link)) + " link";
  if (n.computeStatus != FabricStatus::Ok) {
    s += (s.empty() ? "" : ", ") + std::string(toString(n.computeStatus)) + " compute";
  }
  return s.empty() ? "ok" : s;
}

}  // namespace

std::string formatFabricVerdict(const FabricVerdict& v, const FabricMeasurements& m) {
  std::string out = "fabric: " + std::to_string(m.nodes.size()) + " nodes, " +
                    std::to_string(v.pairsMeasured) + " of " + std::to_string(v.pairsTotal) +
                    " pairs measured; line " + bandwidth(v.lineBandwidth) + " at " +
                    std::to_string(v.bytes) + " bytes";
  if (v.lineCompute > 0) out += ", " + format("%.4g", v.lineCompute / 1e9) + " GFLOP/s";
  out += " (" + v.lineSource + ")\n";

  // Not-ok nodes first, then by bandwidth, so a long list still shows them.
  std::vector<const FabricNodeVerdict*> rows;
  for (const FabricNodeVerdict& n : v.nodes) rows.push_back(&n);
  std::stable_sort(rows.begin(), rows.end(), [](const auto* x, const auto* y) {
    const bool xOk = x->link == FabricStatus::Ok && x->computeStatus == FabricStatus::Ok;
    const bool yOk = y->link == FabricStatus::Ok && y->computeStatus == FabricStatus::Ok;
    if (xOk != yOk) return !xOk;
    return false;
  });
  out += pad("name", 14) + pad("node", 14) + pad("bandwidth [low, high]", 36) + pad("GFLOP/s", 9) +
         pad("peers", 7) + "status\n";
  for (size_t i = 0; i < rows.size() && i < kMaxNodeRows; ++i) {
    const FabricNodeVerdict& n = *rows[i];
    out += pad(m.nodes[n.index].name, 14) + pad(m.nodes[n.index].node, 14) +
           pad(n.peersMeasured > 0 ? interval(n.bandwidth) : "-", 36) +
           pad(n.compute.value > 0 ? format("%.4g", n.compute.value / 1e9) : "-", 9) +
           pad(std::to_string(n.slowPeers) + "/" + std::to_string(n.peersMeasured), 7) +
           nodeStatus(n) + "\n";
  }
  if (rows.size() > kMaxNodeRows) {
    out += "... and " + std::to_string(rows.size() - kMaxNodeRows) + " more nodes, all ok\n";
  }

  std::vector<const FabricLinkVerdict*> links;
  for (const FabricLinkVerdict& l : v.links) links.push_back(&l);
  std::sort(links.begin(), links.end(),
            [](const auto* x, const auto* y) { return x->bandwidth.value < y->bandwidth.value; });
  if (!links.empty()) out += "worst links:\n";
  for (size_t i = 0; i < links.size() && i < kWorstLinks; ++i) {
    const FabricLinkVerdict& l = *links[i];
    out += "  " + pad(m.nodes[l.a].name + "-" + m.nodes[l.b].name, 28) +
           pad(interval(l.bandwidth), 36) + toString(l.status) +
           (l.blame.empty() ? "" : " (" + l.blame + ")") + "\n";
  }
  if (v.allreduceBusBandwidth) {
    out += "allreduce bus bandwidth: " + interval(*v.allreduceBusBandwidth) + "\n";
  }
  if (v.suspects.empty()) {
    out += "no suspect: every node and link within " + format("%g", v.thresholdPercent) +
           " % of the line\n";
    return out;
  }
  out += "suspects:\n";
  for (const FabricSuspect& s : v.suspects) {
    const std::string estimate = s.what == "compute"
                                     ? format("%.4g", s.estimate.value / 1e9) + " GFLOP/s [" +
                                           format("%.4g", s.estimate.low / 1e9) + ", " +
                                           format("%.4g", s.estimate.high / 1e9) + "]"
                                     : interval(s.estimate);
    out += "  " + std::string(toString(s.status)) + ": " + s.what + " " + s.where + ": " +
           estimate + "; " + s.evidence + "\n";
  }
  return out;
}

}  // namespace distbench::report
