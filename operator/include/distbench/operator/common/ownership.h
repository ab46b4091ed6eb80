// Who an object belongs to, as the operator decides it: controller
// references and the benchmark label, never a name or a label alone.
#pragma once

#include <cpprest/json.h>

#include <stdexcept>
#include <string>

namespace distbench::op {

// `uid`'s controller reference is on the object.
bool isController(const web::json::value& object, const std::string& uid);
// Some DistBenchmark's controller reference: this one's, or a same-named
// earlier resource's. A pod that merely carries the labels is someone else's.
bool controlledByABenchmark(const web::json::value& object);
bool hasBenchmarkLabel(const web::json::value& object, const std::string& name);
bool isDeleting(const web::json::value& object);
std::string objectName(const web::json::value& object);

// Whose an object found under a child's name is, for benchmark `name` of
// UID `uid`, in the order the operator asks.
enum class ChildClaim {
  Ours,      // this benchmark's controller reference
  Earlier,   // the label and a DistBenchmark's controller reference: a
             // same-named earlier resource left it
  Labelled,  // the label only: anyone may put it on an object
  Foreign,   // neither
};
ChildClaim claimOf(const web::json::value& found, const std::string& uid, const std::string& name);

// A child's name is taken by an object this benchmark does not control
// and that no earlier benchmark of the same name left behind.
struct NameConflict : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace distbench::op
