// What the operator's informer caches keep of an object: the reconcilers
// read resources fresh from the API server, so the caches hold only what
// keys, ownership and the gauges need. managedFields alone is often the
// largest part of an object.
#pragma once

#include <cpprest/json.h>

#include <functional>

#include "distbench/kube/informer.h"

namespace distbench::op {

// Drops managedFields and kubectl's last-applied-configuration annotation.
void trimMetadata(web::json::value& object);

// `options` with `transform` as its transform.
kube::Informer::Options withTransform(kube::Informer::Options options,
                                      std::function<void(web::json::value&)> transform);

}  // namespace distbench::op
