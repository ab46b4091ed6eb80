// The JSON report every benchmark kind writes (docs/report-schema.md), as
// plain C++ values. One envelope for all kinds; every measurement lives in
// `series`, which is what `distbench diff` compares, so the diff works the
// same for DDP sweeps, collectives and the hybrid benchmark. Kind-specific
// derived figures (scaling efficiency, busbw, ...) ride along as JSON text in
// `resultsJson`. No LibTorch and no cpprest types here: the CLI reads reports
// without linking either.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace distbench::report {

inline constexpr int kSchemaVersion = 2;

struct Host {
  std::string hostname;
  std::string cpuModel;
  int logicalCpus = 0;
  std::vector<std::string> gpus;  // device names, empty on CPU runs
};

// One row of measurements: samples of one thing, pooled over the ranks that
// ran it.
struct Series {
  // The heading rows are grouped under, as `distbench diff` prints it:
  // "resnet50 with batch size 32", "allreduce float32", "HybridDDPRPC".
  std::string group;
  // What must be equal for two groups to be comparable; the diff refuses to
  // compare groups whose keys differ (model, batchSize, imageSize; op,
  // dtype; ...). Values are strings as they print.
  std::map<std::string, std::string> groupKey;
  // The row within the group: "1M/2R", "no ddp", "1048576", "Trainer0", "All".
  std::string row;
  int ranks = 1;  // replicas (or ranks) that produced the samples
  // Every sample is seconds per one `sampleOf`: "iteration", "epoch", "op".
  std::string sampleOf = "iteration";
  // What one replica processed per sample, for rates: examples per iteration
  // (DDP: the batch size), examples per epoch, or bytes per op.
  double workPerSample = 0;
  std::string workUnit = "examples";  // "examples" | "bytes"
  std::vector<double> samples;        // seconds, in the order measured
  // Where the series pools several runs (a rolling baseline,
  // baseline_pool.h): how many of `samples` each run gave, in order, so a
  // comparison can resample runs as well as samples. Empty: one run.
  std::vector<int> runSamples;
};

struct Report {
  int schemaVersion = kSchemaVersion;
  std::string name;  // metadata.name of the DistBenchmark
  std::string kind;  // HybridDDPRPC | DDP | Collectives
  // "distbench", "torch", and where they apply "cuda", "nccl".
  std::map<std::string, std::string> versions;
  std::string backend;  // gloo | nccl
  std::string device;   // cpu | cuda
  Host host;
  int trainers = 0;
  int parameterServers = 0;
  int worldSize = 0;
  int64_t seed = 0;
  double bucketCapMB = 0;
  std::string configJson = "{}";   // the resolved DistBenchmark, as JSON text
  std::vector<Series> series;
  std::string resultsJson = "{}";  // kind-specific figures, a JSON object as text
  // Optional blocks, a JSON object as text or "" where the report has none:
  // why the run is as fast as it is (attribution.h), and what `distbench
  // run` knows of its ranks that they cannot see themselves (emulated links,
  // CPU caps and their counters).
  std::string attributionJson;
  std::string localJson;
  // What the master printed on stdout, as it printed it: the banner, the
  // result table and the attribution footer. "" in reports from before it.
  std::string masterOutput;
};

// A report that cannot be read: the message names the file and the field.
struct ReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace distbench::report
