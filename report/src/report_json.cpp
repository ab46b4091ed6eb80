#include "distbench/report/report_json.h"

#include <cpprest/json.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "distbench/process/replace_file.h"
#include "distbench/report/percentiles.h"

namespace distbench::report {
namespace {

using web::json::value;

std::string join(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}

std::string element(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

// Reads typed fields and throws ReportError naming the source and the field
// path, so a bad report says exactly what to fix.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw ReportError(source_ + ": " + path + ": " + message);
  }

  const value& field(const value& object, const std::string& path, const std::string& name) const {
    if (!object.has_field(name)) fail(join(path, name), "missing (required)");
    return object.at(name);
  }

  const value& asObject(const value& v, const std::string& path) const {
    if (!v.is_object()) fail(path, "must be an object");
    return v;
  }
  const value& asArray(const value& v, const std::string& path) const {
    if (!v.is_array()) fail(path, "must be a list");
    return v;
  }
  std::string asString(const value& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "must be a string");
    return v.as_string();
  }
  double asNumber(const value& v, const std::string& path) const {
    if (!v.is_number()) fail(path, "must be a number");
    const double number = v.as_double();
    if (!std::isfinite(number)) fail(path, notFinite());
    return number;
  }
  // A number between `low` and `high`, both included.
  double numberIn(const value& v, const std::string& path, double low, double high,
                  const std::string& unit = "") const {
    const double number = asNumber(v, path);
    if (number < low || number > high) {
      fail(path, "must be between " + shortNumber(low) + " and " + shortNumber(high) + unit +
                     ", not " + shortNumber(number));
    }
    return number;
  }
  static std::string notFinite() {
    return "must be a finite number (a literal such as 1e999 reads as infinity)";
  }
  static std::string shortNumber(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", x);
    return text;
  }
  int64_t asInt64(const value& v, const std::string& path) const {
    if (!v.is_number() || !v.as_number().is_int64()) fail(path, "must be an integer");
    return v.as_number().to_int64();
  }
  int asInt(const value& v, const std::string& path) const {
    if (!v.is_number() || !v.as_number().is_int32()) fail(path, "must be an integer");
    return v.as_number().to_int32();
  }

  const value& object(const value& o, const std::string& path, const std::string& name) const {
    return asObject(field(o, path, name), join(path, name));
  }
  const value& array(const value& o, const std::string& path, const std::string& name) const {
    return asArray(field(o, path, name), join(path, name));
  }
  std::string string(const value& o, const std::string& path, const std::string& name) const {
    return asString(field(o, path, name), join(path, name));
  }
  double number(const value& o, const std::string& path, const std::string& name) const {
    return asNumber(field(o, path, name), join(path, name));
  }
  int64_t int64(const value& o, const std::string& path, const std::string& name) const {
    return asInt64(field(o, path, name), join(path, name));
  }
  int integer(const value& o, const std::string& path, const std::string& name) const {
    return asInt(field(o, path, name), join(path, name));
  }

  std::map<std::string, std::string> stringMap(const value& o, const std::string& path,
                                               const std::string& name) const {
    const std::string where = join(path, name);
    std::map<std::string, std::string> result;
    for (const auto& [key, v] : object(o, path, name).as_object()) {
      result[key] = asString(v, join(where, key));
    }
    return result;
  }

 private:
  const std::string& source_;
};

void checkSchemaVersion(const Reader& r, const value& root) {
  const int version = r.integer(root, "", "schemaVersion");
  if (version == kSchemaVersion) return;
  const std::string read = "this distbench reads schema version " + std::to_string(kSchemaVersion);
  if (version < kSchemaVersion) {
    r.fail("schemaVersion", "is " + std::to_string(version) + ", " + read +
                                "; the report comes from an older distbench: run the benchmark "
                                "again to compare");
  }
  r.fail("schemaVersion", "is " + std::to_string(version) + ", " + read +
                              "; the report comes from a newer distbench: compare with that one");
}

