#include "wire.h"

#include <ATen/ATen.h>

namespace distbench::worker {

const char* toString(Op op) {
  switch (op) {
    case Op::CreateShard: return "create_shard";
    case Op::Lookup: return "lookup";
    case Op::PushGrad: return "push_grad";
    case Op::Step: return "step";
    case Op::Shutdown: return "shutdown";
    case Op::Start: return "start";
    case Op::EpochDone: return "epoch_done";
    case Op::Finish: return "finish";
  }
  return "unknown";
}

at::Tensor packHeader(const Header& words) {
  at::Tensor t = at::empty({kHeaderWords}, at::kLong);
  std::memcpy(t.data_ptr<int64_t>(), words.data(), sizeof(int64_t) * kHeaderWords);
  return t;
}

Header unpackHeader(const at::Tensor& tensor) {
  Header words{};
  std::memcpy(words.data(), tensor.data_ptr<int64_t>(), sizeof(int64_t) * kHeaderWords);
  return words;
}

at::Tensor emptyHeader() { return at::zeros({kHeaderWords}, at::kLong); }

at::Tensor ackTensor() { return at::zeros({1}, at::kLong); }

}  // namespace distbench::worker
