#include "distbench/worker/ddp/models/small_cnn.h"

#include <torch/nn/init.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/pooling.h>

namespace distbench::worker {
namespace {

// Four conv+BN+ReLU stages, each 3x3 with padding 1 and no conv bias (BN has one):
//   features.0  Conv2d(3, 32, stride 1)    features.1  BatchNorm2d(32)   features.2  ReLU
//   features.3  Conv2d(32, 64, stride 2)   features.4  BatchNorm2d(64)   features.5  ReLU
//   features.6  Conv2d(64, 128, stride 2)  features.7  BatchNorm2d(128)  features.8  ReLU
//   features.9  Conv2d(128, 256, stride 2) features.10 BatchNorm2d(256)  features.11 ReLU
//   avgpool     AdaptiveAvgPool2d(1, 1)
//   fc          Linear(256, numClasses)
// 388,896 parameters before fc (convs 387,936, BN 960), 645,896 in all with 1000 classes. The
// stride-8 total leaves 4x4 of a 32x32 (CIFAR-sized) input. Initialised like the ResNets.
class SmallCnn : public ImageModel {
 public:
  explicit SmallCnn(int64_t numClasses) {
    features_ = register_module("features", torch::nn::Sequential());
    int64_t in = 3;
    int64_t stride = 1;
    for (int64_t out : {32, 64, 128, 256}) {
      features_->push_back(torch::nn::Conv2d(
          torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)));
      features_->push_back(torch::nn::BatchNorm2d(out));
      features_->push_back(torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
      in = out;
      stride = 2;
    }
    avgpool_ = register_module(
        "avgpool", torch::nn::AdaptiveAvgPool2d(torch::nn::AdaptiveAvgPool2dOptions({1, 1})));
    fc_ = register_module("fc", torch::nn::Linear(in, numClasses));

    for (const auto& module : modules(/*include_self=*/false)) {
      if (auto* conv = module->as<torch::nn::Conv2d>()) {
        torch::nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
      }
    }
  }

  at::Tensor forward(const at::Tensor& images) override {
    return fc_->forward(torch::flatten(avgpool_->forward(features_->forward(images)), 1));
  }

 private:
  torch::nn::Sequential features_{nullptr};
  torch::nn::AdaptiveAvgPool2d avgpool_{nullptr};
  torch::nn::Linear fc_{nullptr};
};

}  // namespace

std::shared_ptr<ImageModel> makeSmallCnn(int64_t numClasses) {
  return std::make_shared<SmallCnn>(numClasses);
}

}  // namespace distbench::worker
