#include "modelcalc/gpu.h"
#include "catalog_parsers.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "embedded_data.h"
#include "suggest.h"
#include "tsv.h"

namespace modelcalc {

std::string_view gpu_arch_key(GpuArch a) {
  switch (a) {
    case GpuArch::kUnknown: return "unknown";
    case GpuArch::kAmpere: return "ampere";
    case GpuArch::kAda: return "ada";
    case GpuArch::kHopper: return "hopper";
    case GpuArch::kBlackwell: return "blackwell";
    case GpuArch::kBlackwellUltra: return "blackwell-ultra";
    case GpuArch::kBlackwellRtx: return "blackwell-rtx";
    case GpuArch::kCdna2: return "cdna2";
    case GpuArch::kCdna3: return "cdna3";
    case GpuArch::kCdna4: return "cdna4";
    case GpuArch::kGaudi: return "gaudi";
    case GpuArch::kTpu: return "tpu";
  }
  return "?";
}

GpuVendor gpu_vendor(GpuArch a) {
  switch (a) {
    case GpuArch::kCdna2:
    case GpuArch::kCdna3:
    case GpuArch::kCdna4: return GpuVendor::kAmd;
    case GpuArch::kGaudi: return GpuVendor::kIntel;
    case GpuArch::kTpu: return GpuVendor::kGoogle;
    case GpuArch::kUnknown: return GpuVendor::kUnknown;
    default: return GpuVendor::kNvidia;
  }
}

GpuArch factor_family(GpuArch a) { return a == GpuArch::kBlackwellUltra ? GpuArch::kBlackwell : a; }

double GpuSpec::peak_flops(Dtype t) const {
  switch (dtype_info(t).peak) {
    case PeakColumn::kFp32: return peak_fp32_flops;
    case PeakColumn::kBf16: return peak_bf16_flops;
    case PeakColumn::kFp8: return peak_fp8_flops;
    case PeakColumn::kInt8: return peak_int8_ops;
    case PeakColumn::kFp4: return peak_fp4_flops;
    case PeakColumn::kNone: return 0;  // e.g. int4: no rate catalogued, the int8 peak is not assumed
  }
  return 0;
}

double GpuSpec::ridge_point(Dtype t) const {
  const double peak = peak_flops(t);
  if (peak <= 0 || bandwidth_bytes_per_s <= 0) return 0;
  return peak / bandwidth_bytes_per_s;
}

namespace {

// Column order of data/gpus.tsv.
constexpr std::string_view kHeader =
    "key\tname\taliases\tcapacity_gb\tbandwidth_tbps\tbf16_tflops\tfp8_tflops\tint8_tops\t"
    "fp4_tflops\tfp32_tflops\tinterconnect\ttdp_w\tconfirmed\tsource\tnotes\t"
    "link_gbps\tdomain_gpus\tscaleout_gbps\tlink_latency_us\tscaleout_latency_us\tlink_source\t"
    "exposed_mib\texposed_source";
enum Col {
  kKey, kName, kAliases, kCapacity, kBandwidth, kBf16, kFp8, kInt8, kFp4, kFp32,
  kInterconnect, kTdp, kConfirmed, kSource, kNotes,
  kLinkGbps, kDomainGpus, kScaleoutGbps, kLinkLatencyUs, kScaleoutLatencyUs, kLinkSource,
  kExposedMib, kExposedSource, kNumCols
};

// Parses a plain non-negative decimal ("5.3", "989.4", "80") scaled by 10^exp10.
// The scaling is done in the text ("5.3" -> "5.3e12") so the result is the
// correctly rounded double of the scaled value: exactly the literal 5.3e12.
// Empty text is 0 when `optional`, an error otherwise.
// `row` and `column` name the field in errors ("<row> <column>"); the name is
// built only on error (a cold start parses every row).
Status parse_number(std::string_view text, int exp10, bool optional, const std::string& row,
                    std::string_view column, double* out) {
  const auto field = [&] { return row + " " + std::string(column); };
  *out = 0;
  if (text.empty()) {
    if (optional) return Status::Ok();
    return Status::InvalidArgument(field(), "required number is empty");
  }
  size_t digits = 0, dots = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '.') {
      ++dots;
    } else {
      return Status::InvalidArgument(
          field(), "'" + std::string(text) + "' is not a plain decimal number (digits and one '.')");
    }
  }
  if (digits == 0 || dots > 1) {
    return Status::InvalidArgument(field(), "'" + std::string(text) + "' is not a plain decimal number");
  }
  char scaled[96];  // text + "e" + exp10, on the stack
  if (text.size() > sizeof scaled - 8) {
    return Status::InvalidArgument(field(), "'" + std::string(text) + "' is too long for a number");
  }
  std::memcpy(scaled, text.data(), text.size());
  char* end = scaled + text.size();
  *end++ = 'e';
  end = std::to_chars(end, scaled + sizeof scaled, exp10).ptr;
  const auto [ptr, ec] = std::from_chars(scaled, end, *out);
  if (ec != std::errc() || ptr != end) {
    return Status::InvalidArgument(field(), "'" + std::string(text) + "' does not parse as a number");
  }
  return Status::Ok();
}

