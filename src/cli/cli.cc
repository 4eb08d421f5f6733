#include "cli.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>
#include <sstream>

#include "commands.h"
#include "flags.h"
#include "inputs.h"
#include "modelcalc/app/requests.h"
#include "quantity.h"
#include "suggest.h"

namespace modelcalc {

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = all_commands();
  return kCommands;
}

namespace {

constexpr const char* kDescription =
    "modelcalc: exact, explained performance arithmetic for transformer models.\n"
    "`size` is the default command: `modelcalc -L 48 -d 6144 ...` means `modelcalc size -L 48 ...`.";

// Every --help ends with the rules for typed numbers (quantity.h, input_file.h).
constexpr const char* kNumbersHelp =
    "Numbers: K = 1e3, M = 1e6, B or G = 1e9, T = 1e12 (decimal, the tool's convention); Ki, Mi, Gi, Ti are\n"
    "binary (8Ki = 8,192). Sizes and rates are decimal (1 GB = 1e9 B, 1 TB/s = 1e12 B/s); KiB, GiB are binary.\n"
    "Allowed ranges: whole counts 1 to 1e15; parameters, tokens, FLOP and tokens/s 0 to 1e27; bytes up to\n"
    "1 PB; bandwidth up to 1 PB/s and peak up to 1 EFLOP/s per GPU; prices and times up to 1e9; fractions\n"
    "0 to 1 or 0% to 100%. Input files: regular files of at most 16 MiB, JSON nested at most 64 deep, no\n"
    "duplicate keys. Bad input: one line on stderr naming the flag, exit status 2, nothing else.";

const Command* find_command(const std::string& name) {
  for (const Command& c : commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

}  // namespace

namespace {

// The one place errors are printed: "modelcalc: error: MESSAGE", escaped, one line.
void print_error(std::ostream& err, std::string_view message, bool internal = false) {
  err << (internal ? "modelcalc: internal error: " : "modelcalc: error: ") << escape_for_terminal(message) << "\n";
}

// Before CLI11 reads the command line: an unknown flag gets the project's line
// with a did-you-mean (not CLI11's "arguments were not expected"), and
// "--flag=" with nothing after '=' is the empty value it is (CLI11 would take
// the next argument for it). Empty when the arguments are fine.
std::string precheck(const std::vector<std::string>& args, const FlagSet& flags, std::string_view command) {
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-') continue;  // a positional
    if (!flags.knows(a)) {
      const std::string name = a.starts_with("--") ? a.substr(0, a.find('=')) : a.substr(0, 2);
      // A field the command decides itself (plan's split) says so, not "did you mean".
      const app::Table* table = app::find_table(command);
      const app::Decided* decided =
          table != nullptr && name.starts_with("--") ? table->find_decided(std::string_view(name).substr(2)) : nullptr;
      if (decided != nullptr) return name + ": not a flag of " + std::string(command) + ": " + std::string(decided->reason);
      const std::vector<std::string> all = flags.spellings();
      const std::string close = closest_flag(name, all);
      return quote_input(name) + ": unknown flag for " + std::string(command) +
             (close.empty() ? std::string() : "; did you mean " + close + "?") + " (modelcalc " +
             std::string(command) + " --help lists them)";
    }
    if (a.starts_with("--") && a.back() == '=' && a.find('=') == a.size() - 1) {
      return a.substr(0, a.size() - 1) + ": needs a value, got an empty string";
    }
    if (flags.takes_next(a)) ++i;  // its value, whatever it looks like ("-inf", "--x")
  }
  return "";
}

}  // namespace

int run_cli(const std::vector<std::string>& raw_args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> args = raw_args;
  if (!args.empty() && !args[0].empty() && args[0][0] == '-' && args[0] != "-h" && args[0] != "--help" &&
      args[0] != "--version") {
    args.insert(args.begin(), "size");  // the seed's flag spelling: size is the default
  }
  const Command* chosen = args.empty() ? nullptr : find_command(args[0]);
  if (!args.empty() && (args[0].empty() || args[0][0] != '-') && chosen == nullptr) {
    std::vector<std::string> names;
    for (const Command& c : commands()) names.emplace_back(c.name);
    print_error(err, "unknown command " + quote_input(args[0]) + did_you_mean(args[0], names) +
                         " (modelcalc --help lists them)");
    return 2;
  }

  CLI::App app(kDescription, "modelcalc");
  app.set_version_flag("--version", "modelcalc 0.1.0");
  app.require_subcommand(0, 1);
  app.footer(kNumbersHelp);
  // Only the command that runs declares its flags (start-up cost); the others
  // are listed by name and summary for the top-level --help. With a command
  // chosen they are not declared at all (each CLI::App costs ~20k instructions)
  // unless an argument spells one of them: CLI11 reads a parent's subcommand
  // name as a subcommand even inside another's arguments, so then they are
  // declared as before and every such command line parses as it always did.
  bool declare_all = chosen == nullptr;
  for (size_t i = 1; i < args.size() && !declare_all; ++i) declare_all = find_command(args[i]) != nullptr;
  CLI::App* sub = nullptr;
  std::unique_ptr<FlagSet> flags;
  CommandRun run;
  for (const Command& c : commands()) {
    if (&c != chosen && !declare_all) continue;
    CLI::App* one = app.add_subcommand(c.name, c.summary);
    if (&c != chosen) continue;
    one->footer(std::string());  // CLI11 copies the parent's footer into a subcommand; the callback below shows it once
    sub = one;
    flags = std::make_unique<FlagSet>(*one, args);  // declares only the flags args can name
    run = c.setup(*flags);
    one->footer([] { return std::string(kNumbersHelp); });  // shown before the command's own footer
  }
  if (flags != nullptr) {
    if (const std::string bad = precheck(args, *flags, chosen->name); !bad.empty()) {
      print_error(err, bad);
      return 2;
    }
  }
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      std::ostringstream help_out, help_err;
      app.exit(e, help_out, help_err);
      out << help_out.str() << help_err.str();
      return 0;
    }
    std::string what = e.what();
    while (!what.empty() && what.back() == '\n') what.pop_back();
    print_error(err, what);
    return 2;
  }
  if (sub != nullptr && sub->parsed()) {
    std::ostringstream buffer;
    Status s;
    try {
      s = flags->apply();
      if (s.ok()) s = run(flags->streams() ? out : buffer);
    } catch (const std::exception& e) {
      print_error(err, e.what(), /*internal=*/true);
      return 1;
    }
    if (s.code() == Status::Code::kIoError) {  // the output could not be written: not bad input, exit 1 as main does
      print_error(err, s.message());
      return 1;
    }
    if (s.code() == Status::Code::kNotMet) {  // valid input, no answer: the output explains why
      out << escape_output_text(buffer.view());
      err << "modelcalc: " << s.message() << "\n";
      return 1;
    }
    if (!s.ok()) {
      print_error(err, flags->as_typed(as_flag_error(s)).message());
      return 2;
    }
    out << escape_output_text(buffer.view());  // text echoed from input files cannot drive the terminal
    return 0;
  }
  out << app.help();
  return 0;
}

}  // namespace modelcalc
