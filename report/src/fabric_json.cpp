// The Fabric kind's raw measurements as the "fabric" member of a report's
// results (docs/report-schema.md, results.fabric), and back. The reader
// refuses what report_json.cpp refuses for series (numbers that are not
// finite, seconds out of kMinPositiveSampleSeconds..kMaxSampleSeconds, more
// than kMaxReportRanks nodes) and what would make the verdict wrong without
// an error: a pair naming a node that is not there, a node paired with
// itself, a pair and size given twice.
#include <cpprest/json.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>

#include "distbench/report/fabric.h"
#include "distbench/report/report.h"
#include "distbench/report/report_json.h"

namespace distbench::report {
namespace {

using web::json::value;

// A GEMM's 2 n^3 at n = 10^6 is 2e18: nothing a probe would run.
constexpr double kMaxProbeFlop = 1e18;
// A message of a terabyte is not a transfer the kind makes.
constexpr int64_t kMaxMessageBytes = int64_t{1} << 40;

std::string join(const std::string& path, const std::string& name) { return path + "." + name; }
std::string element(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}
std::string shortNumber(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

// Typed fields that throw ReportError naming the source and the field path,
// as report_json.cpp's reader does.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw ReportError(source_ + ": " + path + ": " + message);
  }
  const value& field(const value& o, const std::string& path, const std::string& name) const {
    if (!o.has_field(name)) fail(join(path, name), "missing (required)");
    return o.at(name);
  }
  const value& object(const value& o, const std::string& path, const std::string& name) const {
    const value& v = field(o, path, name);
    if (!v.is_object()) fail(join(path, name), "must be an object");
    return v;
  }
  const value& array(const value& v, const std::string& path) const {
    if (!v.is_array()) fail(path, "must be a list");
    return v;
  }
  const value& array(const value& o, const std::string& path, const std::string& name) const {
    return array(field(o, path, name), join(path, name));
  }
  std::string string(const value& o, const std::string& path, const std::string& name) const {
    const value& v = field(o, path, name);
    if (!v.is_string()) fail(join(path, name), "must be a string");
    return v.as_string();
  }
  int64_t int64In(const value& o, const std::string& path, const std::string& name, int64_t low,
                  int64_t high) const {
    const value& v = field(o, path, name);
    const std::string where = join(path, name);
    if (!v.is_number() || !v.as_number().is_int64()) fail(where, "must be an integer");
    const int64_t n = v.as_number().to_int64();
    if (n < low || n > high) {
      fail(where, "must be between " + std::to_string(low) + " and " + std::to_string(high) +
                      ", not " + std::to_string(n));
    }
    return n;
  }
  double numberIn(const value& o, const std::string& path, const std::string& name, double low,
                  double high) const {
    const value& v = field(o, path, name);
    const std::string where = join(path, name);
    if (!v.is_number()) fail(where, "must be a number");
    const double x = v.as_double();
    if (!std::isfinite(x)) fail(where, notFinite());
    if (x < low || x > high) {
      fail(where, "must be between " + shortNumber(low) + " and " + shortNumber(high) + ", not " +
                      shortNumber(x));
    }
    return x;
  }
  // Seconds per sample: positive, finite, within the report's bounds.
  std::vector<double> seconds(const value& v, const std::string& path, bool allowEmpty) const {
    if (!v.is_array()) fail(path, "must be a list of numbers");
    if (!allowEmpty && v.size() == 0) fail(path, "must not be empty");
    std::vector<double> result;
    result.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      const value& x = v.at(i);
      if (!x.is_number()) fail(path, "must be a list of numbers");
      const double s = x.as_double();
      if (!std::isfinite(s)) fail(element(path, i), notFinite());
      if (s < kMinPositiveSampleSeconds || s > kMaxSampleSeconds) {
        fail(element(path, i), "must be between " + shortNumber(kMinPositiveSampleSeconds) +
                                   " and " + shortNumber(kMaxSampleSeconds) + " seconds, not " +
                                   shortNumber(s));
      }
      result.push_back(s);
    }
    return result;
  }
  static std::string notFinite() {
    return "must be a finite number (a literal such as 1e999 reads as infinity)";
  }

 private:
  const std::string& source_;
};

value secondsJson(const std::vector<double>& seconds) {
  value list = value::array(seconds.size());
  for (size_t i = 0; i < seconds.size(); ++i) list[i] = value::number(seconds[i]);
  return list;
}

}  // namespace

