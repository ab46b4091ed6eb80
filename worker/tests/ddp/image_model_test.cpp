#include "distbench/worker/ddp/models/model_factory.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "distbench/api/image_models.h"
#include "distbench/worker/ddp/models/resnet.h"

namespace distbench::worker {
namespace {

// Reference files written by data/dump_torchvision_params.py from torchvision 0.14.1.
std::string dataPath(const std::string& file) {
  return std::string(DISTBENCH_TEST_DATA_DIR) + "/" + file;
}

std::vector<std::string> readLines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

// Python's state_dict() order: each module's own parameters, then its own buffers, then its
// children depth first. named_modules() walks children in the same (registration) order.
std::vector<std::pair<std::string, at::Tensor>> stateDict(const torch::nn::Module& model) {
  std::vector<std::pair<std::string, at::Tensor>> entries;
  for (const auto& module : model.named_modules()) {
    const std::string prefix = module.key().empty() ? "" : module.key() + ".";
    for (const auto& p : module.value()->named_parameters(/*recurse=*/false)) {
      entries.emplace_back(prefix + p.key(), p.value());
    }
    for (const auto& b : module.value()->named_buffers(/*recurse=*/false)) {
      entries.emplace_back(prefix + b.key(), b.value());
    }
  }
  return entries;
}

std::string shapeText(at::IntArrayRef shape) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  out << "]";
  return out.str();
}

int64_t parameterCount(const torch::nn::Module& model) {
  int64_t count = 0;
  for (const auto& p : model.parameters()) count += p.numel();
  return count;
}

// fill() in dump_torchvision_params.py, step for step.
at::Tensor fill(at::IntArrayRef shape, int64_t salt) {
  constexpr int64_t kMask = 0xFFFFFFFF;
  const int64_t n = c10::multiply_integers(shape);
  at::Tensor x =
      (torch::arange(n, torch::kLong) * int64_t{2654435761} + salt * 97531).bitwise_and(kMask);
  x = x.bitwise_xor(x.bitwise_right_shift(16));
  x = (x * int64_t{0x7FEB352D}).bitwise_and(kMask);
  x = x.bitwise_xor(x.bitwise_right_shift(15));
  x = (x * int64_t{0x2C1B3C6D}).bitwise_and(kMask);
  x = x.bitwise_xor(x.bitwise_right_shift(16));
  return (x.to(torch::kDouble) / 4294967296.0 - 0.5).to(torch::kFloat).reshape(shape);
}

// fill_state() in dump_torchvision_params.py.
void fillState(torch::nn::Module& model) {
  torch::NoGradGuard noGrad;
  int64_t salt = 0;
  for (auto& [name, tensor] : stateDict(model)) {
    const int64_t entrySalt = salt++;
    if (tensor.scalar_type() != torch::kFloat) continue;
    const at::Tensor u = fill(tensor.sizes(), entrySalt);
    const std::string leaf = name.substr(name.rfind('.') + 1);
    if (leaf == "running_var") {
      tensor.copy_(1.0 + 0.5 * u);
    } else if (leaf == "running_mean" || leaf == "bias") {
      tensor.copy_(0.02 * u);
    } else if (tensor.dim() == 1) {
      tensor.copy_(1.0 + 0.2 * u);
    } else {
      const double fanIn = static_cast<double>(tensor.numel() / tensor.size(0));
      tensor.copy_(u * std::sqrt(24.0 / fanIn));
    }
  }
}

TEST(ImageModel, NamesAreTorchvisionsPlusSmallCnn) {
  EXPECT_EQ(imageModelNames(),
            (std::vector<std::string>{"resnet18", "resnet50", "resnet101", "resnext50_32x4d",
                                      "resnext101_32x8d", "smallcnn"}));
  // Specs are validated against the API library's list: the two must agree.
  EXPECT_EQ(imageModelNames(), api::imageModelNames());
}

TEST(ImageModel, UnknownNameListsTheKnownOnes) {
  try {
    makeImageModel("resnet34", 1000);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("resnet34"), std::string::npos) << message;
    for (const auto& name : imageModelNames()) {
      EXPECT_NE(message.find(name), std::string::npos) << message;
    }
  }
}

TEST(ImageModel, RejectsNonPositiveNumClasses) {
  EXPECT_THROW(makeImageModel("smallcnn", 0), std::invalid_argument);
  EXPECT_THROW(makeImageModel("resnet18", -1), std::invalid_argument);
}

TEST(ImageModel, BasicBlockRefusesGroupsLikeTorchvision) {
  ResNetConfig config = resnet18Config();
  config.groups = 2;
  EXPECT_THROW(makeResNet(config), std::invalid_argument);
  config = resnet18Config();
  config.widthPerGroup = 32;
  EXPECT_THROW(makeResNet(config), std::invalid_argument);
}

// Counts printed by torchvision 0.14 (sum(p.numel() for p in model.parameters())).
struct ResNetCase {
  const char* name;
  int64_t parameters;
};

class ImageModelResNet : public testing::TestWithParam<ResNetCase> {};

TEST_P(ImageModelResNet, ParameterCountMatchesTorchvision) {
  EXPECT_EQ(parameterCount(*makeImageModel(GetParam().name, 1000)), GetParam().parameters);
}

