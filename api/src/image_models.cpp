#include "distbench/api/image_models.h"

namespace distbench::api {

std::vector<std::string> imageModelNames() {
  return {"resnet18", "resnet50", "resnet101", "resnext50_32x4d", "resnext101_32x8d", "smallcnn"};
}

}  // namespace distbench::api
