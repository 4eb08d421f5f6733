// The subcommand table and the pieces subcommands share.
#ifndef MODELCALC_COMMANDS_H_
#define MODELCALC_COMMANDS_H_

#include <vector>

#include "cli.h"
#include "flags.h"

namespace modelcalc {

// One setup_* per subcommand, each defined in its cmd_*.cc.
CommandRun setup_size(FlagSet& flags);
CommandRun setup_exercises(FlagSet& flags);
CommandRun setup_gpus(FlagSet& flags);
CommandRun setup_models(FlagSet& flags);
CommandRun setup_kv_budget(FlagSet& flags);
CommandRun setup_train_memory(FlagSet& flags);
CommandRun setup_paged_kv(FlagSet& flags);
CommandRun setup_diagnose(FlagSet& flags);
// The lab's calculator (cmd_train.cc, cmd_chinchilla.cc, cmd_cost.cc, cmd_mfu.cc,
// cmd_tradeoff.cc, cmd_example.cc).
CommandRun setup_train(FlagSet& flags);
CommandRun setup_train_plan(FlagSet& flags);
CommandRun setup_chinchilla(FlagSet& flags);
CommandRun setup_cost(FlagSet& flags);
CommandRun setup_mfu(FlagSet& flags);
CommandRun setup_tradeoff(FlagSet& flags);
CommandRun setup_example(FlagSet& flags);
CommandRun setup_roofline(FlagSet& flags);
CommandRun setup_sweep(FlagSet& flags);
CommandRun setup_plan(FlagSet& flags);
CommandRun setup_calibrate(FlagSet& flags);
CommandRun setup_serve(FlagSet& flags);

// The table, in --help order. Adding a command: write cmd_foo.cc with
// setup_foo, declare it above, and add a row in cli_commands.cc.
std::vector<Command> all_commands();

}  // namespace modelcalc

#endif  // MODELCALC_COMMANDS_H_
