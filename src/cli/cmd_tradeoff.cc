// modelcalc tradeoff: two candidates from a JSON file, scored under --weights.
//
// The file holds a JSON array of exactly two objects, each with a "name" and
// all five dials by name, e.g.
//   [{"name": "70b-tp4", "quality": 0.80, "latency": 17, "throughput": 3778,
//     "cost": 0.88, "memory": 227},
//    {"name": "8b", "quality": 0.62, "latency": 15, "throughput": 4253,
//     "cost": 0.20, "memory": 50}]
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "commands.h"
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

Result<Candidate> candidate_from_json(const nlohmann::json& j, size_t index, const std::string& field) {
  const std::string where = "candidate " + std::to_string(index + 1);
  if (!j.is_object()) return Status::InvalidArgument(field, where + " is not a JSON object");
  Candidate c;
  bool seen[kDialCount] = {};
  for (const auto& [key, value] : j.items()) {
    if (key == "name") {
      if (!value.is_string() || value.get<std::string>().empty()) {
        return Status::InvalidArgument(field, where + ": \"name\" must be a non-empty string");
      }
      c.name = value.get<std::string>();
      continue;
    }
    auto dial = parse_dial(key, field + " (" + where + ")");
    if (!dial.ok()) return dial.status();
    if (!value.is_number()) {
      return Status::InvalidArgument(field, where + ": \"" + key + "\" must be a number, got " + value.dump());
    }
    c.dials[*dial] = value.get<double>();
    seen[static_cast<int>(*dial)] = true;
  }
  if (c.name.empty()) return Status::InvalidArgument(field, where + " has no \"name\"");
  for (Dial d : kAllDials) {
    if (!seen[static_cast<int>(d)]) {
      return Status::InvalidArgument(field, "candidate '" + c.name + "' lacks the dial \"" + std::string(dial_name(d)) +
                                                "\"; every candidate needs quality, latency, throughput, cost, memory");
    }
  }
  MC_RETURN_IF_ERROR(validate(c, field));
  return c;
}

Result<std::vector<Candidate>> read_candidates(const std::string& path) {
  const std::string field = "candidates file '" + path + "'";
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(field, "cannot be opened (does it exist?)");
  std::ostringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument(field, "is not valid JSON");
  if (!j.is_array() || j.size() != 2) {
    return Status::InvalidArgument(field, "must be a JSON array of exactly two candidate objects");
  }
  std::vector<Candidate> out;
  for (size_t i = 0; i < j.size(); ++i) {
    auto c = candidate_from_json(j[i], i, field);
    if (!c.ok()) return c.status();
    out.push_back(*c);
  }
  if (out[0].name == out[1].name) {
    return Status::InvalidArgument(field, "the two candidates need different names, both are '" + out[0].name + "'");
  }
  return out;
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
