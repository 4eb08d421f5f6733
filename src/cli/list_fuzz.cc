// libFuzzer target: the CLI's list flags (--batch, --seq, --gpu ... lists with
// ranges such as 1:1024 or 1k:128k:x2). The first byte picks the parser and,
// for counts, the maximum; the rest is the text. Whatever the text, the answer
// is one error line naming the flag, or at most kMaxListItems values, each in
// [1, max].
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "inputs.h"

namespace {

using namespace modelcalc;

void check_error(const Status& s) {
  if (s.message().rfind("--flag: ", 0) != 0 || s.message().find('\n') != std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    auto r = split_list(text, "--flag");
    if (!r.ok()) return check_error(r.status()), 0;
    if (r->empty() || static_cast<int64_t>(r->size()) > kMaxListItems) std::abort();
    for (const std::string& item : *r) {
      if (item.empty()) std::abort();
    }
    return 0;
  }
  // Maxima the CLI uses: a small one, the batch/token bound 2^30, the GPU bound 2^20.
  static constexpr int64_t kMaxima[] = {1000, int64_t{1} << 30, int64_t{1} << 20};
  const int64_t max = kMaxima[(data[0] / 2) % 3];
  auto r = parse_count_list(text, "--flag", max);
  if (!r.ok()) return check_error(r.status()), 0;
  if (r->empty() || static_cast<int64_t>(r->size()) > kMaxListItems) std::abort();
  for (int64_t v : *r) {
    if (v < 1 || v > max) std::abort();
  }
  return 0;
}
