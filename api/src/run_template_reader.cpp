#include "run_template_reader.h"

#include "object_name_rules.h"

namespace distbench::api::detail {

using Node = YAML::Node;
using Path = std::string;

void readRunTemplate(Reader& r, const Node& node, const Path& path, RunTemplate& t) {
  r.object(node, path,
           {
               {"metadata",
                [&](const Node& v, const Path& p) {
                  r.object(v, p,
                           {
                               {"labels", [&](const Node& m, const Path& mp) {
                                  r.stringMap(m, mp, t.metadata.labels);
                                }},
                               {"annotations", [&](const Node& m, const Path& mp) {
                                  r.stringMap(m, mp, t.metadata.annotations);
                                }},
                           });
                }},
               {"spec", [&](const Node& v, const Path& p) { readSpec(r, v, p, t.spec); }},
           });
}

void checkRunTemplateMetadata(const RunTemplateMetadata& m, const ReservedRunKeys& reserved,
                              FieldErrors& e) {
  const std::string setByOwner = "set by " + reserved.owner + " on every run; remove it";
  const std::string labels = "spec.template.metadata.labels.";
  for (const auto& [key, value] : m.labels) {
    if (reserved.labels.count(key) != 0) {
      e.fail(labels + key, setByOwner);
    } else if (!isQualifiedName(key)) {
      e.fail(labels + key, "not a label key: [prefix/]name, the name at most 63 of A-Z a-z 0-9 "
                           "- _ . starting and ending alphanumeric");
    }
    if (!value.empty() && !isQualifiedNamePart(value)) {
      e.fail(labels + key, "not a label value: at most 63 of A-Z a-z 0-9 - _ . starting and "
                           "ending alphanumeric");
    }
  }
  const std::string annotations = "spec.template.metadata.annotations.";
  for (const auto& [key, value] : m.annotations) {
    if (reserved.annotations.count(key) != 0) {
      e.fail(annotations + key, setByOwner);
    } else if (!isQualifiedName(key)) {
      e.fail(annotations + key, "not an annotation key: [prefix/]name, the name at most 63 of "
                                "A-Z a-z 0-9 - _ . starting and ending alphanumeric");
    }
  }
}

}  // namespace distbench::api::detail
