#include "distbench/worker/ddp/ddp_sweep.h"

#include <algorithm>
#include <cstdio>

namespace distbench::worker {
namespace {

SweepRow layoutRow(int machines, int perMachine, bool gpus) {
  SweepRow row;
  row.machines = machines;
  row.ranksPerMachine = perMachine;
  row.ranks = machines * perMachine;
  row.label = std::to_string(machines) + "M/" + std::to_string(perMachine) + (gpus ? "G" : "R");
  return row;
}

}  // namespace

std::vector<SweepRow> planDdpSweep(int trainers, int ranksPerMachine, bool gpus) {
  std::vector<SweepRow> rows;
  SweepRow baseline;
  baseline.label = "no ddp";
  baseline.ddp = false;
  rows.push_back(baseline);
  // One machine: doubling, up to a full machine or every trainer.
  const int onOne = std::min(trainers, ranksPerMachine);
  for (int n = 1; n < onOne; n *= 2) rows.push_back(layoutRow(1, n, gpus));
  rows.push_back(layoutRow(1, onOne, gpus));
  // Then whole machines.
  for (int m = 2; m * ranksPerMachine <= trainers; ++m) {
    rows.push_back(layoutRow(m, ranksPerMachine, gpus));
  }
  return rows;
}

std::string sweepRowPrefix(const SweepRow& row, bool gpus) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%4d %s -- %8s", row.ranks, gpus ? "GPUs" : "ranks",
                row.label.c_str());
  return buffer;
}

}  // namespace distbench::worker