// Positive counts that add up to the samples: anything else would make a
// comparison resample runs that are not there.
std::vector<int> parseRunSamples(const Reader& r, const value& v, const std::string& path,
                                 size_t sampleCount) {
  const std::string where = join(path, "runSamples");
  const value& counts = r.array(v, path, "runSamples");
  std::vector<int> runSamples;
  size_t total = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const int n = r.asInt(counts.at(i), element(where, i));
    if (n < 1) r.fail(element(where, i), "must be at least 1");
    runSamples.push_back(n);
    total += static_cast<size_t>(n);
  }
  if (total != sampleCount) {
    r.fail(where, "adds up to " + std::to_string(total) + " samples, the series has " +
                      std::to_string(sampleCount));
  }
  return runSamples;
}

// `summary` is derived from the samples and ignored here: the samples are the truth.
Series parseSeries(const Reader& r, const value& v, const std::string& path) {
  r.asObject(v, path);
  Series s;
  s.group = r.string(v, path, "group");
  s.groupKey = r.stringMap(v, path, "groupKey");
  s.row = r.string(v, path, "row");
  s.ranks = r.integer(v, path, "ranks");
  if (s.ranks < 1 || s.ranks > kMaxReportRanks)
    r.fail(join(path, "ranks"), "must be between 1 and " + std::to_string(kMaxReportRanks));
  s.sampleOf = r.string(v, path, "sampleOf");
  if (s.sampleOf != "iteration" && s.sampleOf != "epoch" && s.sampleOf != "op") {
    r.fail(join(path, "sampleOf"),
           "must be \"iteration\", \"epoch\" or \"op\", not \"" + s.sampleOf + "\"");
  }
  s.workPerSample = r.numberIn(r.field(v, path, "workPerSample"), join(path, "workPerSample"), 0,
                               kMaxWorkPerSample);
  s.workUnit = r.string(v, path, "workUnit");
  if (s.workUnit != "examples" && s.workUnit != "bytes") {
    r.fail(join(path, "workUnit"), "must be \"examples\" or \"bytes\", not \"" + s.workUnit + "\"");
  }
  const std::string samplesPath = join(path, "samples");
  const value& samples = r.array(v, path, "samples");
  if (samples.size() == 0) r.fail(samplesPath, "must not be empty");
  s.samples.reserve(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    const double seconds =
        r.numberIn(samples.at(i), element(samplesPath, i), 0, kMaxSampleSeconds, " seconds");
    if (seconds > 0 && seconds < kMinPositiveSampleSeconds) {
      r.fail(element(samplesPath, i),
             "must be 0 or at least " + Reader::shortNumber(kMinPositiveSampleSeconds) +
                 " seconds (no clock measures less), not " + Reader::shortNumber(seconds));
    }
    s.samples.push_back(seconds);
  }
  if (v.has_field("runSamples")) s.runSamples = parseRunSamples(r, v, path, s.samples.size());
  return s;
}

Host parseHost(const Reader& r, const value& root) {
  const value& v = r.object(root, "", "host");
  Host host;
  host.hostname = r.string(v, "host", "hostname");
  host.cpuModel = r.string(v, "host", "cpuModel");
  host.logicalCpus = r.integer(v, "host", "logicalCpus");
  const value& gpus = r.array(v, "host", "gpus");
  for (size_t i = 0; i < gpus.size(); ++i) {
    host.gpus.push_back(r.asString(gpus.at(i), element("host.gpus", i)));
  }
  return host;
}

// Numbers anywhere in the document, the embedded objects (config, results,
// attribution) included: one that is not finite would make the report, and
// any status or page that copies from it, JSON that nobody can read back.
void requireFinite(const Reader& r, const value& v, const std::string& path) {
  if (v.is_number()) {
    if (!std::isfinite(v.as_double()))
      r.fail(path.empty() ? "(document)" : path, Reader::notFinite());
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) requireFinite(r, v.at(i), element(path, i));
  } else if (v.is_object()) {
    for (const auto& [name, field] : v.as_object()) requireFinite(r, field, join(path, name));
  }
}

