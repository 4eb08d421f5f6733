#include "safetensors.h"

#include <algorithm>
#include <array>
#include <utility>

#include "input_file.h"
#include "modelcalc/checkpoint.h"
#include "modelcalc/exact.h"

namespace modelcalc {

namespace {

using nlohmann::json;

struct DtypeBits {
  std::string_view name;
  int64_t bits;
};
// huggingface/safetensors' Dtype enum and its bitsize().
constexpr std::array<DtypeBits, 19> kDtypes = {{
    {"BOOL", 8},  {"U8", 8},   {"I8", 8},      {"F8_E5M2", 8},  {"F8_E4M3", 8},  {"F8_E8M0", 8}, {"I16", 16},
    {"U16", 16},  {"F16", 16}, {"BF16", 16},   {"I32", 32},     {"U32", 32},     {"F32", 32},    {"F64", 64},
    {"I64", 64},  {"U64", 64}, {"F4", 4},      {"F6_E2M3", 6},  {"F6_E3M2", 6},
}};

// A name, cut short for a one-line error.
std::string shown(std::string_view s) {
  return s.size() > 80 ? std::string(s.substr(0, 80)) + "..." : std::string(s);
}

Status bad(std::string_view source, std::string_view tensor, std::string_view what) {
  return Status::InvalidArgument(source, "tensor '" + shown(tensor) + "' " + std::string(what));
}

// A non-negative JSON integer that fits int64_t, or -1.
int64_t count_of(const json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    return u <= static_cast<uint64_t>(INT64_MAX) ? static_cast<int64_t>(u) : -1;
  }
  if (v.is_number_integer()) return v.get<int64_t>() >= 0 ? v.get<int64_t>() : -1;
  return -1;
}

// One tensor entry: dtype, shape, data_offsets; its byte size must be its range's.
Result<SafeTensor> parse_tensor(const std::string& name, const json& e, std::string_view source) {
  if (!e.is_object()) return bad(source, name, "is not an object {dtype, shape, data_offsets}");
  for (const auto& [key, value] : e.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") return bad(source, name, "has an unknown key '" + shown(key) + "'");
  }
  SafeTensor t;
  t.name = name;
  const auto dt = e.find("dtype"), sh = e.find("shape"), off = e.find("data_offsets");
  if (dt == e.end() || !dt->is_string()) return bad(source, name, "needs a string dtype");
  t.dtype = dt->get<std::string>();
  const int64_t bits = safetensors_dtype_bits(t.dtype);
  if (bits == 0) return bad(source, name, "has an unknown dtype '" + shown(t.dtype) + "'");
  if (sh == e.end() || !sh->is_array()) return bad(source, name, "needs a shape list");
  Exact elements(1);
  for (const json& d : *sh) {
    const int64_t n = count_of(d);
    if (n < 0) return bad(source, name, "has a shape entry that is not a whole number >= 0");
    t.shape.push_back(n);
    elements = elements * Exact(n);
  }
  if (off == e.end() || !off->is_array() || off->size() != 2) return bad(source, name, "needs data_offsets [begin, end]");
  t.begin = count_of((*off)[0]);
  t.end = count_of((*off)[1]);
  if (t.begin < 0 || t.end < t.begin) return bad(source, name, "has data_offsets that are not 0 <= begin <= end");
  const Exact nbits = elements * Exact(bits);
  if (nbits.overflow()) return bad(source, name, "has a shape too large to count");
  if (nbits.value() % 8 != 0) return bad(source, name, "does not fill whole bytes");
  t.elements = elements.value();
  if (nbits.value() / 8 != t.end - t.begin) {
    return bad(source, name, "holds " + std::to_string(nbits.value() / 8) + " bytes by its dtype and shape, but its data_offsets span " +
                                 std::to_string(t.end - t.begin));
  }
  return t;
}

// The ranges, sorted by begin, must tile [0, end) exactly.
Status check_layout(std::vector<SafeTensor>& tensors, std::string_view source, int64_t* data_bytes) {
  std::vector<const SafeTensor*> order;
  order.reserve(tensors.size());
  for (const SafeTensor& t : tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const SafeTensor* a, const SafeTensor* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  int64_t at = 0;
  for (const SafeTensor* t : order) {
    if (t->begin < at) return bad(source, t->name, "overlaps the tensor before it (offset " + std::to_string(t->begin) + ")");
    if (t->begin > at) {
      return bad(source, t->name, "starts at " + std::to_string(t->begin) + ", beyond the header's contiguous layout (" +
                                      std::to_string(at) + ")");
    }
    at = t->end;
  }
  *data_bytes = at;
  return Status::Ok();
}

}  // namespace

int64_t safetensors_dtype_bits(std::string_view dtype) {
  for (const DtypeBits& d : kDtypes) {
    if (d.name == dtype) return d.bits;
  }
  return 0;
}

Result<SafeTensorsHeader> parse_safetensors_header(std::string_view text, std::string_view source) {
  MC_ASSIGN_OR_RETURN(const json j, parse_json_strict(text, source));
  if (!j.is_object()) return Status::InvalidArgument(source, "the header is not a JSON object");
  SafeTensorsHeader h;
  h.tensors.reserve(j.size());
  for (const auto& [name, entry] : j.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) return Status::InvalidArgument(source, "__metadata__ is not an object");
      for (const auto& [k, v] : entry.items()) {
        if (!v.is_string()) return Status::InvalidArgument(source, "__metadata__." + shown(k) + " is not a string");
      }
      continue;
    }
    MC_ASSIGN_OR_RETURN(SafeTensor t, parse_tensor(name, entry, source));
    h.tensors.push_back(std::move(t));
  }
  MC_RETURN_IF_ERROR(check_layout(h.tensors, source, &h.data_bytes));
  return h;
}

Result<SafeTensorsHeader> read_safetensors_header(const std::string& path) {
  int64_t size = 0;
  MC_ASSIGN_OR_RETURN(const std::string prefix, read_input_prefix(path, 8, &size));
  if (prefix.size() < 8) return Status::InvalidArgument(path, "is shorter than a safetensors header's 8-byte length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(prefix[static_cast<size_t>(i)]);
  if (n > static_cast<uint64_t>(kMaxSafetensorsHeaderBytes)) {
    return Status::InvalidArgument(path, "declares a " + std::to_string(n) + "-byte header, beyond the " +
                                             std::to_string(kMaxSafetensorsHeaderBytes >> 20) + " MB limit");
  }
  if (static_cast<int64_t>(n) > size - 8) {
    return Status::InvalidArgument(path, "declares a " + std::to_string(n) + "-byte header, beyond the file (" +
                                             std::to_string(size) + " bytes)");
  }
  int64_t again = 0;
  MC_ASSIGN_OR_RETURN(const std::string whole, read_input_prefix(path, 8 + static_cast<size_t>(n), &again));
  if (whole.size() != 8 + n) return Status::InvalidArgument(path, "changed while it was read");
  // The format pads the header with spaces; a NUL is not JSON.
  return parse_safetensors_header(std::string_view(whole).substr(8), path);
}

}  // namespace modelcalc
