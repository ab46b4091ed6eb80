#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "chart_test_env.h"

namespace distbench::charttest {
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

Tools findTools() {
  std::vector<std::string> dirs;
  if (!env("DISTBENCH_HELM_BIN").empty()) dirs.push_back(env("DISTBENCH_HELM_BIN"));
  std::string cache = env("DISTBENCH_HELM_CACHE");
  if (cache.empty()) cache = env("HOME") + "/.cache/distbench/helm";
  dirs.push_back(cache + "/bin");

  Tools t;
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

std::unique_ptr<kubetest::KubeTestCluster> cluster;
std::string error;
bool tried = false;

}  // namespace

const Tools& tools() {
  static const Tools t = findTools();
  return t;
}

bool inCi() {
  std::string ci = env("CI");
  std::transform(ci.begin(), ci.end(), ci.begin(), [](unsigned char c) { return std::tolower(c); });
  return ci == "true" || ci == "1" || ci == "yes";
}

kubetest::KubeTestCluster* chartCluster() {
  if (!tried) {
    tried = true;
    auto start = std::chrono::steady_clock::now();
    try {
      cluster = std::make_unique<kubetest::KubeTestCluster>();
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("[ cluster  ] etcd + kube-apiserver at %s ready in %.1f s\n",
                  cluster->url().c_str(), s);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  return cluster.get();
}

const std::string& clusterError() { return error; }

}  // namespace distbench::charttest

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const auto& t = distbench::charttest::tools();
  std::printf("[ tools    ] helm: %s; kubectl: %s\n", t.helm.empty() ? "(none)" : t.helm.c_str(),
              t.kubectl.empty() ? "(none)" : t.kubectl.c_str());
  int rc = RUN_ALL_TESTS();
  distbench::charttest::cluster.reset();  // stop the control plane from this (main) thread
  return rc;
}