int topologyCount(const Reader& r, const value& topology, const char* name, int least) {
  const int n = r.integer(topology, "topology", name);
  if (n < least || n > kMaxReportRanks) {
    r.fail(join("topology", name),
           "must be between " + std::to_string(least) + " and " + std::to_string(kMaxReportRanks));
  }
  return n;
}

value embeddedObject(const std::string& text, const char* field) {
  value v;
  try {
    v = value::parse(text);
  } catch (const web::json::json_exception& error) {
    throw ReportError(std::string("report ") + field + ": not valid JSON: " + error.what());
  }
  if (!v.is_object()) throw ReportError(std::string("report ") + field + ": must be a JSON object");
  return v;
}

// Rates for a zero-second percentile would be infinite, which JSON cannot hold.
value rate(double work, double seconds) {
  return seconds > 0 ? value::number(work / seconds) : value::null();
}

value summaryValue(const Summary& s) {
  value v = value::object(true);
  v["count"] = value::number(static_cast<uint64_t>(s.count));
  v["p50"] = value::number(s.p50);
  v["p75"] = value::number(s.p75);
  v["p90"] = value::number(s.p90);
  v["p95"] = value::number(s.p95);
  v["p99"] = value::number(s.p99);
  v["min"] = value::number(s.min);
  v["max"] = value::number(s.max);
  v["mean"] = value::number(s.mean);
  v["stdev"] = value::number(s.stdev);
  return v;
}

value summaryJson(const Series& series, size_t index) {
  if (series.samples.empty()) {
    throw ReportError("report " + element("series", index) + ".samples: must not be empty");
  }
  const Summary s = summarize(series.samples);
  value v = summaryValue(s);
  value rates = value::object(true);
  rates["p50"] = rate(series.workPerSample, s.p50);
  rates["p75"] = rate(series.workPerSample, s.p75);
  rates["p90"] = rate(series.workPerSample, s.p90);
  rates["p95"] = rate(series.workPerSample, s.p95);
  v["ratePerSecond"] = rates;
  return v;
}

value seriesJson(const Series& s, size_t index) {
  value v = value::object(true);
  v["group"] = value::string(s.group);
  value key = value::object(true);
  for (const auto& [name, text] : s.groupKey) key[name] = value::string(text);
  v["groupKey"] = key;
  v["row"] = value::string(s.row);
  v["ranks"] = value::number(s.ranks);
  v["sampleOf"] = value::string(s.sampleOf);
  v["workPerSample"] = value::number(s.workPerSample);
  v["workUnit"] = value::string(s.workUnit);
  value samples = value::array(s.samples.size());
  for (size_t i = 0; i < s.samples.size(); ++i) samples[i] = value::number(s.samples[i]);
  v["samples"] = samples;
  if (!s.runSamples.empty()) {
    value runs = value::array(s.runSamples.size());
    for (size_t i = 0; i < s.runSamples.size(); ++i) runs[i] = value::number(s.runSamples[i]);
    v["runSamples"] = runs;
  }
  v["summary"] = summaryJson(s, index);
  return v;
}

std::string systemError() { return std::strerror(errno); }

}  // namespace

std::string summaryToJson(const std::vector<double>& samples) {
  return summaryValue(summarize(samples)).serialize();
}

std::string summaryToJson(const Summary& summary) { return summaryValue(summary).serialize(); }

