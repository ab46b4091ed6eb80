// The image classifiers the DDP benchmark trains, chosen by name from the spec: one table of
// names and constructors over every model, so the names and the factory cannot drift apart.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distbench/worker/ddp/models/image_model.h"

namespace distbench::worker {

// Names as torchvision spells them (plus "smallcnn"), in the order help text should list them.
std::vector<std::string> imageModelNames();

// A freshly initialised model (torchvision's init, from the global torch RNG: seed it first for
// reproducible weights). Throws std::invalid_argument for an unknown name, listing the known
// ones, or for numClasses < 1.
std::shared_ptr<ImageModel> makeImageModel(const std::string& name, int64_t numClasses);

}  // namespace distbench::worker