// Names, shapes and order of every parameter and buffer, so torchvision checkpoints load by name
// and the parameter order, which DDP bucketing follows, is PyTorch's.
TEST_P(ImageModelResNet, StateDictMatchesTorchvision) {
  const auto expected = readLines(dataPath(std::string(GetParam().name) + ".params.txt"));
  std::vector<std::string> actual;
  for (const auto& [name, tensor] : stateDict(*makeImageModel(GetParam().name, 1000))) {
    actual.push_back(name + " " + shapeText(tensor.sizes()));
  }
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) EXPECT_EQ(actual[i], expected[i]) << "entry " << i;
}

INSTANTIATE_TEST_SUITE_P(Torchvision, ImageModelResNet,
                         testing::Values(ResNetCase{"resnet18", 11'689'512},
                                         ResNetCase{"resnet50", 25'557'032},
                                         ResNetCase{"resnet101", 44'549'160},
                                         ResNetCase{"resnext50_32x4d", 25'028'904},
                                         ResNetCase{"resnext101_32x8d", 88'791'336}),
                         [](const auto& info) { return std::string(info.param.name); });

class ImageModelEveryName : public testing::TestWithParam<std::string> {};

TEST_P(ImageModelEveryName, ForwardGivesOneLogitPerClass) {
  torch::NoGradGuard noGrad;
  const auto model = makeImageModel(GetParam(), 1000);
  EXPECT_EQ(model->forward(torch::randn({2, 3, 64, 64})).sizes(), (at::IntArrayRef{2, 1000}));
}

TEST_P(ImageModelEveryName, NumClassesSetsTheOutputWidth) {
  torch::NoGradGuard noGrad;
  const auto model = makeImageModel(GetParam(), 7);
  model->eval();
  EXPECT_EQ(model->forward(torch::randn({3, 3, 64, 64})).sizes(), (at::IntArrayRef{3, 7}));
}

INSTANTIATE_TEST_SUITE_P(All, ImageModelEveryName, testing::ValuesIn(imageModelNames()),
                         [](const auto& info) { return info.param; });

// The numeric check: the same (hashed) weights and input through torchvision in eval mode and
// through our model must give the same logits. Covers the forward wiring that names and shapes
// cannot: ReLU placement, the stride on the 3x3 conv, the residual adds, grouped convs.
class ImageModelLogits : public testing::TestWithParam<std::string> {};

TEST_P(ImageModelLogits, MatchTorchvisionInEvalMode) {
  const auto lines = readLines(dataPath(GetParam() + ".logits.txt"));
  std::vector<float> expected;
  for (const auto& line : lines) expected.push_back(std::stof(line));
  ASSERT_EQ(expected.size(), 2000u);

  const auto model = makeImageModel(GetParam(), 1000);
  fillState(*model);
  model->eval();
  torch::NoGradGuard noGrad;
  const at::Tensor logits = model->forward(fill({2, 3, 64, 64}, 12345)).contiguous();
  ASSERT_EQ(logits.sizes(), (at::IntArrayRef{2, 1000}));

  // Logits reach the hundreds with these weights, so the tolerance scales with them.
  float scale = 1.0f;
  for (float v : expected) scale = std::max(scale, std::abs(v));
  const float* actual = logits.data_ptr<float>();
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_NEAR(actual[i], expected[i], 1e-4f * scale) << "logit " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Torchvision, ImageModelLogits,
                         testing::Values("resnet18", "resnext50_32x4d"),
                         [](const auto& info) { return info.param; });

TEST(ImageModel, ResNetInitIsTorchvisions) {
  const auto model = makeImageModel("resnet50", 1000);
  for (const auto& [name, tensor] : stateDict(*model)) {
    if (name == "conv1.weight") {
      // kaiming_normal_(mode="fan_out", nonlinearity="relu"): std sqrt(2 / (64 * 7 * 7)).
      EXPECT_NEAR(tensor.std().item<double>(), std::sqrt(2.0 / (64 * 7 * 7)), 0.005);
      EXPECT_NEAR(tensor.mean().item<double>(), 0.0, 0.005);
    } else if (name == "layer4.2.bn3.weight") {
      EXPECT_TRUE(tensor.eq(1).all().item<bool>());  // zero_init_residual=False
    } else if (name == "layer4.2.bn3.bias") {
      EXPECT_TRUE(tensor.eq(0).all().item<bool>());
    }
  }
}

// The small CNN's layers are listed in small_cnn.cpp; this pins its size and that it takes
// CIFAR-sized input and trains.
TEST(ImageModel, SmallCnnIsSmallAndTrainsOn32x32) {
  const auto model = makeImageModel("smallcnn", 10);
  EXPECT_EQ(parameterCount(*model), 391'466);
  EXPECT_EQ(parameterCount(*makeImageModel("smallcnn", 1000)), 645'896);

  const at::Tensor logits = model->forward(torch::randn({4, 3, 32, 32}));
  ASSERT_EQ(logits.sizes(), (at::IntArrayRef{4, 10}));
  torch::nn::functional::cross_entropy(logits, torch::tensor({0, 1, 2, 3})).backward();
  for (const auto& p : model->named_parameters()) {
    ASSERT_TRUE(p.value().grad().defined()) << p.key();
  }
}

}  // namespace
}  // namespace distbench::worker