std::string toJson(const Report& report) {
  // Insertion order kept so the document reads in the order the schema documents it.
  value root = value::object(true);
  root["schemaVersion"] = value::number(kSchemaVersion);
  value benchmark = value::object(true);
  benchmark["name"] = value::string(report.name);
  benchmark["kind"] = value::string(report.kind);
  root["benchmark"] = benchmark;
  value versions = value::object(true);
  for (const auto& [name, version] : report.versions) versions[name] = value::string(version);
  root["versions"] = versions;
  root["backend"] = value::string(report.backend);
  root["device"] = value::string(report.device);
  value host = value::object(true);
  host["hostname"] = value::string(report.host.hostname);
  host["cpuModel"] = value::string(report.host.cpuModel);
  host["logicalCpus"] = value::number(report.host.logicalCpus);
  value gpus = value::array(report.host.gpus.size());
  for (size_t i = 0; i < report.host.gpus.size(); ++i) gpus[i] = value::string(report.host.gpus[i]);
  host["gpus"] = gpus;
  root["host"] = host;
  value topology = value::object(true);
  topology["trainers"] = value::number(report.trainers);
  topology["parameterServers"] = value::number(report.parameterServers);
  topology["worldSize"] = value::number(report.worldSize);
  root["topology"] = topology;
  root["seed"] = value::number(report.seed);
  root["bucketCapMB"] = value::number(report.bucketCapMB);
  root["config"] = embeddedObject(report.configJson, "config");
  value series = value::array(report.series.size());
  for (size_t i = 0; i < report.series.size(); ++i) series[i] = seriesJson(report.series[i], i);
  root["series"] = series;
  root["results"] = embeddedObject(report.resultsJson, "results");
  if (!report.attributionJson.empty()) {
    root["attribution"] = embeddedObject(report.attributionJson, "attribution");
  }
  if (!report.localJson.empty()) root["local"] = embeddedObject(report.localJson, "local");
  if (!report.masterOutput.empty()) root["masterOutput"] = value::string(report.masterOutput);
  return root.serialize();
}

Report parseReport(const std::string& json, const std::string& source) {
  value root;
  try {
    root = value::parse(json);
  } catch (const web::json::json_exception& error) {
    throw ReportError(source + ": not valid JSON: " + error.what());
  }
  if (!root.is_object()) throw ReportError(source + ": must be a JSON object (a report)");
  const Reader r(source);
  checkSchemaVersion(r, root);
  requireFinite(r, root, "");

  Report report;
  report.schemaVersion = kSchemaVersion;
  const value& benchmark = r.object(root, "", "benchmark");
  report.name = r.string(benchmark, "benchmark", "name");
  report.kind = r.string(benchmark, "benchmark", "kind");
  report.versions = r.stringMap(root, "", "versions");
  report.backend = r.string(root, "", "backend");
  report.device = r.string(root, "", "device");
  report.host = parseHost(r, root);
  const value& topology = r.object(root, "", "topology");
  report.trainers = topologyCount(r, topology, "trainers", 0);
  report.parameterServers = topologyCount(r, topology, "parameterServers", 0);
  report.worldSize = topologyCount(r, topology, "worldSize", 1);
  report.seed = r.int64(root, "", "seed");
  report.bucketCapMB =
      r.numberIn(r.field(root, "", "bucketCapMB"), "bucketCapMB", 0, kMaxBucketCapMB);
  report.configJson = r.object(root, "", "config").serialize();
  const value& series = r.array(root, "", "series");
  for (size_t i = 0; i < series.size(); ++i) {
    report.series.push_back(parseSeries(r, series.at(i), element("series", i)));
  }
  report.resultsJson = r.object(root, "", "results").serialize();
  if (root.has_field("attribution")) {
    report.attributionJson = r.object(root, "", "attribution").serialize();
  }
  if (root.has_field("local")) report.localJson = r.object(root, "", "local").serialize();
  if (root.has_field("masterOutput")) report.masterOutput = r.string(root, "", "masterOutput");
  return report;
}

Report loadReportFile(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw ReportError("cannot read " + path + ": " + systemError());
  std::string text;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, n);
  const bool failed = std::ferror(file);
  const std::string reason = failed ? systemError() : "";
  std::fclose(file);
  if (failed) throw ReportError("cannot read " + path + ": " + reason);
  return parseReport(text, path);
}

void writeReportFile(const std::string& path, const Report& report) {
  const std::string text = toJson(report) + "\n";
  // Written beside the target and renamed over it, so a reader never sees half
  // a report and a failed write leaves an earlier report intact; under a name
  // nobody can plant a link at, since a local run writes as root.
  try {
    process::replaceFile(path, text);
  } catch (const std::runtime_error& error) {
    throw ReportError(error.what());
  }
}

}  // namespace distbench::report