bool valid_key(std::string_view key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

// One name a user may type: a key, an alias or a display name, normalized.
struct LookupName {
  std::string normalized;
  size_t index;  // into the catalog
};

struct Catalog {
  std::vector<GpuSpec> gpus;
  std::vector<LookupName> names;        // keys, aliases and display names
  std::vector<std::string> suggestions;  // keys and aliases, for "did you mean"
};

// Every name of every GPU, checking that no normalized name belongs to two GPUs.
Status index_names(const std::vector<GpuSpec>& gpus, std::vector<LookupName>* names) {
  std::map<std::string, size_t> owner;
  for (size_t i = 0; i < gpus.size(); ++i) {
    std::vector<std::string_view> all = {gpus[i].key, gpus[i].name};
    for (const std::string& a : gpus[i].aliases) all.push_back(a);
    for (std::string_view n : all) {
      std::string norm = normalize_name(n);
      if (norm.empty()) {
        return Status::InvalidArgument("gpus.tsv row '" + gpus[i].key + "'",
                                       "name '" + std::string(n) + "' is empty once normalized");
      }
      auto [it, inserted] = owner.emplace(norm, i);
      if (!inserted && it->second != i) {
        return Status::InvalidArgument(
            "gpus.tsv row '" + gpus[i].key + "'",
            "name '" + std::string(n) + "' already names '" + gpus[it->second].key + "'");
      }
      if (inserted) names->push_back({std::move(norm), i});
    }
  }
  return Status::Ok();
}

Result<std::vector<GpuSpec>> parse_catalog(std::string_view tsv, std::vector<LookupName>* names);

Catalog load_catalog() {
  Catalog c;
  // parse_gpu_catalog, keeping the name index it builds to check the names.
  c.gpus = parse_embedded_or_die("gpus.tsv", [&c](std::string_view tsv) { return parse_catalog(tsv, &c.names); });
  for (const GpuSpec& g : c.gpus) {
    c.suggestions.push_back(g.key);
    for (const std::string& a : g.aliases) c.suggestions.push_back(a);
  }
  return c;
}

const Catalog& catalog() {
  static const Catalog c = load_catalog();
  return c;
}

}  // namespace

Result<std::vector<GpuSpec>> parse_gpu_catalog(std::string_view tsv) {
  std::vector<LookupName> names;
  return parse_catalog(tsv, &names);
}

