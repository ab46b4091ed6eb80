// TCP ports for a local run. Every local rank listens on 127.0.0.1, so the
// spec's fixed ports (29500, 9400) would collide between ranks and with
// anything else on the machine; the kernel picks free ones instead.
#pragma once

#include <vector>

namespace distbench::process {

// `count` distinct ports that were free on 127.0.0.1 a moment ago. All are
// bound at once before any is released, so they cannot repeat. Another
// process may still take one before the worker binds it; nothing short of
// passing the listening socket itself could close that window.
// Throws std::system_error.
std::vector<int> pickFreePorts(int count);

}  // namespace distbench::process
