// The three kinds of rank a DistBenchmark has. A header of its own because
// the names of objects, the validation and the resource estimate all speak
// of roles without needing the renderer, which in turn uses all of them.
#pragma once

namespace distbench::api {

enum class Role { Master, ParameterServer, Trainer };
const char* toString(Role);  // "master", "ps", "trainer"

}  // namespace distbench::api
