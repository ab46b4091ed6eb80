// Final model state written for tests and audits (--dump-state DIR).
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

namespace distbench::worker {

void saveTensor(const at::Tensor& tensor, const std::string& dir, const std::string& file);
void saveTensors(const std::vector<at::Tensor>& tensors, const std::string& dir,
                 const std::string& file);
std::vector<at::Tensor> loadTensors(const std::string& path);

}  // namespace distbench::worker
