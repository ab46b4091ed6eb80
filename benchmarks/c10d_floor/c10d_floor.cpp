// distbench-c10d-floor: what c10d Gloo itself costs on this machine, with no
// benchmark around it. Forks N ranks on loopback and times (1) a ping-pong
// between rank 0 and 1 with the receive posted first, as distbench's PS
// messages are, and (2) bare allreduce calls of the given sizes among all
// ranks, as DDP issues them. A hybrid benchmark iteration cannot be faster
// than its lookups' round trip plus its dense allreduce: this is that floor.
//
// usage: distbench-c10d-floor [--ranks N] [--floats A,B,...] [--iterations K]
// (--help prints the flags; a bad flag exits 2 before any rank starts)
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "distbench/benchmarks/integer_flag.h"
#include "distbench/process/free_ports.h"
#include "distbench/worker/comm/process_group.h"
#include "distbench/worker/comm/store_connection.h"

using distbench::worker::connectTcpStore;
using distbench::worker::GroupOptions;
using distbench::worker::ProcessGroup;
using Clock = std::chrono::steady_clock;

namespace {

double microseconds(Clock::time_point start, int iterations) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count() / iterations;
}

constexpr const char* kUsage =
    "usage: distbench-c10d-floor [--ranks N] [--floats A,B,...] [--iterations K]\n"
    "\n"
    "Times c10d Gloo with no benchmark around it: N ranks forked on loopback, a\n"
    "4 KiB ping-pong between ranks 0 and 1, then bare allreduce calls of each size.\n"
    "\n"
    "  --ranks N          ranks, >= 2 (default 8)\n"
    "  --floats A,B,...   allreduce sizes in float32 elements (default 8,2200,175000)\n"
    "  --iterations K     calls timed per measurement, >= 1 (default 200)\n"
    "  --help             this text\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A whole decimal integer in [minimum, maximum], or a UsageError naming the flag.
long long parseInteger(const std::string& flag, const std::string& text, long long minimum,
                       long long maximum = std::numeric_limits<int>::max()) {
  return distbench::bench::integerFlag<UsageError>(flag, text, minimum, maximum);
}

std::vector<int64_t> parseSizes(const std::string& flag, const std::string& text) {
  std::vector<int64_t> sizes;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    sizes.push_back(parseInteger(flag, item, 1, std::numeric_limits<int64_t>::max()));
  if (sizes.empty()) throw UsageError(flag + ": no sizes given");
  return sizes;
}

int runRank(int rank, int world, int port, const std::vector<int64_t>& sizes, int iterations) {
  at::set_num_threads(1);
  auto store = connectTcpStore("127.0.0.1", port, /*isServer=*/rank == 0, std::chrono::seconds(60));
  GroupOptions groupOptions;  // Gloo on the CPU, over loopback
  groupOptions.hostname = "127.0.0.1";
  groupOptions.timeout = std::chrono::seconds(60);
  ProcessGroup group(c10::make_intrusive<c10d::PrefixStore>("floor", store), rank, world,
                     groupOptions, [](int r) { return "rank " + std::to_string(r); });

  at::Tensor out = at::zeros({4096}, at::kByte), in = at::zeros({4096}, at::kByte);
  group.barrier();
  auto start = Clock::now();
  for (int i = 0; i < iterations && rank < 2; ++i) {
    auto reply = group.recv(in, 1 - rank, 1);
    if (rank == 0) {
      group.send(out, 1, 1).wait();
      reply.wait();
    } else {
      reply.wait();
      group.send(out, 0, 1).wait();
    }
  }
  if (rank == 0)
    std::printf("ping-pong 4 KiB, rank 0 <-> 1: %9.1f us round trip\n",
                microseconds(start, iterations));
  for (int64_t floats : sizes) {
    at::Tensor t = at::ones({floats}, at::kFloat);
    group.barrier();
    start = Clock::now();
    for (int i = 0; i < iterations; ++i) group.allreduceSum(t).wait();
    if (rank == 0) {
      std::printf("allreduce %9lld floats, %2d ranks: %9.1f us\n", static_cast<long long>(floats),
                  world, microseconds(start, iterations));
    }
  }
  group.barrier();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int world = 8, iterations = 200;
  std::vector<int64_t> sizes{8, 2200, 175000};  // tiny, tutorial-ish, default dense stack
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string flag = argv[i];
      if (flag == "--help" || flag == "-h") {
        std::fputs(kUsage, stdout);
        return 0;
      }
      if (flag != "--ranks" && flag != "--floats" && flag != "--iterations")
        throw UsageError("unknown flag " + flag);
      if (i + 1 >= argc) throw UsageError(flag + " needs a value");
      const std::string value = argv[++i];
      if (flag == "--ranks")
        world = static_cast<int>(parseInteger(flag, value, 2, 1024));
      else if (flag == "--floats")
        sizes = parseSizes(flag, value);
      else
        iterations = static_cast<int>(parseInteger(flag, value, 1));
    }
  } catch (const UsageError& error) {
    std::fprintf(stderr, "distbench-c10d-floor: %s\nsee 'distbench-c10d-floor --help'\n",
                 error.what());
    return 2;
  }
  const int port = distbench::process::pickFreePorts(1)[0];
  std::fflush(stdout);
  std::vector<pid_t> children;
  for (int r = 1; r < world; ++r) {
    pid_t pid = fork();
    if (pid == 0) _exit(runRank(r, world, port, sizes, iterations));
    children.push_back(pid);
  }
  int status = runRank(0, world, port, sizes, iterations);
  for (pid_t pid : children) {
    int s = 0;
    waitpid(pid, &s, 0);
    if (!WIFEXITED(s) || WEXITSTATUS(s) != 0) status = 1;
  }
  return status;
}