namespace {

// exposed_mib and exposed_source: both empty, or a whole number of MiB (as
// nvidia-smi prints it) near the nominal capacity with its source. The band
// (0.9 to 1.15 x capacity) catches a GiB or GB typed as MiB: real drivers
// expose 0.6 % (L4) to 7.4 % (A100 40GB) more than the nominal decimal GB.
Status parse_exposed(std::string_view mib_text, std::string_view source, const std::string& row, GpuSpec* g) {
  if (mib_text.empty()) {
    if (!source.empty()) return Status::InvalidArgument(row + " exposed_source", "given without exposed_mib");
    return Status::Ok();
  }
  double mib = 0;
  MC_RETURN_IF_ERROR(parse_number(mib_text, 0, false, row, "exposed_mib", &mib));
  if (mib != std::floor(mib) || mib > 1e12) {
    return Status::InvalidArgument(row + " exposed_mib",
                                   "must be a whole number of MiB as nvidia-smi prints it, got '" +
                                       std::string(mib_text) + "'");
  }
  g->exposed_bytes = mib * 1048576.0;  // exact: a whole MiB count below 2^40 times 2^20
  if (!(g->exposed_bytes >= 0.9 * g->capacity_bytes && g->exposed_bytes <= 1.15 * g->capacity_bytes)) {
    return Status::InvalidArgument(row + " exposed_mib",
                                   std::string(mib_text) + " MiB is not within 0.9 to 1.15 x the capacity_gb; "
                                   "give MiB (2^20 bytes) as nvidia-smi prints them");
  }
  g->exposed_source = std::string(source);
  if (g->exposed_source.empty()) {
    return Status::InvalidArgument(row + " exposed_source", "exposed_mib needs a source");
  }
  return Status::Ok();
}

// One data row of gpus.tsv (line `line_no`), checked field by field.
Status parse_row(std::string_view line, int line_no, GpuSpec* out) {
  const std::string where = "gpus.tsv line " + std::to_string(line_no);
  const std::vector<std::string_view> f = split_fields(line);
  if (f.size() != kNumCols) {
    return Status::InvalidArgument(where, "expected " + std::to_string(kNumCols) + " tab-separated columns, got " +
                                              std::to_string(f.size()));
  }
  GpuSpec& g = *out;
  g.key = std::string(f[kKey]);
  if (!valid_key(g.key)) {
    return Status::InvalidArgument(where, "key '" + g.key + "' must be non-empty [a-z0-9-]");
  }
  const std::string row = where + " (" + g.key + ")";
  g.name = std::string(f[kName]);
  if (g.name.empty()) return Status::InvalidArgument(row, "name is empty");
  if (!f[kAliases].empty()) {
    for (std::string_view a : split_fields(f[kAliases], ',')) {
      if (a.empty()) return Status::InvalidArgument(row, "empty alias in '" + std::string(f[kAliases]) + "'");
      g.aliases.emplace_back(a);
    }
  }
  MC_RETURN_IF_ERROR(parse_number(f[kCapacity], 9, false, row, "capacity_gb", &g.capacity_bytes));
  MC_RETURN_IF_ERROR(
      parse_number(f[kBandwidth], 12, false, row, "bandwidth_tbps", &g.bandwidth_bytes_per_s));
  if (g.capacity_bytes <= 0) return Status::InvalidArgument(row + " capacity_gb", "must be positive");
  if (g.bandwidth_bytes_per_s <= 0) {
    return Status::InvalidArgument(row + " bandwidth_tbps", "must be positive");
  }
  MC_RETURN_IF_ERROR(parse_number(f[kBf16], 12, true, row, "bf16_tflops", &g.peak_bf16_flops));
  MC_RETURN_IF_ERROR(parse_number(f[kFp8], 12, true, row, "fp8_tflops", &g.peak_fp8_flops));
  MC_RETURN_IF_ERROR(parse_number(f[kInt8], 12, true, row, "int8_tops", &g.peak_int8_ops));
  MC_RETURN_IF_ERROR(parse_number(f[kFp4], 12, true, row, "fp4_tflops", &g.peak_fp4_flops));
  MC_RETURN_IF_ERROR(parse_number(f[kFp32], 12, true, row, "fp32_tflops", &g.peak_fp32_flops));
  g.interconnect = std::string(f[kInterconnect]);
  MC_RETURN_IF_ERROR(parse_number(f[kTdp], 0, true, row, "tdp_w", &g.tdp_watts));
  if (f[kConfirmed] == "yes") {
    g.confirmed = true;
  } else if (f[kConfirmed] == "no") {
    g.confirmed = false;
  } else {
    return Status::InvalidArgument(row + " confirmed", "must be 'yes' or 'no', got '" +
                                                           std::string(f[kConfirmed]) + "'");
  }
  g.source = std::string(f[kSource]);
  if (g.source.empty()) return Status::InvalidArgument(row + " source", "every row needs a source");
  g.notes = std::string(f[kNotes]);
  MC_RETURN_IF_ERROR(parse_number(f[kLinkGbps], 9, false, row, "link_gbps", &g.link_bytes_per_s));
  double domain = 0;
  MC_RETURN_IF_ERROR(parse_number(f[kDomainGpus], 0, false, row, "domain_gpus", &domain));
  if (domain < 1 || domain > 1e6 || domain != static_cast<double>(static_cast<int64_t>(domain))) {
    return Status::InvalidArgument(row + " domain_gpus", "must be a whole number of GPUs >= 1");
  }
  g.domain_gpus = static_cast<int64_t>(domain);
  MC_RETURN_IF_ERROR(parse_number(f[kScaleoutGbps], 9, false, row, "scaleout_gbps", &g.scaleout_bytes_per_s));
  MC_RETURN_IF_ERROR(parse_number(f[kLinkLatencyUs], -6, false, row, "link_latency_us", &g.link_latency_s));
  MC_RETURN_IF_ERROR(
      parse_number(f[kScaleoutLatencyUs], -6, false, row, "scaleout_latency_us", &g.scaleout_latency_s));
  if (g.link_bytes_per_s <= 0) return Status::InvalidArgument(row + " link_gbps", "must be positive");
  if (g.scaleout_bytes_per_s <= 0) return Status::InvalidArgument(row + " scaleout_gbps", "must be positive");
  g.link_source = std::string(f[kLinkSource]);
  if (g.link_source.empty()) {
    return Status::InvalidArgument(row + " link_source", "every interconnect figure needs a source");
  }
  return parse_exposed(f[kExposedMib], f[kExposedSource], row, &g);
}

// Walks gpus.tsv as both readers see it: lines split at '\n' with a trailing
// '\r' dropped, blank and '#' lines skipped, the header checked. Calls
// on_row(line, line_no) for each data row until it returns false. Fails when
// the header is wrong or missing.
template <typename OnRow>
Status for_each_row(std::string_view tsv, OnRow on_row) {
  bool seen_header = false;
  TsvLines lines(tsv);
  for (std::string_view line; lines.next(&line);) {
    const int line_no = static_cast<int>(lines.line_no());
    if (!seen_header) {
      if (line != kHeader) {
        return Status::InvalidArgument("gpus.tsv line " + std::to_string(line_no),
                                       "header must be exactly: " + std::string(kHeader));
      }
      seen_header = true;
      continue;
    }
    if (!on_row(line, line_no)) break;
  }
  if (!seen_header) return Status::InvalidArgument("gpus.tsv", "missing header line");
  return Status::Ok();
}

Result<std::vector<GpuSpec>> parse_catalog(std::string_view tsv, std::vector<LookupName>* names) {
  std::vector<GpuSpec> gpus;
  Status row_status;
  const Status walked = for_each_row(tsv, [&](std::string_view line, int line_no) {
    GpuSpec g;
    row_status = parse_row(line, line_no, &g);
    if (row_status.ok()) gpus.push_back(std::move(g));
    return row_status.ok();
  });
  MC_RETURN_IF_ERROR(walked);
  MC_RETURN_IF_ERROR(row_status);
  if (gpus.empty()) return Status::InvalidArgument("gpus.tsv", "no GPU rows");
  MC_RETURN_IF_ERROR(index_names(gpus, names));
  return gpus;
}

// The row whose key, display name or one alias normalizes to `n`, parsed
// alone: a lookup by an exact name (the common case, and a cold `size --gpu`)
// does not parse and index the whole catalog. Names are unique across rows
// (index_names checks it whenever the whole catalog loads, and the tests load
// it), so this is the row find_gpu's full index finds. Anything unexpected (no
// header, a short row, a row that does not parse) returns nullopt and leaves
// the answer, or the defect report, to the full catalog.
std::optional<GpuSpec> find_exact_row(std::string_view n) {
  std::optional<GpuSpec> found;
  bool unexpected = false;
  const Status walked =
      for_each_row(embedded_file_or_die("gpus.tsv"), [&](std::string_view line, int line_no) {
        // The first three columns: key, name, aliases.
        const size_t t1 = line.find('\t');
        const size_t t2 = t1 == std::string_view::npos ? t1 : line.find('\t', t1 + 1);
        const size_t t3 = t2 == std::string_view::npos ? t2 : line.find('\t', t2 + 1);
        if (t3 == std::string_view::npos) {
          unexpected = true;
          return false;
        }
        bool hit = normalizes_to(line.substr(0, t1), n) || normalizes_to(line.substr(t1 + 1, t2 - t1 - 1), n);
        for (size_t a = t2 + 1; !hit && a <= t3;) {
          size_t comma = line.find(',', a);
          if (comma == std::string_view::npos || comma > t3) comma = t3;
          hit = comma > a && normalizes_to(line.substr(a, comma - a), n);
          a = comma + 1;
        }
        if (!hit) return true;
        GpuSpec g;
        if (parse_row(line, line_no, &g).ok()) found = std::move(g);
        return false;
      });
  if (!walked.ok() || unexpected) return std::nullopt;
  return found;
}

}  // namespace