std::string fabricToJson(const FabricMeasurements& m) {
  value root = value::object(true);
  value nodes = value::array(m.nodes.size());
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    const FabricNode& n = m.nodes[i];
    value v = value::object(true);
    v["rank"] = value::number(n.rank);
    v["name"] = value::string(n.name);
    v["node"] = value::string(n.node);
    v["group"] = value::string(n.group);
    v["probeSeconds"] =
        secondsJson(i < m.probeSeconds.size() ? m.probeSeconds[i] : std::vector<double>{});
    nodes[i] = v;
  }
  root["nodes"] = nodes;
  value probe = value::object(true);
  probe["flop"] = value::number(m.probeFlop);
  probe["device"] = value::string(m.probeDevice);
  root["probe"] = probe;
  value pairs = value::array(m.pairs.size());
  for (size_t i = 0; i < m.pairs.size(); ++i) {
    const FabricPairSamples& p = m.pairs[i];
    value v = value::object(true);
    v["a"] = value::number(p.a);
    v["b"] = value::number(p.b);
    v["bytes"] = value::number(p.bytes);
    v["round"] = value::number(p.round);
    v["aToB"] = secondsJson(p.aToB);
    v["bToA"] = secondsJson(p.bToA);
    pairs[i] = v;
  }
  root["pairs"] = pairs;
  value allreduce = value::object(true);
  allreduce["bytes"] = value::number(m.allreduceBytes);
  allreduce["seconds"] = secondsJson(m.allreduceSeconds);
  root["allreduce"] = allreduce;
  return root.serialize();
}

FabricMeasurements parseFabric(const std::string& resultsJson, const std::string& source) {
  value root;
  try {
    root = value::parse(resultsJson);
  } catch (const web::json::json_exception& error) {
    throw ReportError(source + ": results: not valid JSON: " + error.what());
  }
  const Reader r(source);
  if (!root.is_object()) r.fail("results", "must be an object");
  const std::string path = "results.fabric";
  const value& f = r.object(root, "results", "fabric");
  FabricMeasurements m;

  const std::string nodesPath = join(path, "nodes");
  const value& nodes = r.array(f, path, "nodes");
  if (nodes.size() < 1 || nodes.size() > static_cast<size_t>(kMaxReportRanks)) {
    r.fail(nodesPath, "must hold between 1 and " + std::to_string(kMaxReportRanks) +
                          " nodes, not " + std::to_string(nodes.size()));
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string at = element(nodesPath, i);
    const value& v = nodes.at(i);
    if (!v.is_object()) r.fail(at, "must be an object");
    FabricNode n;
    n.rank = static_cast<int>(r.int64In(v, at, "rank", 0, kMaxReportRanks - 1));
    n.name = r.string(v, at, "name");
    n.node = r.string(v, at, "node");
    n.group = r.string(v, at, "group");
    m.nodes.push_back(n);
    m.probeSeconds.push_back(r.seconds(r.field(v, at, "probeSeconds"), join(at, "probeSeconds"),
                                       /*allowEmpty=*/true));
  }

  const value& probe = r.object(f, path, "probe");
  m.probeFlop = r.numberIn(probe, join(path, "probe"), "flop", 0, kMaxProbeFlop);
  m.probeDevice = r.string(probe, join(path, "probe"), "device");
  if (m.probeDevice != "cpu" && m.probeDevice != "cuda") {
    r.fail(join(path, "probe.device"),
           "must be \"cpu\" or \"cuda\", not \"" + m.probeDevice + "\"");
  }

  const std::string pairsPath = join(path, "pairs");
  const value& pairs = r.array(f, path, "pairs");
  const int64_t last = static_cast<int64_t>(m.nodes.size()) - 1;
  std::set<std::tuple<int, int, int64_t>> seen;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const std::string at = element(pairsPath, i);
    const value& v = pairs.at(i);
    if (!v.is_object()) r.fail(at, "must be an object");
    FabricPairSamples p;
    p.a = static_cast<int>(r.int64In(v, at, "a", 0, last));
    p.b = static_cast<int>(r.int64In(v, at, "b", 0, last));
    if (p.a >= p.b) {
      r.fail(at, "a (" + std::to_string(p.a) + ") must be less than b (" + std::to_string(p.b) +
                     "): a node is not paired with itself, and a pair is written once");
    }
    p.bytes = r.int64In(v, at, "bytes", 1, kMaxMessageBytes);
    p.round = static_cast<int>(r.int64In(v, at, "round", 0, kMaxReportRanks * int64_t{64}));
    p.aToB = r.seconds(r.field(v, at, "aToB"), join(at, "aToB"), /*allowEmpty=*/false);
    p.bToA = r.seconds(r.field(v, at, "bToA"), join(at, "bToA"), /*allowEmpty=*/false);
    if (!seen.insert({p.a, p.b, p.bytes}).second) {
      r.fail(at, "nodes " + std::to_string(p.a) + " and " + std::to_string(p.b) + " at " +
                     std::to_string(p.bytes) + " bytes are given twice");
    }
    m.pairs.push_back(std::move(p));
  }

  const std::string allreducePath = join(path, "allreduce");
  const value& allreduce = r.object(f, path, "allreduce");
  m.allreduceBytes = r.int64In(allreduce, allreducePath, "bytes", 0, kMaxMessageBytes);
  m.allreduceSeconds = r.seconds(r.field(allreduce, allreducePath, "seconds"),
                                 join(allreducePath, "seconds"), /*allowEmpty=*/true);
  if (!m.allreduceSeconds.empty() && m.allreduceBytes < 1) {
    r.fail(join(allreducePath, "bytes"), "must be at least 1 where seconds are given");
  }
  return m;
}

}  // namespace distbench::report
