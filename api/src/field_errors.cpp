#include "field_errors.h"

#include "distbench/api/benchmark_spec.h"
#include "object_name_rules.h"

namespace distbench::api::detail {

void checkTypeMeta(const std::string& apiVersion, const std::string& kind, const char* wantKind,
                   FieldErrors& errors) {
  if (apiVersion != kApiVersion) errors.fail("apiVersion", std::string("must be ") + kApiVersion);
  if (kind != wantKind) errors.fail("kind", std::string("must be ") + wantKind);
}

void checkNamespace(const std::string& namespace_, FieldErrors& errors) {
  if (!isDns1123Label(namespace_)) {
    errors.fail("metadata.namespace",
                "must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', "
                "starting and ending with a letter or digit");
  }
}

}  // namespace distbench::api::detail
