// torchvision 0.14's ResNet family (torchvision.models.resnet), layer for layer and with the same
// state_dict names, so a DDP run on "resnet50" here moves the same gradients as PyTorch's and
// its numbers compare with published ones.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "distbench/worker/ddp/models/image_model.h"

namespace distbench::worker {

enum class ResidualBlock {
  kBasic,       // two 3x3 convs; resnet18/34
  kBottleneck,  // 1x1, grouped 3x3 (carries the stride: "V1.5"), 1x1 with 4x expansion
};

// torchvision.models.resnet.ResNet's constructor arguments, minus the ones every torchvision
// preset leaves at their defaults (zero_init_residual, dilation, norm_layer).
struct ResNetConfig {
  ResidualBlock block = ResidualBlock::kBottleneck;
  std::array<int64_t, 4> layers{3, 4, 6, 3};  // blocks in layer1..layer4
  int64_t groups = 1;
  int64_t widthPerGroup = 64;
  int64_t numClasses = 1000;
};

ResNetConfig resnet18Config(int64_t numClasses = 1000);
ResNetConfig resnet50Config(int64_t numClasses = 1000);
ResNetConfig resnet101Config(int64_t numClasses = 1000);
ResNetConfig resnext50_32x4dConfig(int64_t numClasses = 1000);
ResNetConfig resnext101_32x8dConfig(int64_t numClasses = 1000);

// Throws std::invalid_argument where torchvision would refuse the config (a basic block with
// groups != 1 or widthPerGroup != 64) or where it would fail later (non-positive sizes).
std::shared_ptr<ImageModel> makeResNet(const ResNetConfig& config);

}  // namespace distbench::worker
