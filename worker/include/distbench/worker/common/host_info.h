// Facts about the machine a report was taken on.
#pragma once

#include "distbench/report/report.h"

namespace distbench::worker {

report::Host readHostInfo();

}  // namespace distbench::worker
