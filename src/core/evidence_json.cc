// Evidence files: JSON in the schema of modelcalc::Evidence. Strict: unknown
// fields and wrong types are errors naming the field's JSON path.
#include <cmath>
#include <nlohmann/json.hpp>

#include "modelcalc/diagnose.h"
#include "input_file.h"
#include "quantity.h"

namespace modelcalc {

namespace {

using nlohmann::json;

Result<Evidence> parse_evidence(std::string_view json_text, std::string_view source);

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Every key of `j` must be in `allowed`.
Status known_fields(const json& j, const std::string& path, const std::vector<std::string>& allowed) {
  for (const auto& [key, value] : j.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return Status::InvalidArgument(path + key, "unknown field; allowed here: " + join(allowed));
    }
  }
  return Status::Ok();
}

Status object(const json& j, const std::string& field) {
  if (!j.is_object()) return Status::InvalidArgument(field, "must be an object");
  return Status::Ok();
}

// A number; strings with units are accepted where `parse` is given ("13B", "40GB").
Status read_number(const json& j, const std::string& field, std::optional<double>* out,
                   Result<double> (*parse)(std::string_view, std::string_view) = nullptr) {
  if (j.is_number()) {  // held to the range the flag of the same meaning has
    auto v = (parse != nullptr ? parse : parse_real)(j.dump(), field);
    if (!v.ok()) return v.status();
    *out = *v;
    return Status::Ok();
  }
  if (j.is_string() && parse != nullptr) {
    auto v = parse(j.get<std::string>(), field);
    if (!v.ok()) return v.status();
    *out = *v;
    return Status::Ok();
  }
  return Status::InvalidArgument(field, parse ? "must be a number or a quantity string such as \"13B\""
                                              : "must be a number");
}

Status read_count(const json& j, const std::string& field, std::optional<int64_t>* out) {
  if (!j.is_number()) return Status::InvalidArgument(field, "must be a whole number");
  auto v = parse_count(j.dump(), field);  // 1 .. 1e15, as the flags
  if (!v.ok()) return v.status();
  *out = *v;
  return Status::Ok();
}

Status read_string(const json& j, const std::string& field, std::string* out) {
  if (!j.is_string()) return Status::InvalidArgument(field, "must be a string");
  *out = j.get<std::string>();
  return Status::Ok();
}

Status read_range(const json& j, const std::string& field, std::optional<Range>* out) {
  std::optional<double> lo, hi;
  if (j.is_number()) {  // one typical value
    MC_RETURN_IF_ERROR(read_number(j, field, &lo));
    *out = Range{*lo, *lo};
    return Status::Ok();
  }
  if (!j.is_array() || j.size() != 2 || !j[0].is_number() || !j[1].is_number()) {
    return Status::InvalidArgument(field, "must be [lo, hi] in microseconds, e.g. [8, 15]");
  }
  MC_RETURN_IF_ERROR(read_number(j[0], field, &lo));
  MC_RETURN_IF_ERROR(read_number(j[1], field, &hi));
  *out = Range{*lo, *hi};
  return Status::Ok();
}

Result<Phase> read_phase(const json& j) {
  std::string s;
  MC_RETURN_IF_ERROR(read_string(j, "phase", &s));
  if (s == "decode") return Phase::kDecode;
  if (s == "prefill") return Phase::kPrefill;
  if (s == "training") return Phase::kTraining;
  return Status::InvalidArgument("phase", "must be decode, prefill or training, got \"" + s + "\"");
}

Status read_model(const json& j, EvidenceModel* m) {
  MC_RETURN_IF_ERROR(object(j, "model"));
  MC_RETURN_IF_ERROR(known_fields(j, "model.", {"name", "params", "dtype", "layers", "hidden", "heads", "kv_heads",
                                                "head_dim"}));
  for (const auto& [key, v] : j.items()) {
    const std::string f = "model." + key;
    if (key == "name") {
      std::string ignored;
      MC_RETURN_IF_ERROR(read_string(v, f, &ignored));
    } else if (key == "params") {
      MC_RETURN_IF_ERROR(read_number(v, f, &m->params, parse_real_count));
    } else if (key == "dtype") {
      std::string s;
      MC_RETURN_IF_ERROR(read_string(v, f, &s));
      auto t = parse_dtype(s, f);
      if (!t.ok()) return t.status();
      m->dtype = *t;
    } else if (key == "layers") {
      MC_RETURN_IF_ERROR(read_count(v, f, &m->layers));
    } else if (key == "hidden") {
      MC_RETURN_IF_ERROR(read_count(v, f, &m->hidden));
    } else if (key == "heads") {
      MC_RETURN_IF_ERROR(read_count(v, f, &m->heads));
    } else if (key == "kv_heads") {
      MC_RETURN_IF_ERROR(read_count(v, f, &m->kv_heads));
    } else if (key == "head_dim") {
      MC_RETURN_IF_ERROR(read_count(v, f, &m->head_dim));
    }
  }
  return Status::Ok();
}

Status read_measured(const json& j, Measured* m) {
  MC_RETURN_IF_ERROR(object(j, "measured"));
  MC_RETURN_IF_ERROR(known_fields(j, "measured.", {"tokens_per_s_per_sequence", "tokens_per_s_aggregate", "ttft_s",
                                                   "itl_s"}));
  for (const auto& [key, v] : j.items()) {
    const std::string f = "measured." + key;
    std::optional<double>* out = key == "tokens_per_s_per_sequence" ? &m->tokens_per_s_per_sequence
                                 : key == "tokens_per_s_aggregate"  ? &m->tokens_per_s_aggregate
                                 : key == "ttft_s"                  ? &m->ttft_s
                                                                    : &m->itl_s;
    MC_RETURN_IF_ERROR(read_number(v, f, out));
  }
  return Status::Ok();
}

Status read_profile(const json& j, Profile* p) {
  MC_RETURN_IF_ERROR(object(j, "profile"));
  MC_RETURN_IF_ERROR(known_fields(j, "profile.", {"flop_utilization", "bandwidth_utilization", "kernel_time_fraction",
                                                  "kernels_per_step", "kernel_us", "gap_us", "peak_transient_bytes"}));
  for (const auto& [key, v] : j.items()) {
    const std::string f = "profile." + key;
    if (key == "flop_utilization") {
      MC_RETURN_IF_ERROR(read_number(v, f, &p->flop_utilization));
    } else if (key == "bandwidth_utilization") {
      MC_RETURN_IF_ERROR(read_number(v, f, &p->bandwidth_utilization));
    } else if (key == "kernel_time_fraction") {
      MC_RETURN_IF_ERROR(object(v, f));
      MC_RETURN_IF_ERROR(known_fields(v, f + ".", kernel_kinds()));
      for (const auto& [kind, share] : v.items()) {
        std::optional<double> x;
        MC_RETURN_IF_ERROR(read_number(share, f + "." + kind, &x));
        p->kernel_time_fraction[kind] = *x;
      }
    } else if (key == "kernels_per_step") {
      MC_RETURN_IF_ERROR(read_count(v, f, &p->kernels_per_step));
    } else if (key == "kernel_us") {
      MC_RETURN_IF_ERROR(read_range(v, f, &p->kernel_us));
    } else if (key == "gap_us") {
      MC_RETURN_IF_ERROR(read_range(v, f, &p->gap_us));
    } else if (key == "peak_transient_bytes") {
      MC_RETURN_IF_ERROR(read_number(v, f, &p->peak_transient_bytes, parse_bytes));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Evidence> parse_evidence_json(std::string_view json_text, std::string_view source) {
  try {
    return parse_evidence(json_text, source);
  } catch (const json::exception& e) {  // defensive: every read above checks the type first
    std::string why = e.what();
    if (auto p = why.find("] "); p != std::string::npos) why = why.substr(p + 2);
    return Status::InvalidArgument(source, "unexpected JSON: " + why);
  }
}

namespace {
Result<Evidence> parse_evidence(std::string_view json_text, std::string_view source) {
  MC_ASSIGN_OR_RETURN(const json j, parse_json_strict(json_text, source));
  if (!j.is_object()) return Status::InvalidArgument(source, "evidence must be a JSON object");
  MC_RETURN_IF_ERROR(known_fields(j, "", {"description", "phase", "model", "gpu", "gpus", "batch", "context",
                                          "prompt_tokens", "measured", "profile"}));
  Evidence e;
  for (const auto& [key, v] : j.items()) {
    if (key == "description") {
      MC_RETURN_IF_ERROR(read_string(v, key, &e.description));
    } else if (key == "phase") {
      auto p = read_phase(v);
      if (!p.ok()) return p.status();
      e.phase = *p;
    } else if (key == "model") {
      MC_RETURN_IF_ERROR(read_model(v, &e.model));
    } else if (key == "gpu") {
      std::string g;
      MC_RETURN_IF_ERROR(read_string(v, key, &g));
      e.gpu = g;
    } else if (key == "gpus") {
      MC_RETURN_IF_ERROR(read_count(v, key, &e.gpus));
    } else if (key == "batch") {
      MC_RETURN_IF_ERROR(read_count(v, key, &e.batch));
    } else if (key == "context") {
      MC_RETURN_IF_ERROR(read_count(v, key, &e.context));
    } else if (key == "prompt_tokens") {
      MC_RETURN_IF_ERROR(read_count(v, key, &e.prompt_tokens));
    } else if (key == "measured") {
      MC_RETURN_IF_ERROR(read_measured(v, &e.measured));
    } else if (key == "profile") {
      MC_RETURN_IF_ERROR(read_profile(v, &e.profile));
    }
  }
  return e;
}

}  // namespace

}  // namespace modelcalc
