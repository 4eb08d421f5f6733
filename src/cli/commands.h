// The subcommand table and the pieces subcommands share.
#ifndef MODELCALC_COMMANDS_H_
#define MODELCALC_COMMANDS_H_

#include <vector>

#include "cli.h"

namespace modelcalc {

// One setup_* per subcommand, each defined in its cmd_*.cc.
CommandRun setup_size(CLI::App& app);
CommandRun setup_exercises(CLI::App& app);
CommandRun setup_gpus(CLI::App& app);
CommandRun setup_models(CLI::App& app);
CommandRun setup_kv_budget(CLI::App& app);
CommandRun setup_train_memory(CLI::App& app);
CommandRun setup_paged_kv(CLI::App& app);
CommandRun setup_diagnose(CLI::App& app);
// The lab's calculator (cmd_train.cc, cmd_chinchilla.cc, cmd_cost.cc, cmd_mfu.cc,
// cmd_tradeoff.cc, cmd_example.cc).
CommandRun setup_train(CLI::App& app);
CommandRun setup_chinchilla(CLI::App& app);
CommandRun setup_cost(CLI::App& app);
CommandRun setup_mfu(CLI::App& app);
CommandRun setup_tradeoff(CLI::App& app);
CommandRun setup_example(CLI::App& app);
CommandRun setup_roofline(CLI::App& app);
CommandRun setup_sweep(CLI::App& app);

// The table, in --help order. Adding a command: write cmd_foo.cc with
// setup_foo, declare it above, and add a row in cli_commands.cc.
std::vector<Command> all_commands();

}  // namespace modelcalc

#endif  // MODELCALC_COMMANDS_H_
