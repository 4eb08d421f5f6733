// Helpers for tests that drive the CLI in-process on argv vectors.
#ifndef MODELCALC_TEST_UTIL_H_
#define MODELCALC_TEST_UTIL_H_

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli.h"

namespace modelcalc {

struct CliRun {
  int status = -1;
  std::string out;
  std::string err;
  // REQUIRES: out is JSON (the command ran with --json and succeeded).
  nlohmann::json json() const { return nlohmann::json::parse(out); }
};

inline CliRun run_args(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  CliRun r;
  r.status = run_cli(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// A CLI JSON document without the "command" keys its proposals carry: the command line as the user typed
// it, changed (pasteable.h), which the web and Python, having no command line, do not carry; and which
// two spellings of one request (--seq, --context) spell differently.
inline nlohmann::json without_commands(nlohmann::json j) {
  if (j.is_object()) {
    j.erase("command");
    for (auto& [k, v] : j.items()) v = without_commands(std::move(v));
  } else if (j.is_array()) {
    for (auto& v : j) v = without_commands(std::move(v));
  }
  return j;
}

// An invocation as one line, for failure messages: "size --model x --gpu h100".
inline std::string show(const std::vector<std::string>& a) {
  std::string s;
  for (const auto& x : a) s += (s.empty() ? "" : " ") + x;
  return s;
}

// Counts '\n' in s: a bad-input error must be exactly one line.
inline int line_count(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace modelcalc

#endif  // MODELCALC_TEST_UTIL_H_
