// The image models `spec.benchmark.ddp.models` may name. The worker builds
// them (worker/src/ddp/models); this list is what specs are validated against,
// and a worker test keeps the two in step.
#pragma once

#include <string>
#include <vector>

namespace distbench::api {

std::vector<std::string> imageModelNames();

}  // namespace distbench::api
