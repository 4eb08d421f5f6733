// Tradeoff candidates files: a JSON array of exactly two objects, each with a
// "name" and all five dials by name, e.g.
//   [{"name": "70b-tp4", "quality": 0.80, "latency": 17, "throughput": 3778,
//     "cost": 0.88, "memory": 227},
//    {"name": "8b", "quality": 0.62, "latency": 15, "throughput": 4253,
//     "cost": 0.20, "memory": 50}]
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "input_file.h"
#include "modelcalc/tradeoff.h"

namespace modelcalc {

namespace {

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
      return Status::InvalidArgument(field, where + ": \"" + key + "\" must be a number, got " + std::string(value.type_name()));
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

}  // namespace

Result<std::vector<Candidate>> parse_candidates_json(std::string_view json_text, std::string_view source) {
  const std::string field(source);
  MC_ASSIGN_OR_RETURN(const nlohmann::json j, parse_json_strict(json_text, field));
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

}  // namespace modelcalc
