// The command line: a table of subcommands, each in its own cmd_*.cc with an
// options struct, a setup_* that declares its flags (flags.h) and returns what
// to run. Only the subcommand that runs declares its flags.
// run_cli is the whole program minus main(), so tests drive it in-process on
// argv vectors.
#ifndef MODELCALC_CLI_H_
#define MODELCALC_CLI_H_

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/status.h"
#include "quantity.h"

namespace modelcalc {

class FlagSet;

// What a subcommand does once its flags are parsed: write its whole output to
// `out` and return OK, or return the error (nothing it wrote is shown).
using CommandRun = std::function<Status(std::ostream& out)>;

struct Command {
  const char* name;
  const char* summary;
  CommandRun (*setup)(FlagSet& flags);  // declares its flags, returns what to run
};

// Every subcommand, in the order `modelcalc --help` lists them.
const std::vector<Command>& commands();

// Runs modelcalc with `args` (argv without argv[0]). Output goes to `out` only
// when the command succeeds; errors are one line on `err`. Returns the exit
// status: 0 success, 2 bad input, 1 internal error.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// escape_for_terminal (quantity.h) makes every error line safe to print.

}  // namespace modelcalc

#endif  // MODELCALC_CLI_H_
