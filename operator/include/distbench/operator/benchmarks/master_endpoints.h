// What the master Service's Endpoints should say, decided apart from
// writing them: the Service has no selector (a label is no proof of
// membership), so the operator points it at the master pod it created
// itself, once that pod has an IP, and at nothing until then. Pure: the
// Reconciler reads the Endpoints and writes what this decides
// (reconciler.h); table tests in operator/tests/benchmarks/master_endpoints_test.cpp.
#pragma once

#include <cpprest/json.h>

#include <optional>
#include <string>
#include <vector>

namespace distbench::op {

struct MasterAddress {
  // The master pod among `current`, or null while none has an IP.
  const web::json::value* pod = nullptr;
  // "<pod IP> <pod UID>", as the Endpoints are remembered; "" for none.
  std::string written;
};

// The master of `desired` (the gang's pods as rendered), found by its name
// among `current` (the pods this benchmark's controller created), not being
// deleted and with an IP: the one pod that can be the master, whatever
// labels others carry. The result points into `current`.
MasterAddress masterAddress(const std::vector<web::json::value>& desired,
                            const std::vector<web::json::value>& current);

// "<IP> <pod UID>" of an Endpoints object's one address; "" when it points
// at nothing.
std::string masterAddressOf(const web::json::value& endpoints);

enum class EndpointsWrite {
  None,     // what the server has already says it, and is ours
  Create,   // there are none
  Replace,  // an earlier gang's, or written by someone else
};

// `found`: the Endpoints of that name the server has; `uid`: the
// benchmark's; `written`: what they should say (MasterAddress::written).
EndpointsWrite planEndpointsWrite(const std::optional<web::json::value>& found,
                                  const std::string& uid, const std::string& written);

}  // namespace distbench::op
