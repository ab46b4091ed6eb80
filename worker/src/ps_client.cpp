#include "ps_client.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <chrono>

#include "distbench/api/renderer.h"
#include "wire.h"

namespace distbench::worker {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int64_t bytesOf(const at::Tensor& t) { return t.numel() * static_cast<int64_t>(t.element_size()); }

}  // namespace

ParameterServerClient::ParameterServerClient(ProcessGroup& global, int numParameterServers,
                                             int trainerIndex, int64_t embeddingDim,
                                             WorkerMetrics& metrics)
    : global_(global),
      numPs_(numParameterServers),
      trainerIndex_(trainerIndex),
      dim_(embeddingDim),
      metrics_(metrics) {}

std::vector<at::Tensor> ParameterServerClient::lookup(int64_t step, const at::Tensor& indices,
                                                      const at::Tensor& offsets) {
  c10::AutoGradMode noGrad(false);
  const int64_t bags = offsets.size(0);
  at::Tensor header = packHeader({static_cast<int64_t>(Op::Lookup), trainerIndex_, step,
                                  indices.size(0), bags, 0, 0, 0});
  at::Tensor payload = at::cat({indices, offsets});
  const auto start = Clock::now();
  std::vector<PendingOp> sends, replies;
  std::vector<at::Tensor> results;
  for (int p = 0; p < numPs_; ++p) {
    const int rank = api::parameterServerRank(p);
    sends.push_back(global_.send(header, rank, kTagRequest));
    sends.push_back(global_.send(payload, rank, kTagPayload));
  }
  for (int p = 0; p < numPs_; ++p) {
    results.push_back(at::empty({bags, dim_}, at::kFloat));
    replies.push_back(global_.recv(results.back(), api::parameterServerRank(p), kTagReply));
  }
  for (int p = 0; p < numPs_; ++p) {
    replies[p].wait();
    metrics_.observeRpc("lookup", secondsSince(start), bytesOf(header) + bytesOf(payload),
                        bytesOf(results[p]));
  }
  for (auto& s : sends) s.wait();
  return results;
}

void ParameterServerClient::pushGradients(int64_t step, const std::vector<at::Tensor>& gradients) {
  c10::AutoGradMode noGrad(false);
  const auto start = Clock::now();
  std::vector<at::Tensor> headers, payloads, acks;
  std::vector<PendingOp> sends, replies;
  for (int p = 0; p < numPs_; ++p) {
    const int rank = api::parameterServerRank(p);
    payloads.push_back(gradients[p].contiguous());
    headers.push_back(packHeader({static_cast<int64_t>(Op::PushGrad), trainerIndex_, step,
                                  payloads.back().size(0), dim_, 0, 0, 0}));
    sends.push_back(global_.send(headers.back(), rank, kTagRequest));
    sends.push_back(global_.send(payloads.back(), rank, kTagPayload));
  }
  for (int p = 0; p < numPs_; ++p) {
    acks.push_back(ackTensor());
    replies.push_back(global_.recv(acks.back(), api::parameterServerRank(p), kTagReply));
  }
  for (int p = 0; p < numPs_; ++p) {
    replies[p].wait();
    metrics_.observeRpc("push_grad", secondsSince(start),
                        bytesOf(headers[p]) + bytesOf(payloads[p]), bytesOf(acks[p]));
  }
  for (auto& s : sends) s.wait();
}

void ParameterServerClient::step(int64_t step) {
  const auto start = Clock::now();
  at::Tensor header =
      packHeader({static_cast<int64_t>(Op::Step), trainerIndex_, step, 0, 0, 0, 0, 0});
  std::vector<at::Tensor> acks;
  std::vector<PendingOp> sends, replies;
  for (int p = 0; p < numPs_; ++p) {
    sends.push_back(global_.send(header, api::parameterServerRank(p), kTagRequest));
  }
  for (int p = 0; p < numPs_; ++p) {
    acks.push_back(ackTensor());
    replies.push_back(global_.recv(acks.back(), api::parameterServerRank(p), kTagReply));
  }
  for (int p = 0; p < numPs_; ++p) {
    replies[p].wait();
    metrics_.observeRpc("step", secondsSince(start), bytesOf(header), bytesOf(acks[p]));
  }
  for (auto& s : sends) s.wait();
}

}  // namespace distbench::worker
