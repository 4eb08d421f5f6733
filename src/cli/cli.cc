#include "cli.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>
#include <sstream>

#include "commands.h"
#include "flags.h"
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

const Command* find_command(const std::string& name) {
  for (const Command& c : commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

std::string first_line(std::string s) {
  const auto nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  return s;
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
    err << "modelcalc: error: unknown command '" << args[0] << "'" << did_you_mean(args[0], names)
        << " (modelcalc --help lists them)\n";
    return 2;
  }

  CLI::App app(kDescription, "modelcalc");
  app.set_version_flag("--version", "modelcalc 0.1.0");
  app.require_subcommand(0, 1);
  // Only the command that runs declares its flags (start-up cost); the others
  // are listed by name and summary for --help.
  CLI::App* sub = nullptr;
  std::unique_ptr<FlagSet> flags;
  CommandRun run;
  for (const Command& c : commands()) {
    CLI::App* one = app.add_subcommand(c.name, c.summary);
    if (&c != chosen) continue;
    sub = one;
    flags = std::make_unique<FlagSet>(*one);
    run = c.setup(*flags);
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
    err << "modelcalc: error: " << first_line(e.what()) << "\n";
    return 2;
  }
  if (sub != nullptr && sub->parsed()) {
    std::ostringstream buffer;
    Status s;
    try {
      s = flags->apply();
      if (s.ok()) s = run(flags->streams() ? out : buffer);
    } catch (const std::exception& e) {
      err << "modelcalc: internal error: " << e.what() << "\n";
      return 1;
    }
    if (s.code() == Status::Code::kNotMet) {  // valid input, no answer: the output explains why
      out << buffer.str();
      err << "modelcalc: " << s.message() << "\n";
      return 1;
    }
    if (!s.ok()) {
      err << "modelcalc: error: " << s.message() << "\n";
      return 2;
    }
    out << buffer.str();
    return 0;
  }
  out << app.help();
  return 0;
}

}  // namespace modelcalc
