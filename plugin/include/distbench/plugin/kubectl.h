// kubectl itself, run as a child: every request kubectl distbench makes goes
// through it, so the user's kubeconfig, context, namespace, credentials and
// auth plugins (exec, OIDC) apply exactly as for kubectl. kubectl passes a
// plugin the flags after the plugin's name (a global flag before it is
// refused by kubectl), so the plugin takes kubectl's global flags out of its
// own arguments (kubectl_flags.h) and hands them to every call.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace distbench::plugin {

struct KubectlResult {
  int exitCode = -1;  // -1: killed by a signal or by our deadline
  std::string out;
  std::string err;
  bool ok() const { return exitCode == 0; }
};

// kubectl could not be run, or answered an error; what() is one sentence a
// person can act on (kubectl_error.h says which cases are told apart).
class KubectlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Kubectl {
 public:
  // `binary`: the kubectl to run; `globalFlags`: kubectl's global flags as
  // the user gave them ("--context", "kind", "-n", "team-a", ...).
  Kubectl(std::string binary, std::vector<std::string> globalFlags);

  // $KUBECTL_PATH (kubectl sets it for its plugins), then $KUBECTL, then
  // `kubectl` on the PATH.
  static std::string findBinary();

  // Runs kubectl with the global flags and `args`. stdin is the plugin's
  // own, for an auth plugin that asks; stdout and stderr are captured.
  // Killed past `limit` (every wait has one). Throws KubectlError when
  // kubectl cannot be started.
  KubectlResult run(const std::vector<std::string>& args,
                    std::chrono::seconds limit = std::chrono::seconds(60)) const;
  // As run, and throws KubectlError (its message classified) unless it
  // exited 0; returns stdout.
  std::string output(const std::vector<std::string>& args,
                     std::chrono::seconds limit = std::chrono::seconds(60)) const;

  // Becomes kubectl with the global flags and `args` (a log followed
  // with -f streams, and Ctrl-C reaches kubectl); returns only when kubectl
  // cannot be executed, throwing KubectlError.
  [[noreturn]] void exec(const std::vector<std::string>& args) const;

  const std::vector<std::string>& globalFlags() const { return globalFlags_; }
  const std::string& binary() const { return binary_; }

 private:
  // binary, global flags, args.
  std::vector<std::string> commandLine(const std::vector<std::string>& args) const;

  std::string binary_;
  std::vector<std::string> globalFlags_;
};

}  // namespace distbench::plugin
