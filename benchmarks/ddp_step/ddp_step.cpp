// distbench-ddp-step: one DDP sweep row of the DDP kind (runDdpRow, the code
// `distbench run` executes), without the operator's rendezvous, run control
// or metrics around it, so `perf record` sees only the training loop. Forks
// N ranks on loopback (N = 0: the `no ddp` row, the plain model) and prints,
// from every rank's measured iterations pooled, the p50 of each phase; with
// --buckets, rank 0's per-bucket timeline (p50 over the measured
// iterations, milliseconds from the start of backward). Also the minor page
// faults per measured iteration (getrusage), which is where most of a
// ResNet-18 iteration's time can go on glibc's allocator.
//
// usage: distbench-ddp-step [--ranks N] [--model M] [--batch B] [--image S]
//                           [--iterations K] [--warmup W] [--bucket-cap-mb C]
//                           [--threads T] [--buckets]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "distbench/process/free_ports.h"
#include "distbench/worker/comm/ddp_bucketer.h"
#include "distbench/worker/comm/process_group.h"
#include "distbench/worker/comm/store_connection.h"
#include "distbench/worker/common/resident_heap.h"
#include "distbench/worker/ddp/ddp_row.h"

using distbench::worker::BucketTiming;
using distbench::worker::DdpPhaseSamples;
using distbench::worker::ComputeDevice;
using distbench::worker::connectTcpStore;
using distbench::worker::GroupOptions;
using distbench::worker::ProcessGroup;

namespace {

struct Options {
  int ranks = 1;
  int threads = 1;
  bool buckets = false;
  distbench::api::DistBenchmarkSpec spec;
};

double p50(std::vector<double> xs) {
  if (xs.empty()) return 0;
  std::sort(xs.begin(), xs.end());
  const double pos = (xs.size() - 1) * 0.5;
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, xs.size() - 1);
  return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo);
}

// Each rank writes its flattened samples (and rank 0 its bucket timeline)
// to the store; rank 0 prints.
int runRank(int rank, const Options& o, int port) {
  at::set_num_threads(o.threads);
  const int world = std::max(o.ranks, 1);
  auto store = connectTcpStore("127.0.0.1", port, /*isServer=*/rank == 0, std::chrono::seconds(300));
  GroupOptions groupOptions;  // Gloo on the CPU, over loopback
  groupOptions.hostname = "127.0.0.1";
  groupOptions.timeout = std::chrono::seconds(300);
  std::unique_ptr<ProcessGroup> group;
  if (o.ranks > 0) {
    group = std::make_unique<ProcessGroup>(c10::make_intrusive<c10d::PrefixStore>("step", store),
                                           rank, world, groupOptions,
                                           [](int r) { return "rank " + std::to_string(r); });
  }
  const auto& ddp = o.spec.benchmark.ddp;
  std::vector<std::vector<BucketTiming>> timelines;
  distbench::worker::BucketTimelineSink sink;
  if (o.buckets && rank == 0) {
    sink = [&](const std::vector<BucketTiming>& t) { timelines.push_back(t); };
  }
  // Minor page faults over the measured iterations: counted from the call
  // before the first of them.
  int calls = 0;
  long faultsBefore = 0;
  auto minorFaults = [] {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
  };
  auto between = [&] {
    if (calls++ == ddp.warmupIterations) faultsBefore = minorFaults();
  };
  DdpPhaseSamples s =
      distbench::worker::runDdpRow(o.spec, ddp.models.at(0), rank, ComputeDevice::cpu(),
                                   group.get(), nullptr, between, sink);
  const double faults = static_cast<double>(minorFaults() - faultsBefore) / ddp.iterations;
  std::vector<double> flat = s.flatten();
  flat.push_back(faults);
  std::vector<uint8_t> bytes(reinterpret_cast<uint8_t*>(flat.data()),
                             reinterpret_cast<uint8_t*>(flat.data() + flat.size()));
  store->set("samples/" + std::to_string(rank), bytes);
  if (rank != 0) return 0;

  DdpPhaseSamples all;
  double faultsPerRank = 0;
  for (int r = 0; r < world; ++r) {
    std::vector<uint8_t> got = store->get("samples/" + std::to_string(r));
    std::vector<double> values(got.size() / sizeof(double));
    std::copy(got.begin(), got.end(), reinterpret_cast<uint8_t*>(values.data()));
    faultsPerRank += values.back() / world;
    values.pop_back();
    DdpPhaseSamples one = DdpPhaseSamples::unflatten(values, ddp.iterations);
    auto append = [](std::vector<double>& to, const std::vector<double>& from) {
      to.insert(to.end(), from.begin(), from.end());
    };
    append(all.iteration, one.iteration);
    append(all.forward, one.forward);
    append(all.backward, one.backward);
    append(all.allreduceWait, one.allreduceWait);
    append(all.optimizerStep, one.optimizerStep);
  }
  std::printf("%s, batch %d, image %d, %s, %d x %d iterations, p50 ms:\n",
              ddp.models[0].c_str(), ddp.batchSize, ddp.imageSize,
              o.ranks == 0 ? "no ddp" : (std::to_string(o.ranks) + " rank(s)").c_str(), world,
              ddp.iterations);
  std::printf("  iteration %8.2f\n  forward   %8.2f\n  backward  %8.2f\n  wait      %8.2f\n"
              "  step      %8.2f\n",
              1e3 * p50(all.iteration), 1e3 * p50(all.forward), 1e3 * p50(all.backward),
              1e3 * p50(all.allreduceWait), 1e3 * p50(all.optimizerStep));
  std::printf("  page faults per iteration and rank: %.0f\n", faultsPerRank);
  if (!timelines.empty()) {
    std::printf("rank 0 buckets (launch order), p50 ms from the start of backward:\n"
                "  bucket  params      MB   first grad   launched   allreduce done\n");
    for (size_t b = 0; b < timelines[0].size(); ++b) {
      std::vector<double> first, launched, done;
      for (const auto& t : timelines) {
        first.push_back(t[b].firstGradient);
        launched.push_back(t[b].launched);
        done.push_back(t[b].completed);
      }
      const BucketTiming& t = timelines[0][b];
      std::printf("  %6zu  %6zu  %6.2f   %10.2f %10.2f %16.2f\n", b, t.parameters,
                  t.bytes / 1048576.0, 1e3 * p50(first), 1e3 * p50(launched), 1e3 * p50(done));
    }
  }
  return 0;
}

}  // namespace

