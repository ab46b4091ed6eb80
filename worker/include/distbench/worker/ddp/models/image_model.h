// The image classifiers the DDP benchmark trains, chosen by name from the spec. Callers only see
// this interface, so adding a model touches the factory and nothing that trains it.
#pragma once

// Not torch/torch.h: every file that picks a model includes this, and the full header costs
// seconds of compile time per file on a 2-core builder.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace distbench::worker {

class ImageModel : public torch::nn::Module {
 public:
  // images: float [N, 3, H, W]; returns logits [N, numClasses]. Global average pooling comes
  // before the classifier, so H and W are free (ResNets downsample 32x, smallcnn 8x).
  virtual at::Tensor forward(const at::Tensor& images) = 0;
};

// Names as torchvision spells them (plus "smallcnn"), in the order help text should list them.
std::vector<std::string> imageModelNames();

// A freshly initialised model (torchvision's init, from the global torch RNG: seed it first for
// reproducible weights). Throws std::invalid_argument for an unknown name, listing the known
// ones, or for numClasses < 1.
std::shared_ptr<ImageModel> makeImageModel(const std::string& name, int64_t numClasses);

}  // namespace distbench::worker
