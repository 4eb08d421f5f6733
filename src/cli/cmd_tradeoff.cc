// modelcalc tradeoff: two candidates from a JSON file, scored under --weights.
//
// The file holds a JSON array of exactly two objects, each with a "name" and
// all five dials by name, e.g.
//   [{"name": "70b-tp4", "quality": 0.80, "latency": 17, "throughput": 3778,
//     "cost": 0.88, "memory": 227},
//    {"name": "8b", "quality": 0.62, "latency": 15, "throughput": 4253,
//     "cost": 0.20, "memory": 50}]
#include <memory>
#include <vector>

#include "commands.h"
#include "input_file.h"
#include "inputs.h"
#include "lab_report.h"
#include "modelcalc/tradeoff.h"

namespace modelcalc {

namespace {

struct TradeoffFlags {
  std::string file;
  std::string weights;
  OutputFlags output;
};

Result<std::vector<Candidate>> read_candidates(const std::string& path) {
  auto text = read_input_file(path);
  if (!text.ok()) return Status::InvalidArgument("candidates file", text.status().message());
  return parse_candidates_json(*text, "candidates file '" + path + "'");
}

Status run_tradeoff(const TradeoffFlags& f, std::ostream& out) {
  auto w = parse_weights(f.weights, "--weights");
  if (!w.ok()) return w.status();
  auto cands = read_candidates(f.file);
  if (!cands.ok()) return cands.status();
  const Candidate& a = (*cands)[0];
  const Candidate& b = (*cands)[1];
  auto r = resolve_tradeoff(a, b, *w);
  if (!r.ok()) return r.status();
  emit(build_tradeoff_report(a, b, *w, *r), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_tradeoff(FlagSet& flags) {
  auto f = std::make_shared<TradeoffFlags>();
  flags
      .positional("candidates",
                  "JSON file: an array of two objects, each with \"name\" and the dials quality, latency, "
                  "throughput, cost, memory",
                  &f->file)
      .required()
      .text("--weights", "Dial weights, e.g. quality=0.4,latency=0.3,cost=0.3 (normalized to sum 1)", &f->weights)
      .required();
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return run_tradeoff(*f, out); };
}

}  // namespace modelcalc
