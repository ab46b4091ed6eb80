// Where the master Service's Endpoints point, and whether what the server
// has must be written: tables, no API server.
#include "distbench/operator/benchmarks/master_endpoints.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "distbench/operator/common/labels.h"

namespace distbench::op {
namespace {

using web::json::value;

value pod(const std::string& name, const std::string& role, const std::string& ip = "",
          bool deleting = false) {
  value p = value::object();
  p["metadata"]["name"] = value::string(name);
  p["metadata"]["uid"] = value::string("u-" + name);
  p["metadata"]["labels"][kLabelRole] = value::string(role);
  if (deleting) p["metadata"]["deletionTimestamp"] = value::string("2026-11-26T00:00:00Z");
  if (!ip.empty()) p["status"]["podIP"] = value::string(ip);
  return p;
}

TEST(MasterEndpointsTest, MasterAddressTable) {
  const std::vector<value> desired = {pod("b-master-0", "master"), pod("b-trainer-0", "trainer")};
  struct Case {
    std::string name;
    std::vector<value> current;
    std::string written;
  };
  const std::vector<Case> cases = {
      {"NoPodsYet", {}, ""},
      {"TheMasterHasNoIpYet", {pod("b-master-0", "master")}, ""},
      {"TheMasterWithAnIp",
       {pod("b-trainer-0", "trainer", "10.0.0.2"), pod("b-master-0", "master", "10.0.0.1")},
       "10.0.0.1 u-b-master-0"},
      {"ABeingDeletedMasterIsNone", {pod("b-master-0", "master", "10.0.0.1", true)}, ""},
      // Found by its name: another pod's master label makes no master.
      {"ALabelIsNoMaster", {pod("b-trainer-0", "master", "10.0.0.2")}, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const MasterAddress a = masterAddress(desired, c.current);
    EXPECT_EQ(a.written, c.written);
    EXPECT_EQ(a.pod != nullptr, !c.written.empty());
  }
}

value endpoints(const std::string& ownerUid, const std::string& ip, const std::string& podUid) {
  value e = value::object();
  e["metadata"]["name"] = value::string("b-master");
  value ref = value::object();
  ref["uid"] = value::string(ownerUid);
  ref["controller"] = value::boolean(true);
  e["metadata"]["ownerReferences"] = value::array({ref});
  if (!ip.empty()) {
    value address = value::object();
    address["ip"] = value::string(ip);
    address["targetRef"]["uid"] = value::string(podUid);
    value subset = value::object();
    subset["addresses"] = value::array({address});
    e["subsets"] = value::array({subset});
  }
  return e;
}

TEST(MasterEndpointsTest, WriteTable) {
  struct Case {
    std::string name;
    std::optional<value> found;
    std::string written;
    EndpointsWrite want;
  };
  const std::vector<Case> cases = {
      {"NoneYet", std::nullopt, "10.0.0.1 u-m", EndpointsWrite::Create},
      {"OursAndRight", endpoints("uid", "10.0.0.1", "u-m"), "10.0.0.1 u-m", EndpointsWrite::None},
      {"OursPointingAtNothingStill", endpoints("uid", "", ""), "", EndpointsWrite::None},
      {"AnEarlierGangsMaster", endpoints("uid", "10.0.0.9", "u-old"), "10.0.0.1 u-m",
       EndpointsWrite::Replace},
      {"ANewGangHasNoMasterYet", endpoints("uid", "10.0.0.9", "u-old"), "",
       EndpointsWrite::Replace},
      {"SomeoneElsesSayingTheSame", endpoints("other", "10.0.0.1", "u-m"), "10.0.0.1 u-m",
       EndpointsWrite::Replace},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(planEndpointsWrite(c.found, "uid", c.written), c.want);
  }
}

}  // namespace
}  // namespace distbench::op
