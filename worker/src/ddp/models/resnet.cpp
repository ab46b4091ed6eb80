#include "distbench/worker/ddp/models/resnet.h"

#include <torch/nn/init.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/pooling.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace distbench::worker {
namespace {

// torchvision's conv3x3 / conv1x1: never a bias, since a BatchNorm follows every conv.
torch::nn::Conv2d conv3x3(int64_t in, int64_t out, int64_t stride, int64_t groups) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).groups(groups).bias(false));
}

torch::nn::Conv2d conv1x1(int64_t in, int64_t out, int64_t stride) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 1).stride(stride).bias(false));
}

// LibTorch's defaults (eps 1e-5, momentum 0.1, affine, running stats) are nn.BatchNorm2d's.
torch::nn::BatchNorm2d batchNorm(int64_t channels) { return torch::nn::BatchNorm2d(channels); }

// Members are registered in torchvision's attribute order, so named_parameters() lists them in
// state_dict order and the names match ("conv1", "bn1", ..., "downsample.0").
class BasicBlockImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kExpansion = 1;

  BasicBlockImpl(int64_t inplanes, int64_t planes, int64_t stride, torch::nn::Sequential downsample)
      : conv1_(register_module("conv1", conv3x3(inplanes, planes, stride, 1))),
        bn1_(register_module("bn1", batchNorm(planes))),
        conv2_(register_module("conv2", conv3x3(planes, planes, 1, 1))),
        bn2_(register_module("bn2", batchNorm(planes))),
        downsample_(std::move(downsample)) {
    if (downsample_) register_module("downsample", downsample_);
  }

  at::Tensor forward(const at::Tensor& x) {
    at::Tensor out = torch::relu(bn1_->forward(conv1_->forward(x)));
    out = bn2_->forward(conv2_->forward(out));
    out += downsample_ ? downsample_->forward(x) : x;
    return torch::relu_(out);
  }

 private:
  torch::nn::Conv2d conv1_;
  torch::nn::BatchNorm2d bn1_;
  torch::nn::Conv2d conv2_;
  torch::nn::BatchNorm2d bn2_;
  torch::nn::Sequential downsample_;
};

class BottleneckImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kExpansion = 4;

  BottleneckImpl(int64_t inplanes, int64_t planes, int64_t stride, torch::nn::Sequential downsample,
                 int64_t groups, int64_t widthPerGroup)
      : width_(planes * widthPerGroup / 64 * groups),  // int(planes * (base_width / 64.)) * groups
        conv1_(register_module("conv1", conv1x1(inplanes, width_, 1))),
        bn1_(register_module("bn1", batchNorm(width_))),
        conv2_(register_module("conv2", conv3x3(width_, width_, stride, groups))),
        bn2_(register_module("bn2", batchNorm(width_))),
        conv3_(register_module("conv3", conv1x1(width_, planes * kExpansion, 1))),
        bn3_(register_module("bn3", batchNorm(planes * kExpansion))),
        downsample_(std::move(downsample)) {
    if (downsample_) register_module("downsample", downsample_);
  }

  at::Tensor forward(const at::Tensor& x) {
    at::Tensor out = torch::relu(bn1_->forward(conv1_->forward(x)));
    out = torch::relu(bn2_->forward(conv2_->forward(out)));
    out = bn3_->forward(conv3_->forward(out));
    out += downsample_ ? downsample_->forward(x) : x;
    return torch::relu_(out);
  }

 private:
  int64_t width_;
  torch::nn::Conv2d conv1_;
  torch::nn::BatchNorm2d bn1_;
  torch::nn::Conv2d conv2_;
  torch::nn::BatchNorm2d bn2_;
  torch::nn::Conv2d conv3_;
  torch::nn::BatchNorm2d bn3_;
  torch::nn::Sequential downsample_;
};

