// The safetensors header of one file, read and checked without reading the
// tensors (the format: an 8-byte little-endian header length N, N bytes of
// JSON naming each tensor's dtype, shape and data_offsets into the byte buffer
// that follows; huggingface/safetensors' README). Internal to core: the
// checkpoint counter (checkpoint.cc) uses it.
#ifndef MODELCALC_SAFETENSORS_H_
#define MODELCALC_SAFETENSORS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/status.h"

namespace modelcalc {

struct SafeTensor {
  std::string name;
  std::string dtype;           // as written: "BF16", "F8_E4M3", "U8", ...
  std::vector<int64_t> shape;  // empty for a scalar
  int64_t elements = 0;        // product of the shape (1 for a scalar)
  int64_t begin = 0, end = 0;  // data_offsets, bytes into the buffer after the header
};

struct SafeTensorsHeader {
  std::vector<SafeTensor> tensors;  // in file order
  int64_t data_bytes = 0;           // the buffer the header lays out: the last tensor's end
};

// Bits of one element of a safetensors dtype name; 0 for a name the format
// does not define (BOOL, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, I16, U16, F16,
// BF16, I32, U32, F32, F64, I64, U64, F4, F6_E2M3, F6_E3M2).
int64_t safetensors_dtype_bits(std::string_view dtype);

// Parses header JSON (without the length prefix) as the format requires:
// an object whose "__metadata__" (optional) maps strings to strings and whose
// every other key is a tensor {"dtype", "shape", "data_offsets"}; each
// tensor's byte size equal to its range; the ranges, sorted, tiling
// [0, data_bytes) without overlap or hole. Errors name `source`.
Result<SafeTensorsHeader> parse_safetensors_header(std::string_view json, std::string_view source);

// Reads the header of the file at `path` (links followed; a FIFO, folder or
// device refused without blocking): the length prefix must fit the file and
// kMaxSafetensorsHeaderBytes; the tensors after the header need not be there.
Result<SafeTensorsHeader> read_safetensors_header(const std::string& path);

}  // namespace modelcalc

#endif  // MODELCALC_SAFETENSORS_H_
