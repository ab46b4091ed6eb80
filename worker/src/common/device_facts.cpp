#include "distbench/worker/common/device_facts.h"

#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace distbench::worker {
namespace {

std::string key(int trainer) { return "distbench/device/" + std::to_string(trainer); }

// Text fields hold no newline: device names and hostnames cannot.
std::string clean(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

std::string encodeDeviceFacts(const DeviceFacts& f) {
  std::ostringstream out;
  out << "host=" << clean(f.host) << "\n"
      << "gpu=" << clean(f.gpu) << "\n"
      << "pciBusId=" << clean(f.pciBusId) << "\n"
      << "memoryBytes=" << f.memoryBytes << "\n"
      << "runtimeVersion=" << f.runtimeVersion << "\n"
      << "driverVersion=" << f.driverVersion << "\n"
      << "ncclVersion=" << f.ncclVersion << "\n"
      << "cudnnVersion=" << f.cudnnVersion << "\n";
  return out.str();
}

DeviceFacts decodeDeviceFacts(const std::string& text) {
  std::map<std::string, std::string> fields;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) throw std::runtime_error("device facts: no '=' in \"" + line + "\"");
    fields[line.substr(0, eq)] = line.substr(eq + 1);
  }
  auto text_ = [&](const char* name) {
    auto it = fields.find(name);
    if (it == fields.end()) throw std::runtime_error(std::string("device facts: no ") + name);
    return it->second;
  };
  auto number = [&](const char* name) {
    const std::string v = text_(name);
    try {
      size_t used = 0;
      const long long n = std::stoll(v, &used);
      if (used != v.size()) throw std::invalid_argument(v);
      return n;
    } catch (const std::exception&) {
      throw std::runtime_error(std::string("device facts: ") + name + "=" + v +
                               " is not an integer");
    }
  };
  DeviceFacts f;
  f.host = text_("host");
  f.gpu = text_("gpu");
  f.pciBusId = text_("pciBusId");
  f.memoryBytes = number("memoryBytes");
  f.runtimeVersion = static_cast<int>(number("runtimeVersion"));
  f.driverVersion = static_cast<int>(number("driverVersion"));
  f.ncclVersion = static_cast<int>(number("ncclVersion"));
  f.cudnnVersion = static_cast<long>(number("cudnnVersion"));
  return f;
}

void publishDeviceFacts(c10d::Store& store, int trainer, const DeviceFacts& facts) {
  const std::string text = encodeDeviceFacts(facts);
  store.set(key(trainer), std::vector<uint8_t>(text.begin(), text.end()));
}

std::vector<DeviceFacts> readDeviceFacts(c10d::Store& store, int trainers,
                                         std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<DeviceFacts> facts;
  for (int t = 0; t < trainers; ++t) {
    // Polling, as the rendezvous does: a timed-out Store::wait leaves the
    // client's socket unusable.
    while (!store.check({key(t)})) {
      if (std::chrono::steady_clock::now() >= deadline) {
        throw std::runtime_error("trainer" + std::to_string(t) + " said nothing of its GPU within " +
                                 std::to_string(timeout.count() / 1000) + " s");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const std::vector<uint8_t> bytes = store.get(key(t));
    facts.push_back(decodeDeviceFacts(std::string(bytes.begin(), bytes.end())));
  }
  return facts;
}

std::string cudaVersionString(int version) {
  if (version <= 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string ncclVersionString(int version) {
  if (version <= 0) return "";
  // NCCL_VERSION_CODE changed scheme at 2.9: 2.8.4 is 2804, 2.9.6 is 20906.
  const int major = version >= 10000 ? version / 10000 : version / 1000;
  const int minor = version >= 10000 ? version % 10000 / 100 : version % 1000 / 100;
  const int patch = version % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string cudnnVersionString(long version) {
  if (version <= 0) return "";
  const long major = version >= 10000 ? version / 10000 : version / 1000;
  const long minor = version >= 10000 ? version % 10000 / 100 : version % 1000 / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(version % 100);
}

void addDeviceFacts(report::Report& report, const std::vector<DeviceFacts>& facts) {
  if (facts.empty()) return;
  const DeviceFacts& first = facts.front();
  auto put = [&](const char* name, const std::string& value) {
    if (!value.empty()) report.versions[name] = value;
  };
  put("cuda", cudaVersionString(first.runtimeVersion));
  put("cudaDriver", cudaVersionString(first.driverVersion));
  put("nccl", ncclVersionString(first.ncclVersion));
  put("cudnn", cudnnVersionString(first.cudnnVersion));
  std::set<std::string> seen;
  report.host.gpus.clear();
  for (const DeviceFacts& f : facts) {
    if (seen.insert(f.host + "/" + f.pciBusId).second) report.host.gpus.push_back(f.gpu);
  }
}

std::string formatDeviceFacts(const std::vector<DeviceFacts>& facts) {
  if (facts.empty()) return "";
  const DeviceFacts& first = facts.front();
  std::string out = "* CUDA version: " + cudaVersionString(first.runtimeVersion) +
                    " (the driver supports " + cudaVersionString(first.driverVersion) + ")\n";
  out += "* NCCL version: " + ncclVersionString(first.ncclVersion) + "\n";
  const std::string cudnn = cudnnVersionString(first.cudnnVersion);
  out += "* cuDNN version: " + (cudnn.empty() ? std::string("none") : cudnn) + "\n";
  // One line per distinct GPU model, with how many GPUs and trainers.
  std::map<std::string, std::pair<std::set<std::string>, int>> models;
  bool versionsDiffer = false;
  for (const DeviceFacts& f : facts) {
    auto& [gpus, trainers] = models[f.gpu];
    gpus.insert(f.host + "/" + f.pciBusId);
    ++trainers;
    versionsDiffer |= f.runtimeVersion != first.runtimeVersion ||
                      f.driverVersion != first.driverVersion ||
                      f.ncclVersion != first.ncclVersion || f.cudnnVersion != first.cudnnVersion;
  }
  for (const auto& [model, use] : models) {
    out += "* GPUs: " + std::to_string(use.first.size()) + " x " + model + " (" +
           std::to_string(use.second) + (use.second == 1 ? " trainer" : " trainers") + ")\n";
  }
  if (versionsDiffer) out += "* Note: trainers report different versions; trainer0's are above\n";
  return out;
}

}  // namespace distbench::worker
