// distbench-c10d-floor: what c10d Gloo itself costs on this machine, with no
// benchmark around it. Forks N ranks on loopback and times (1) a ping-pong
// between rank 0 and 1 with the receive posted first, as distbench's PS
// messages are, and (2) bare allreduce calls of the given sizes among all
// ranks, as DDP issues them. A hybrid benchmark iteration cannot be faster
// than its lookups' round trip plus its dense allreduce: this is that floor.
//
// usage: distbench-c10d-floor [--ranks N] [--floats A,B,...] [--iterations K]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <vector>

#include "free_ports.h"
#include "comm/process_group.h"

using distbench::worker::ProcessGroup;
using Clock = std::chrono::steady_clock;

namespace {

double microseconds(Clock::time_point start, int iterations) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count() / iterations;
}

std::vector<int64_t> parseSizes(const std::string& text) {
  std::vector<int64_t> sizes;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) sizes.push_back(std::stoll(item));
  return sizes;
}

int runRank(int rank, int world, int port, const std::vector<int64_t>& sizes, int iterations) {
  at::set_num_threads(1);
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(port);
  options.isServer = rank == 0;
  options.waitWorkers = false;
  options.timeout = std::chrono::seconds(60);
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
  ProcessGroup group(c10::make_intrusive<c10d::PrefixStore>("floor", store), rank, world,
                     "127.0.0.1", std::chrono::seconds(60),
                     [](int r) { return "rank " + std::to_string(r); });

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
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--ranks")
      world = std::stoi(argv[i + 1]);
    else if (flag == "--floats")
      sizes = parseSizes(argv[i + 1]);
    else if (flag == "--iterations")
      iterations = std::stoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (world < 2) {
    std::fprintf(stderr, "--ranks must be ≥ 2\n");
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
