#include "distbench/api/role.h"

namespace distbench::api {

const char* toString(Role role) {
  switch (role) {
    case Role::Master:
      return "master";
    case Role::ParameterServer:
      return "ps";
    case Role::Trainer:
      return "trainer";
  }
  return "?";
}

}  // namespace distbench::api
