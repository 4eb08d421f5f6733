// modelcalc example: the lab's worked example, end to end.
#include <memory>

#include "commands.h"
#include "inputs.h"
#include "lab_report.h"

namespace modelcalc {

CommandRun setup_example(FlagSet& flags) {
  auto f = std::make_shared<OutputFlags>();
  add_output_flags(flags, f.get());
  return [f](std::ostream& out) -> Status {
    auto rep = build_example_report();
    if (!rep.ok()) return rep.status();
    emit(*rep, *f, out);
    return Status::Ok();
  };
}

}  // namespace modelcalc
