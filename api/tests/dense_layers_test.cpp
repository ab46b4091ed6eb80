#include "distbench/api/dense_layers.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "test_util.h"

namespace distbench::api {
namespace {

TEST(DenseLayersTest, ParsesWidthsAndReLU) {
  std::optional<DenseLayer> linear = parseDenseLayer("256");
  ASSERT_TRUE(linear);
  EXPECT_EQ(linear->type, DenseLayer::Type::Linear);
  EXPECT_EQ(linear->outFeatures, 256);
  std::optional<DenseLayer> relu = parseDenseLayer("ReLU");
  ASSERT_TRUE(relu);
  EXPECT_EQ(relu->type, DenseLayer::Type::ReLU);
}

TEST(DenseLayersTest, RejectsEverythingElse) {
  for (const char* bad :
       {"", "0", "-1", "+1", " 1", "1 ", "1.0", "1x", "relu", "RELU", "99999999999999999999"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(parseDenseLayer(bad));
  }
}

TEST(DenseLayersTest, ParsesTheDefaultStack) {
  const std::vector<DenseLayer> layers = parseDenseLayers(HybridDDPRPCSpec{}.denseLayers);
  ASSERT_EQ(layers.size(), 6u);
  EXPECT_EQ(layers[0].outFeatures, 256);
  EXPECT_EQ(layers[1].outFeatures, 128);
  EXPECT_EQ(layers[2].type, DenseLayer::Type::ReLU);
  EXPECT_EQ(layers[5].outFeatures, 8);
  EXPECT_EQ(denseOutputWidth(layers), 8);
}

TEST(DenseLayersTest, BadTokenThrows) {
  EXPECT_THROW(parseDenseLayers({"16", "relu", "8"}), std::invalid_argument);
}

TEST(DenseLayersTest, OutputWidthIsTheLastLinear) {
  EXPECT_EQ(denseOutputWidth(parseDenseLayers({"16", "4", "ReLU"})), 4);
  EXPECT_THROW(denseOutputWidth(parseDenseLayers({"ReLU"})), std::invalid_argument);
  EXPECT_THROW(denseOutputWidth({}), std::invalid_argument);
}

}  // namespace
}  // namespace distbench::api
