#include "distbench/plugin/kubectl_flags.h"

#include <set>

namespace distbench::plugin {
namespace {

// kubectl's global flags (`kubectl options`) that take a value.
const std::set<std::string> kWithValue = {"--as",
                                          "--as-group",
                                          "--as-uid",
                                          "--cache-dir",
                                          "--certificate-authority",
                                          "--client-certificate",
                                          "--client-key",
                                          "--cluster",
                                          "--context",
                                          "--kubeconfig",
                                          "-n",
                                          "--namespace",
                                          "--password",
                                          "--profile",
                                          "--profile-output",
                                          "--request-timeout",
                                          "-s",
                                          "--server",
                                          "--tls-server-name",
                                          "--token",
                                          "--user",
                                          "--username",
                                          "-v",
                                          "--v",
                                          "--vmodule",
                                          "--log-flush-frequency"};
const std::set<std::string> kBoolean = {"--disable-compression", "--insecure-skip-tls-verify",
                                        "--match-server-version", "--warnings-as-errors"};

}  // namespace

const char* const kKubectlFlagsHelp =
    "kubectl's own flags go after `distbench` and are passed to every kubectl call:\n"
    "  -n/--namespace, --context, --kubeconfig, --cluster, --user, --as, --as-group,\n"
    "  --token, -s/--server, --certificate-authority, --request-timeout, -v, ...\n";

SplitArgs splitKubectlFlags(const std::vector<std::string>& args) {
  SplitArgs out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      out.rest.insert(out.rest.end(), args.begin() + static_cast<long>(i), args.end());
      break;
    }
    const std::size_t eq = a.find('=');
    const std::string name = eq == std::string::npos ? a : a.substr(0, eq);
    if (kBoolean.count(name) != 0) {
      out.kubectl.push_back(a);
    } else if (kWithValue.count(name) != 0) {
      out.kubectl.push_back(a);
      if (eq == std::string::npos && i + 1 < args.size()) out.kubectl.push_back(args[++i]);
    } else if (a.size() > 2 && a[0] == '-' && a[1] == 'n' && a[2] != '-') {
      out.kubectl.push_back(a);  // -nteam-a
    } else {
      out.rest.push_back(a);
    }
  }
  return out;
}

}  // namespace distbench::plugin