std::span<const GpuSpec> gpu_catalog() { return catalog().gpus; }

Result<GpuSpec> find_gpu(std::string_view name) {
  const std::string n = normalize_name(name);
  if (n.empty()) {
    return Status::InvalidArgument("gpu", "empty GPU name; 'modelcalc gpus' lists the catalog");
  }
  // 1. Exact key, alias or display name: that one row (find_exact_row), else
  // through the whole catalog's index.
  if (std::optional<GpuSpec> row = find_exact_row(n)) return *std::move(row);
  const Catalog& c = catalog();
  for (const LookupName& ln : c.names) {
    if (ln.normalized == n) return c.gpus[ln.index];
  }
  // 2. Unknown: no prefix is guessed ("h20" is not the H200); suggest the closest names.
  return Status::NotFound("unknown GPU '" + std::string(name) + "'" + did_you_mean(name, c.suggestions) +
                          " (modelcalc gpus lists all)");
}

GpuSpec tensor_parallel(const GpuSpec& one, int64_t gpus) {
  GpuSpec g = one;
  const double k = static_cast<double>(gpus);
  g.capacity_bytes *= k;
  g.exposed_bytes *= k;
  g.bandwidth_bytes_per_s *= k;
  g.peak_bf16_flops *= k;
  g.peak_fp8_flops *= k;
  g.peak_int8_ops *= k;
  g.peak_fp4_flops *= k;
  g.peak_fp32_flops *= k;
  if (gpus > 1) g.name = std::to_string(gpus) + " × " + one.name;
  return g;
}

}  // namespace modelcalc