class ResNet : public ImageModel {
 public:
  explicit ResNet(const ResNetConfig& config)
      : config_(config),
        conv1_(register_module(
            "conv1", torch::nn::Conv2d(
                         torch::nn::Conv2dOptions(3, 64, 7).stride(2).padding(3).bias(false)))),
        bn1_(register_module("bn1", batchNorm(64))),
        maxpool_(register_module(
            "maxpool", torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(3).stride(2).padding(1)))) {
    // Each make_layer call advances inplanes_, so the four must run in this order.
    layer1_ = register_module("layer1", makeLayer(64, config.layers[0], 1));
    layer2_ = register_module("layer2", makeLayer(128, config.layers[1], 2));
    layer3_ = register_module("layer3", makeLayer(256, config.layers[2], 2));
    layer4_ = register_module("layer4", makeLayer(512, config.layers[3], 2));
    avgpool_ = register_module(
        "avgpool", torch::nn::AdaptiveAvgPool2d(torch::nn::AdaptiveAvgPool2dOptions({1, 1})));
    fc_ = register_module("fc", torch::nn::Linear(512 * expansion(), config.numClasses));

    // torchvision's init; fc keeps nn.Linear's default, which LibTorch's Linear also uses.
    for (const auto& module : modules(/*include_self=*/false)) {
      if (auto* conv = module->as<torch::nn::Conv2d>()) {
        torch::nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
      } else if (auto* bn = module->as<torch::nn::BatchNorm2d>()) {
        torch::nn::init::ones_(bn->weight);
        torch::nn::init::zeros_(bn->bias);
      }
    }
  }

  at::Tensor forward(const at::Tensor& images) override {
    at::Tensor x = maxpool_->forward(torch::relu(bn1_->forward(conv1_->forward(images))));
    x = layer4_->forward(layer3_->forward(layer2_->forward(layer1_->forward(x))));
    return fc_->forward(torch::flatten(avgpool_->forward(x), 1));
  }

 private:
  int64_t expansion() const {
    return config_.block == ResidualBlock::kBasic ? BasicBlockImpl::kExpansion
                                                  : BottleneckImpl::kExpansion;
  }

  // torchvision's _make_layer: only the first block strides, and only it needs a projection
  // shortcut (when the stride or the channel count changes).
  torch::nn::Sequential makeLayer(int64_t planes, int64_t blocks, int64_t stride) {
    const int64_t outChannels = planes * expansion();
    torch::nn::Sequential downsample{nullptr};
    if (stride != 1 || inplanes_ != outChannels) {
      downsample =
          torch::nn::Sequential(conv1x1(inplanes_, outChannels, stride), batchNorm(outChannels));
    }
    torch::nn::Sequential layer;
    for (int64_t i = 0; i < blocks; ++i) {
      const int64_t blockStride = i == 0 ? stride : 1;
      torch::nn::Sequential shortcut = i == 0 ? downsample : torch::nn::Sequential(nullptr);
      if (config_.block == ResidualBlock::kBasic) {
        layer->push_back(
            std::make_shared<BasicBlockImpl>(inplanes_, planes, blockStride, shortcut));
      } else {
        layer->push_back(std::make_shared<BottleneckImpl>(inplanes_, planes, blockStride, shortcut,
                                                          config_.groups, config_.widthPerGroup));
      }
      inplanes_ = outChannels;
    }
    return layer;
  }

  ResNetConfig config_;
  int64_t inplanes_ = 64;
  torch::nn::Conv2d conv1_;
  torch::nn::BatchNorm2d bn1_;
  torch::nn::MaxPool2d maxpool_;
  torch::nn::Sequential layer1_{nullptr};
  torch::nn::Sequential layer2_{nullptr};
  torch::nn::Sequential layer3_{nullptr};
  torch::nn::Sequential layer4_{nullptr};
  torch::nn::AdaptiveAvgPool2d avgpool_{nullptr};
  torch::nn::Linear fc_{nullptr};
};

ResNetConfig bottleneckConfig(std::array<int64_t, 4> layers, int64_t groups, int64_t widthPerGroup,
                              int64_t numClasses) {
  return ResNetConfig{ResidualBlock::kBottleneck, layers, groups, widthPerGroup, numClasses};
}

}  // namespace

ResNetConfig resnet18Config(int64_t numClasses) {
  return ResNetConfig{ResidualBlock::kBasic, {2, 2, 2, 2}, 1, 64, numClasses};
}

ResNetConfig resnet50Config(int64_t numClasses) {
  return bottleneckConfig({3, 4, 6, 3}, 1, 64, numClasses);
}

ResNetConfig resnet101Config(int64_t numClasses) {
  return bottleneckConfig({3, 4, 23, 3}, 1, 64, numClasses);
}

ResNetConfig resnext50_32x4dConfig(int64_t numClasses) {
  return bottleneckConfig({3, 4, 6, 3}, 32, 4, numClasses);
}

ResNetConfig resnext101_32x8dConfig(int64_t numClasses) {
  return bottleneckConfig({3, 4, 23, 3}, 32, 8, numClasses);
}

std::shared_ptr<ImageModel> makeResNet(const ResNetConfig& config) {
  if (config.block == ResidualBlock::kBasic && (config.groups != 1 || config.widthPerGroup != 64)) {
    throw std::invalid_argument("ResNet: a basic block only supports groups=1, widthPerGroup=64");
  }
  for (int64_t blocks : config.layers) {
    if (blocks < 1) throw std::invalid_argument("ResNet: every layer needs at least one block");
  }
  if (config.groups < 1 || config.widthPerGroup < 1 || config.numClasses < 1) {
    throw std::invalid_argument("ResNet: groups, widthPerGroup and numClasses must be positive");
  }
  return std::make_shared<ResNet>(config);
}

}  // namespace distbench::worker
