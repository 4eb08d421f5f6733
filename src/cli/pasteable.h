// Proposals that paste: the user's own command line with a proposal's change
// applied, in the spellings the user typed (--seq stays --seq, --context stays
// --context, --seq=8192 stays one word), so that every "what if" a command
// prints can be run as it stands.
#ifndef MODELCALC_PASTEABLE_H_
#define MODELCALC_PASTEABLE_H_

#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelcalc/app/table.h"

namespace modelcalc {

// `args` is the command line after the program's name (args[0] the command).
// Each key of `change` (a proposal's "change": canonical field names and their
// values) replaces the value the user gave under any spelling of that field,
// or is appended under the field's flag. A split's pp, ep or dp of 1 is not
// appended when the user did not give it (1 is what it means unsaid; dp is
// inferred as gpus / (tp x pp)). nullopt when a key names no
// field of `table` (a change no flag makes, such as a retrained latent), when
// it changes the shape of a model the command line names (--model, --config,
// --checkpoint define the whole shape), or when `args` is empty. Arguments holding spaces or shell characters are quoted.
std::optional<std::string> pasteable_command(std::span<const std::string> args, const nlohmann::json& change,
                                             const app::Table& table);

// Adds "command" beside every non-null "change" object found anywhere in `j`
// (null where no command makes it), and returns the commands in the order
// found, each labelled by where it sits ("proposal 2", "fix 1", "reject"),
// for a text section.
struct PasteableCommand {
  std::string label, command;
};
std::vector<PasteableCommand> add_pasteable_commands(nlohmann::json& j, std::span<const std::string> args,
                                                     const app::Table& table);

}  // namespace modelcalc

#endif  // MODELCALC_PASTEABLE_H_
