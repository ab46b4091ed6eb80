#include "distbench/testing/kube/kube_tools.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace distbench::kubetest {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool executable(const std::string& path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0;
}

std::string onPath(const std::string& name) {
  std::stringstream parts(env("PATH"));
  std::string dir;
  while (std::getline(parts, dir, ':')) {
    if (!dir.empty() && executable(dir + "/" + name)) return dir + "/" + name;
  }
  return {};
}

KubeTools findTools() {
  std::vector<std::string> dirs;
  if (!env("DISTBENCH_HELM_BIN").empty()) dirs.push_back(env("DISTBENCH_HELM_BIN"));
  std::string cache = env("DISTBENCH_HELM_CACHE");
  if (cache.empty()) cache = env("HOME") + "/.cache/distbench/helm";
  dirs.push_back(cache + "/bin");

  KubeTools t;
  for (const auto& d : dirs) t.searched += d + ", ";
  t.searched += "PATH";
  auto find = [&](const std::string& name) {
    for (const auto& d : dirs)
      if (executable(d + "/" + name)) return d + "/" + name;
    return onPath(name);
  };
  t.helm = find("helm");
  t.kubectl = find("kubectl");
  return t;
}

}  // namespace

const KubeTools& kubeTools() {
  static const KubeTools t = findTools();
  return t;
}

bool inCi() {
  std::string ci = env("CI");
  std::transform(ci.begin(), ci.end(), ci.begin(), [](unsigned char c) { return std::tolower(c); });
  return ci == "true" || ci == "1" || ci == "yes";
}

}  // namespace distbench::kubetest
