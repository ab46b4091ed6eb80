#include "distbench/plugin/cluster_objects.h"

#include "distbench/plugin/kubectl_error.h"

namespace distbench::plugin {

using web::json::value;

std::optional<value> getObject(const Kubectl& kubectl, const std::string& resource,
                               const std::string& name) {
  const std::vector<std::string> args = {"get", resource, name, "-o", "json"};
  const KubectlResult r = kubectl.run(args);
  if (r.ok()) return value::parse(r.out);
  if (classifyKubectlFailure(r.err) == KubectlFailure::NotFound) return std::nullopt;
  throw KubectlError(explainKubectlFailure(args, r));
}

std::vector<value> listObjects(const Kubectl& kubectl, const std::string& resource,
                               const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"get", resource, "-o", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const value list = value::parse(kubectl.output(args));
  std::vector<value> items;
  if (list.has_field("items") && list.at("items").is_array()) {
    for (const value& item : list.at("items").as_array()) items.push_back(item);
  }
  return items;
}

}  // namespace distbench::plugin
