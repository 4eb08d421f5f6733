#include "modelcalc/prices.h"
#include "catalog_parsers.h"

#include <limits>
#include <optional>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <system_error>

#include "embedded_data.h"
#include "modelcalc/gpu.h"
#include "quantity.h"
#include "tsv.h"

namespace modelcalc {

namespace {

constexpr std::string_view kHeader = "gpu\tusd_per_gpu_hour\tprovider\tdate\tconfirmed\tsource\tnotes";
enum Col { kGpu, kPrice, kProvider, kDate, kConfirmed, kSource, kNotes, kNumCols };

// A plain decimal ("2.49", "3"), digits and at most one '.', in (0, kMaxUsdPerGpuHour].
Status parse_price(std::string_view text, std::string_view field, double* out) {
  size_t digits = 0, dots = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9') ++digits;
    else if (c == '.') ++dots;
    else digits = 0, dots = 99;
  }
  if (digits == 0 || dots > 1) {
    return Status::InvalidArgument(field, "'" + std::string(text) +
                                              "' is not a plain decimal price in USD per GPU-hour (e.g. 2.49)");
  }
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    return Status::InvalidArgument(field, "'" + std::string(text) + "' does not parse as a price");
  }
  if (!(*out > 0) || *out > kMaxUsdPerGpuHour) {
    return Status::InvalidArgument(field, "price must be above 0 and at most 1000 USD per GPU-hour, got " +
                                              std::string(text));
  }
  return Status::Ok();
}

bool valid_date(std::string_view d) {
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (d[i] < '0' || d[i] > '9') return false;
  }
  const int month = (d[5] - '0') * 10 + (d[6] - '0');
  const int day = (d[8] - '0') * 10 + (d[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

bool is_catalog_key(std::string_view key) {
  for (const GpuSpec& g : gpu_catalog()) {
    if (g.key == key) return true;
  }
  return false;
}

}  // namespace

Result<std::vector<GpuPrice>> parse_price_catalog(std::string_view tsv) {
  std::vector<GpuPrice> out;
  std::set<std::string> seen;
  bool header_seen = false;
  TsvLines lines(tsv);
  for (std::string_view line; lines.next(&line);) {
    const std::string where = "prices.tsv line " + std::to_string(lines.line_no());
    if (!header_seen) {
      if (line != kHeader) {
        return Status::InvalidArgument(where, "header must be: " + std::string(kHeader));
      }
      header_seen = true;
      continue;
    }
    const auto cols = split_fields(line);
    if (cols.size() != kNumCols) {
      return Status::InvalidArgument(where, "has " + std::to_string(cols.size()) + " columns, expected " +
                                                std::to_string(static_cast<int>(kNumCols)));
    }
    GpuPrice p;
    p.gpu = std::string(cols[kGpu]);
    if (!is_catalog_key(p.gpu)) {
      return Status::InvalidArgument(where, "gpu '" + p.gpu + "' is not a key of the GPU catalog (gpus.tsv)");
    }
    if (!seen.insert(p.gpu).second) {
      return Status::InvalidArgument(where, "gpu '" + p.gpu + "' is listed twice");
    }
    MC_RETURN_IF_ERROR(parse_price(cols[kPrice], where + " usd_per_gpu_hour", &p.usd_per_hour));
    p.provider = std::string(cols[kProvider]);
    if (p.provider.empty()) return Status::InvalidArgument(where, "provider is empty");
    p.date = std::string(cols[kDate]);
    if (!valid_date(p.date)) {
      return Status::InvalidArgument(where, "date '" + p.date + "' is not YYYY-MM-DD");
    }
    if (cols[kConfirmed] == "yes") p.confirmed = true;
    else if (cols[kConfirmed] == "no") p.confirmed = false;
    else return Status::InvalidArgument(where, "confirmed must be yes or no");
    p.source = std::string(cols[kSource]);
    if (p.source.empty()) return Status::InvalidArgument(where, "source is empty: every price cites one");
    p.notes = std::string(cols[kNotes]);
    if (!p.confirmed && p.notes.empty()) {
      return Status::InvalidArgument(where, "an unconfirmed price must say why in notes");
    }
    out.push_back(std::move(p));
  }
  if (!header_seen) return Status::InvalidArgument("prices.tsv", "no header line");
  return out;
}

std::span<const GpuPrice> price_catalog() {
  static const std::vector<GpuPrice> catalog = parse_embedded_or_die("prices.tsv", parse_price_catalog);
  return catalog;
}

const GpuPrice* find_price(std::string_view gpu_key) {
  for (const GpuPrice& p : price_catalog()) {
    if (p.gpu == gpu_key) return &p;
  }
  return nullptr;
}

Result<std::vector<GpuPrice>> parse_price_overrides(std::string_view text, std::string_view field) {
  MC_ASSIGN_OR_RETURN(std::vector<std::string> items, split_comma_list(text, field));
  std::vector<GpuPrice> out;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      return Status::InvalidArgument(field, "cannot read '" + item +
                                                "'; expected GPU=USD_PER_GPU_HOUR, e.g. h100=2.49");
    }
    auto gpu = find_gpu(std::string_view(item).substr(0, eq));
    if (!gpu.ok()) return Status::InvalidArgument(field, gpu.status().message());
    GpuPrice p;
    p.gpu = gpu->key;
    MC_RETURN_IF_ERROR(parse_price(std::string_view(item).substr(eq + 1), field, &p.usd_per_hour));
    for (const GpuPrice& q : out) {
      if (q.gpu == p.gpu) return Status::InvalidArgument(field, "gives " + p.gpu + " twice");
    }
    p.provider = "user";
    p.source = std::string(field);
    p.notes = "given on the command line";
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::vector<PricedGpu>> priced_gpus(std::span<const std::string> gpus, std::span<const GpuPrice> overrides,
                                           UnpricedGpus unpriced) {
  auto price_of = [&](const GpuSpec& g) -> std::optional<GpuPrice> {
    for (const GpuPrice& p : overrides) {
      if (p.gpu == g.key) return p;
    }
    if (const GpuPrice* p = find_price(g.key)) return *p;
    return std::nullopt;
  };
  std::vector<PricedGpu> out;
  if (gpus.empty()) {
    for (const GpuSpec& g : gpu_catalog()) {
      if (auto p = price_of(g)) out.push_back({g, *p});
    }
  } else {
    for (const std::string& n : gpus) {
      auto g = find_gpu(n);
      if (!g.ok()) return Status::InvalidArgument("gpu", g.status().message());
      for (const PricedGpu& seen : out) {
        if (seen.gpu.key == g->key) return Status::InvalidArgument("gpu", "names " + g->key + " twice");
      }
      auto p = price_of(*g);
      if (!p && unpriced == UnpricedGpus::kKeep) {
        GpuPrice none;
        none.gpu = g->key;
        none.usd_per_hour = std::numeric_limits<double>::quiet_NaN();
        out.push_back({*g, none, false});
        continue;
      }
      if (!p) {
        return Status::InvalidArgument("price", g->key + " has no catalog price; give one, e.g. --price " + g->key +
                                                    "=2.50");
      }
      out.push_back({*g, *p});
    }
  }
  for (const GpuPrice& p : overrides) {
    bool used = false;
    for (const PricedGpu& g : out) used = used || g.gpu.key == p.gpu;
    if (!used) return Status::InvalidArgument("price", p.gpu + " is not among the GPUs searched (--gpu)");
  }
  return out;
}

}  // namespace modelcalc
