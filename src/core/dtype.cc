#include "modelcalc/dtype.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace modelcalc {

std::string dtype_names(bool kv_only) {
  std::string out;
  for (const DtypeInfo& i : kDtypeTable) {
    if (kv_only && !i.kv_cache) continue;
    if (!out.empty()) out += ", ";
    out += i.name;
  }
  return out;
}

Result<Dtype> parse_dtype(std::string_view text, std::string_view field) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const DtypeInfo& i : kDtypeTable) {
    if (s == i.name) return i.dtype;
    for (std::string_view sp : i.spellings) {
      if (!sp.empty() && s == sp) return i.dtype;
    }
  }
  return Status::InvalidArgument(field, "unknown dtype '" + std::string(text) + "'; allowed: " + dtype_names());
}

Status check_kv_dtype(Dtype t, std::string_view field) {
  if (dtype_info(t).kv_cache) return Status::Ok();
  return Status::InvalidArgument(field, std::string(dtype_name(t)) +
                                            " is a weight format here (a KV cache in it is not modelled); allowed: " +
                                            dtype_names(true));
}

Result<Dtype> parse_kv_dtype(std::string_view text, std::string_view field) {
  auto t = parse_dtype(text, field);
  if (!t.ok()) return t;
  MC_RETURN_IF_ERROR(check_kv_dtype(*t, field));
  return t;
}

}  // namespace modelcalc
