// Files from data/ compiled into the binary by cmake/embed.cmake.
#ifndef MODELCALC_EMBEDDED_DATA_H_
#define MODELCALC_EMBEDDED_DATA_H_

#include <iterator>
#include <span>
#include <string_view>
#include <utility>

#include "modelcalc/status.h"

namespace modelcalc {

struct EmbeddedFile {
  std::string_view path;     // relative to data/, e.g. "gpus.tsv", "presets/gpt2.json"
  std::string_view content;
};

std::span<const EmbeddedFile> embedded_files();

// Every presets/*.json file with its "_modelcalc" name and hf_repo ("" when
// absent), read at build time by cmake/embed.cmake (a test checks them against
// a parse of each file). In file order.
struct EmbeddedPreset {
  std::string_view name;
  std::string_view hf_repo;
  std::string_view content;  // the whole file
};
std::span<const EmbeddedPreset> embedded_presets();

// Every entry of a preset's "_modelcalc".repos list (the Hub repositories the
// preset stands for), read at build time as the presets are: the preset's
// name, the entry's "id" as written, and the whole entry as JSON text (the
// checkpoint quantization it states, its source). In file order.
struct EmbeddedRepo {
  std::string_view preset;
  std::string_view id;
  std::string_view entry;
};
std::span<const EmbeddedRepo> embedded_repos();

// A compiled-in file that is missing or does not parse is a build defect that
// got through: print one line naming the file and why, then abort.
[[noreturn]] void embedded_data_defect(std::string_view path, std::string_view why);
// The content of data/`path`; aborts (embedded_data_defect) if it is not embedded.
std::string_view embedded_file_or_die(std::string_view path);
// parse(embedded_file_or_die(path)).value(), aborting with the parse error.
// `parse` takes the text and returns a Result<T>.
template <typename Parse>
auto parse_embedded_or_die(std::string_view path, Parse parse) {
  auto parsed = parse(embedded_file_or_die(path));
  if (!parsed.ok()) embedded_data_defect(path, parsed.status().message());
  return std::move(parsed).value();
}

}  // namespace modelcalc

#endif  // MODELCALC_EMBEDDED_DATA_H_
