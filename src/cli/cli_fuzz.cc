// libFuzzer target: the whole command line, in-process. The bytes are split
// at NUL into argv (at most 32 arguments). Whatever the argv, run_cli returns
// 0 or 2 (1 is an internal error: a bug), and a bad-input answer is exactly
// one line on stderr with nothing on stdout. Arguments that would write files
// (--plot, --report) make the input skipped, so the fuzzer writes no file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cli.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args;
  std::string cur;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  args.push_back(cur);
  if (args.size() > 32) return 0;
  for (const std::string& a : args) {
    if (a.rfind("--plot", 0) == 0 || a.rfind("--report", 0) == 0) return 0;  // would write a file
    if (a == "serve") return 0;  // would listen on a port until killed
  }
  std::ostringstream out, err;
  const int status = modelcalc::run_cli(args, out, err);
  const std::string e = err.str();
  if (status == 1) std::abort();  // "internal error": an exception escaped a command
  if (status == 2) {
    if (!out.str().empty()) std::abort();
    if (e.empty() || e.find('\n') != e.size() - 1) std::abort();
    for (char c : e.substr(0, e.size() - 1)) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) std::abort();  // unescaped control character
    }
  }
  return 0;
}
