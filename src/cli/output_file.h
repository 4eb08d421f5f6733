// Writing an output file (--plot, --report) all or nothing.
#ifndef MODELCALC_OUTPUT_FILE_H_
#define MODELCALC_OUTPUT_FILE_H_

#include <string>
#include <string_view>

#include "modelcalc/status.h"

namespace modelcalc {

// Writes `content` to `path`, so that `path` only ever holds a complete file:
// - a regular file (or none yet) is written to a uniquely named temporary in
//   the same folder (".modelcalc-PID-N-RANDOM.tmp", created exclusively, so
//   concurrent writers and a user's own PATH.tmp are never touched), fsynced,
//   then renamed over `path` (an existing file keeps its permissions);
// - a symbolic link is followed: its target is what gets written (the link
//   stays a link); a dangling link is refused;
// - a device or FIFO is written through, never replaced (a FIFO with no
//   reader is refused rather than waited on);
// - a folder is refused.
// Errors are InvalidArgument naming `flag` and the path ("--plot: cannot
// write 'x.svg': ...").
Status write_output_file(const std::string& path, std::string_view content, std::string_view flag);

// Refuses writing `out` (given as `out_flag`) when it would replace an input
// the command reads, `in` (given as `in_flag`): the same file (however
// spelled: links, "./", another hard link), or, when `in` is a folder (a
// checkpoint, a config folder), a .json or .safetensors file directly in it
// (its config.json, index, shards, quantization sidecar). InvalidArgument
// naming `out_flag`; Ok when `out` does not exist yet (no input is there).
Status check_output_path(const std::string& out, std::string_view out_flag, const std::string& in,
                         std::string_view in_flag);

}  // namespace modelcalc

#endif  // MODELCALC_OUTPUT_FILE_H_
