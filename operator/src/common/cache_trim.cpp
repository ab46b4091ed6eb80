#include "distbench/operator/common/cache_trim.h"

namespace distbench::op {

void trimMetadata(web::json::value& object) {
  if (!object.has_field("metadata")) return;
  web::json::value& meta = object["metadata"];
  if (meta.has_field("managedFields")) meta.erase("managedFields");
  if (meta.has_field("annotations") &&
      meta.at("annotations").has_field("kubectl.kubernetes.io/last-applied-configuration"))
    meta["annotations"].erase("kubectl.kubernetes.io/last-applied-configuration");
}

kube::Informer::Options withTransform(kube::Informer::Options options,
                                      std::function<void(web::json::value&)> transform) {
  options.transform = std::move(transform);
  return options;
}

}  // namespace distbench::op
