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
    MC_ASSIGN_OR_RETURN(const LabExample example, analyze_lab_example());
    emit(build_example_report(example), *f, out);
    return Status::Ok();
  };
}

}  // namespace modelcalc
