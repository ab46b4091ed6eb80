#include "distbench/worker/hybrid/state_dump.h"

#include <torch/serialize.h>

#include <filesystem>

namespace distbench::worker {

void saveTensor(const at::Tensor& tensor, const std::string& dir, const std::string& file) {
  saveTensors({tensor}, dir, file);
}

void saveTensors(const std::vector<at::Tensor>& tensors, const std::string& dir,
                 const std::string& file) {
  std::filesystem::create_directories(dir);
  torch::save(tensors, (std::filesystem::path(dir) / file).string());
}

std::vector<at::Tensor> loadTensors(const std::string& path) {
  std::vector<at::Tensor> tensors;
  torch::load(tensors, path);
  return tensors;
}

}  // namespace distbench::worker
