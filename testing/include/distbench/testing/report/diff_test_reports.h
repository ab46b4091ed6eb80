// Small reports for the diff tests, built in code so each test shows the one
// thing it varies.
#pragma once

#include <string>
#include <vector>

#include "distbench/report/report.h"

namespace distbench::report::testing {

inline Series ddpSeries(const std::string& model, int batchSize, const std::string& row, int ranks,
                        std::vector<double> samples) {
  Series s;
  s.group = model + " with batch size " + std::to_string(batchSize);
  s.groupKey = {{"model", model}, {"batchSize", std::to_string(batchSize)}, {"imageSize", "224"}};
  s.row = row;
  s.ranks = ranks;
  s.sampleOf = "iteration";
  s.workPerSample = batchSize;
  s.workUnit = "examples";
  s.samples = std::move(samples);
  return s;
}

inline Report ddpReport(std::vector<Series> series, double bucketCapMB = 25) {
  Report r;
  r.name = "resnet-sweep";
  r.kind = "DDP";
  r.versions = {{"distbench", "0.2.0"}, {"torch", "1.13.1"}};
  r.backend = "gloo";
  r.device = "cpu";
  r.host = {"vm", "Xeon E5", 2, {}};
  r.trainers = 4;
  r.worldSize = 5;
  r.bucketCapMB = bucketCapMB;
  r.series = std::move(series);
  return r;
}

// n samples spread evenly over [center * (1 - spread), center * (1 + spread)],
// in an order that is not sorted: a deterministic stand-in for noise.
inline std::vector<double> around(double center, double spread, int n = 30) {
  std::vector<double> samples;
  for (int i = 0; i < n; ++i) {
    const int k = (i * 7) % n;  // a permutation while n is not a multiple of 7
    samples.push_back(center * (1 - spread + 2 * spread * k / (n - 1)));
  }
  return samples;
}

}  // namespace distbench::report::testing
