// Shell completion through kubectl's own: kubectl (1.26 and later) runs
// `kubectl_complete-distbench` for `kubectl distbench <TAB>`, which calls
// `kubectl-distbench __complete WORDS...`; the answer is Cobra's protocol,
// one candidate a line and then ":<directive>" (4: no file names; 0: the
// shell's default, files).
#pragma once

#include <string>
#include <vector>

#include "distbench/plugin/kubectl.h"

namespace distbench::plugin {

// Commands, run names (get, report, diff, predict, logs, --baseline),
// schedule names (get, report), ranks (--rank), files (run -f, -o).
int complete(const Kubectl& kubectl, const std::vector<std::string>& words);

}  // namespace distbench::plugin
