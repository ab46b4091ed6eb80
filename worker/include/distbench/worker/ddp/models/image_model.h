// The interface of the image classifiers the DDP benchmark trains. Callers only see this
// interface, so adding a model touches the factory (model_factory.h) and nothing that trains it;
// each model (resnet.h, small_cnn.h) implements it and the factory names them all.
#pragma once

// Not torch/torch.h: every file that picks a model includes this, and the full header costs
// seconds of compile time per file on a 2-core builder.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

namespace distbench::worker {

class ImageModel : public torch::nn::Module {
 public:
  // images: float [N, 3, H, W]; returns logits [N, numClasses]. Global average pooling comes
  // before the classifier, so H and W are free (ResNets downsample 32x, smallcnn 8x).
  virtual at::Tensor forward(const at::Tensor& images) = 0;
};

}  // namespace distbench::worker
