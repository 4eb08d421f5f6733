// Writing an output file (--plot, --report) all or nothing.
#ifndef MODELCALC_OUTPUT_FILE_H_
#define MODELCALC_OUTPUT_FILE_H_

#include <string>
#include <string_view>

#include "modelcalc/status.h"

namespace modelcalc {

// Writes `content` to `path` through a temporary file in the same folder and
// a rename, so a failure never leaves a half-written file at `path`. Errors
// are InvalidArgument naming `flag` and the path ("--plot: cannot write ...").
Status write_output_file(const std::string& path, std::string_view content, std::string_view flag);

}  // namespace modelcalc

#endif  // MODELCALC_OUTPUT_FILE_H_
