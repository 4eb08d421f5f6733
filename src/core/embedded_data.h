// Files from data/ compiled into the binary by cmake/embed.cmake.
#ifndef MODELCALC_EMBEDDED_DATA_H_
#define MODELCALC_EMBEDDED_DATA_H_

#include <span>
#include <string_view>

namespace modelcalc {

struct EmbeddedFile {
  std::string_view path;     // relative to data/, e.g. "gpus.tsv", "presets/gpt2.json"
  std::string_view content;
};

std::span<const EmbeddedFile> embedded_files();

}  // namespace modelcalc

#endif  // MODELCALC_EMBEDDED_DATA_H_
