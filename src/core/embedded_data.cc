#include "embedded_data.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace modelcalc {

void embedded_data_defect(std::string_view path, std::string_view why) {
  std::fprintf(stderr, "modelcalc: internal error: bad compiled-in %s: %s\n", std::string(path).c_str(),
               std::string(why).c_str());
  std::abort();
}

std::string_view embedded_file_or_die(std::string_view path) {
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.path == path) return f.content;
  }
  embedded_data_defect(path, "not embedded");
}

}  // namespace modelcalc
