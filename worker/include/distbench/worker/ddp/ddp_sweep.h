// The rows of the DDP benchmark's sweep (seed 002): a `no ddp` baseline, then
// 1, 2, 4, ... ranks of one machine, then whole machines. Locally a
// "machine" is a layout of ranksPerMachine processes; the labels say what
// ran (R for CPU ranks, G for GPUs), as the seed's "1M/8G".
#pragma once

#include <string>
#include <vector>

namespace distbench::worker {

struct SweepRow {
  std::string label;  // "no ddp", "1M/2R", "2M/8G"
  int ranks = 1;
  int machines = 1;
  int ranksPerMachine = 1;
  bool ddp = true;  // false only for the baseline: the model without DDP
};

std::vector<SweepRow> planDdpSweep(int trainers, int ranksPerMachine, bool gpus);

// The seed's row prefix: "   2 ranks --    1M/2R" ("GPUs" with gpus).
std::string sweepRowPrefix(const SweepRow& row, bool gpus);

}  // namespace distbench::worker
