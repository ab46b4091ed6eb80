// A failure that involves another rank: always says which one.
#pragma once

#include <stdexcept>
#include <string>

namespace distbench::worker {

class PeerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace distbench::worker
