// Flags declared once: one call names a flag, documents it (help states the
// allowed values and the default), binds its typed target and its parser.
// The parsed value lands in the target after the command line is read; a flag
// not given leaves its target as initialised (its default). An empty value
// ("--seq ''") is refused here, centrally, naming the flag.
//
// CLI11 is confined to flags.cc and cli.cc; commands see only FlagSet.
#ifndef MODELCALC_FLAGS_H_
#define MODELCALC_FLAGS_H_

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/status.h"

namespace CLI {
class App;
}

namespace modelcalc {

// Parses `text`, naming `flag` (the spelling the user typed) in any error.
template <typename T>
using FlagParser = std::function<Result<T>(std::string_view text, std::string_view flag)>;

class FlagSet {
 public:
  // Every flag is declared to CLI11 (`app`).
  explicit FlagSet(CLI::App& app);
  // Declares to CLI11 only what the command line `args` can refer to, for a
  // fast start: positionals, required flags, and the flags whose spelling
  // appears in `args` ("--name", "--name=...", or a short "-x" in any
  // "-..." argument); everything when `args` asks for help ("--help", "-h").
  // A flag not declared is not given, so it parses exactly as before; CLI11
  // costs ~10k instructions per flag declared.
  FlagSet(CLI::App& app, std::span<const std::string> args);
  ~FlagSet();
  FlagSet(const FlagSet&) = delete;
  // The command line this set was made for (args[0] the command); empty when made for every flag.
  std::span<const std::string> args() const { return args_; }
  FlagSet& operator=(const FlagSet&) = delete;

  // A valued flag; `names` is CLI11's spelling, e.g. "-L,--layers".
  template <typename T>
  FlagSet& add(std::string_view names, std::string help, T* target, FlagParser<T> parse) {
    return add_parsed(names, std::move(help), [target, parse](std::string_view text, std::string_view flag) {
      auto v = parse(text, flag);
      if (!v.ok()) return v.status();
      *target = std::move(v).value();
      return Status::Ok();
    });
  }
  template <typename T>
  FlagSet& add(std::string_view names, std::string help, std::optional<T>* target, FlagParser<T> parse) {
    return add_parsed(names, std::move(help), [target, parse](std::string_view text, std::string_view flag) {
      auto v = parse(text, flag);
      if (!v.ok()) return v.status();
      *target = std::move(v).value();
      return Status::Ok();
    });
  }
  // Text kept as typed (names, paths, lists resolved later); never empty when given.
  FlagSet& text(std::string_view names, std::string help, std::string* target);
  // A positional argument (text).
  FlagSet& positional(std::string_view name, std::string help, std::string* target);
  // An on/off switch.
  FlagSet& toggle(std::string_view names, std::string help, bool* target);
  // A switch that calls `on` (once, in apply()) when given.
  FlagSet& toggle_fn(std::string_view names, std::string help, std::function<void()> on);
  // A valued flag handled by `apply` (the text as typed and the spelling used).
  FlagSet& valued(std::string_view names, std::string help, std::function<Status(std::string_view, std::string_view)> apply) {
    return add_parsed(names, std::move(help), std::move(apply));
  }
  // `alias` is another spelling of the already declared `of`: the same flag,
  // the same target; giving both is an error.
  FlagSet& alias(std::string_view alias, std::string_view of);
  // The flag declared last must be given.
  FlagSet& required();
  // The flag declared last names a file (or folder) the command reads;
  // `list`: a comma list of them (sweep's --config).
  FlagSet& reads(bool list = false);
  // The flag declared last names a file the command writes ("-": stdout).
  // apply() refuses a written path that is one a reads() flag names, or a
  // .json or .safetensors file in a folder one names (see check_output_path).
  FlagSet& writes();
  // Text after the options in --help.
  void footer(std::string text);
  // The command writes its output as it goes (sweep), straight to stdout,
  // instead of run_cli holding it until the command succeeds. Such a command
  // must check everything that can fail before writing its first byte.
  void stream_output() { streams_ = true; }
  bool streams() const { return streams_; }

  // True when the flag (any of its spellings) was given. `name` is its long name.
  bool given(std::string_view name) const;
  // Every spelling the command accepts ("--seq", "--context", "-L", ...),
  // declared to CLI11 or not: what an unknown flag is compared with.
  std::vector<std::string> spellings() const;
  // True when `arg` (as typed: "--seqq", "--gpu=h100", "-L") names one of them.
  bool knows(std::string_view arg) const;
  // True when `arg` names a valued flag whose value is the next argument
  // ("--seq", "-L"; not "--seq=8", "-L48" or a toggle).
  bool takes_next(std::string_view arg) const;
  // An error as the user typed it: a message "--seq: ..." about a flag given
  // as its alias ("--context") names the alias; "--tp: ..." when --tp was not
  // given but --gpus was (tp = gpus / (pp x dp)) names --gpus. Others unchanged.
  Status as_typed(const Status& s) const;
  // Parses every given flag into its target, in declaration order; the first
  // error is returned. Called once, after the command line is read.
  Status apply();

 private:
  using Apply = std::function<Status(std::string_view text, std::string_view flag)>;
  struct Entry;
  FlagSet& add_parsed(std::string_view names, std::string help, Apply apply);
  Entry* find(std::string_view name) const;
  // No writes() flag names a path a reads() flag's names (check_output_path).
  Status check_paths() const;
  // The entry one of whose spellings `arg` names (any form: "--x=v", "-Lv").
  const Entry* find_spelled(std::string_view arg) const;
  // Whether a flag spelled `names` ("-L,--layers", or a positional's name) is
  // declared to CLI11 now (see the constructor).
  bool declare(std::string_view names) const;

  CLI::App& app_;
  std::span<const std::string> args_;  // empty: declare every flag
  bool declare_all_ = true;
  std::vector<std::unique_ptr<Entry>> entries_;
  bool streams_ = false;
};

}  // namespace modelcalc

#endif  // MODELCALC_FLAGS_H_
