// What a master prints on stdout around its result table: the seeds'
// banners, and text flushed as it comes, so a table that grows row by row
// (the DDP sweep) shows each row when it completes. All of it is kept, too:
// the report carries it (Report::masterOutput), so that the table a cluster
// run printed can be shown where its pod's log is gone.
#pragma once

#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"

namespace distbench::worker {

struct DeviceFacts;

// The seeds' info lines: versions, backend, device (on GPU runs the CUDA,
// NCCL and cuDNN versions and the GPUs, from `gpus`), then "* Topology: "
// `topology` ("2 ranks, 1 master") and a blank line.
void printInfo(const api::DistBenchmark& benchmark, const std::string& topology,
               const std::vector<DeviceFacts>& gpus);

// The DDP seed's banner, `title` over the info lines, for kinds whose ranks
// are all trainers. Printed before the run so rows can follow as they
// complete.
void printSuiteBanner(const api::DistBenchmark& benchmark, const char* title,
                      const std::vector<DeviceFacts>& gpus);

// Prints `text` and keeps it.
void printNow(const std::string& text);

// Everything printNow (and the functions above) printed so far.
std::string printedSoFar();

}  // namespace distbench::worker