constexpr const char* kUsage =
    "usage: distbench-ddp-step [--ranks N] [--model M] [--batch B] [--image S]\n"
    "                          [--iterations K] [--warmup W] [--bucket-cap-mb C]\n"
    "                          [--threads T] [--buckets]\n"
    "  One DDP sweep row on N forked ranks on loopback (N = 0: no ddp), for perf:\n"
    "  the p50 of each phase, page faults per iteration, and with --buckets\n"
    "  rank 0's per-bucket timeline. Defaults: 1 rank, resnet18, batch 16, 64 px,\n"
    "  20 iterations after 3 warm-up.\n";

int main(int argc, char** argv) {
  // As distbench-worker does, so the phases measured here are the worker's.
  const std::string heap = distbench::worker::keepHeapResident();
  Options o;
  auto& ddp = o.spec.benchmark.ddp;
  ddp.models = {"resnet18"};
  ddp.batchSize = 16;
  ddp.imageSize = 64;
  ddp.warmupIterations = 3;
  ddp.iterations = 20;
  const std::vector<std::string> valued = {"--ranks",  "--model",      "--batch",
                                           "--image",  "--iterations", "--warmup",
                                           "--bucket-cap-mb", "--threads"};
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (flag == "--buckets") {
      o.buckets = true;
      continue;
    }
    if (std::find(valued.begin(), valued.end(), flag) == valued.end()) {
      std::fprintf(stderr, "distbench-ddp-step: unknown flag %s\n%s", flag.c_str(), kUsage);
      return 2;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "distbench-ddp-step: %s needs a value\n", flag.c_str());
      return 2;
    }
    std::string value = argv[++i];
    try {
      if (flag == "--ranks")
        o.ranks = std::stoi(value);
      else if (flag == "--model")
        ddp.models = {value};
      else if (flag == "--batch")
        ddp.batchSize = std::stoi(value);
      else if (flag == "--image")
        ddp.imageSize = std::stoi(value);
      else if (flag == "--iterations")
        ddp.iterations = std::stoi(value);
      else if (flag == "--warmup")
        ddp.warmupIterations = std::stoi(value);
      else if (flag == "--bucket-cap-mb")
        o.spec.benchmark.bucketCapMB = std::stod(value);
      else if (flag == "--threads")
        o.threads = std::stoi(value);
    } catch (const std::exception&) {
      std::fprintf(stderr, "distbench-ddp-step: %s needs a number, not '%s'\n", flag.c_str(),
                   value.c_str());
      return 2;
    }
  }
  if (o.ranks < 0 || ddp.iterations < 1 || ddp.warmupIterations < 0) {
    std::fprintf(stderr, "--ranks must be >= 0 (0: no ddp), --iterations >= 1, --warmup >= 0\n");
    return 2;
  }
  std::fprintf(stderr, "distbench-ddp-step: %s\n", heap.c_str());
  const int port = distbench::process::pickFreePorts(1)[0];
  std::fflush(stdout);
  std::vector<pid_t> children;
  for (int r = 1; r < o.ranks; ++r) {
    pid_t pid = fork();
    if (pid == 0) _exit(runRank(r, o, port));
    children.push_back(pid);
  }
  int status = runRank(0, o, port);
  for (pid_t pid : children) {
    int s = 0;
    waitpid(pid, &s, 0);
    if (!WIFEXITED(s) || WEXITSTATUS(s) != 0) status = 1;
  }
  return status;
}
