// GPU prices: on-demand US dollars per GPU-hour, each with a provider, a date
// and a source (data/prices.tsv, compiled in). `plan` costs deployments with
// them; a user overrides any of them (`--price h100=2.49`).
#ifndef MODELCALC_PRICES_H_
#define MODELCALC_PRICES_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/gpu.h"
#include "modelcalc/status.h"

namespace modelcalc {

struct GpuPrice {
  std::string gpu;           // a key of the GPU catalog, e.g. "h100-sxm"
  double usd_per_hour = 0;   // per GPU
  std::string provider;      // who charges it, e.g. "Runpod"; "user" for an override
  std::string date;          // YYYY-MM-DD the source states (or was read)
  bool confirmed = false;    // read from the provider's own page
  std::string source;
  std::string notes;
};

// Largest price accepted anywhere (catalog or override), per GPU-hour: far above
// any real rental, low enough that costs stay finite.
inline constexpr double kMaxUsdPerGpuHour = 1000;

// The compiled-in price list, in file order. Parsed once; a malformed list is a
// programming error and aborts with a message.
std::span<const GpuPrice> price_catalog();

// The catalog price of the GPU with catalog key `gpu_key`, or nullptr.
const GpuPrice* find_price(std::string_view gpu_key);

// "--price h100=2.49,mi300x=1.5": GPU names as find_gpu accepts them, each
// resolved to its catalog key. Errors name `field`; a GPU given twice is refused.
Result<std::vector<GpuPrice>> parse_price_overrides(std::string_view text, std::string_view field);

// A GPU kind with the price a cost search uses for it.
struct PricedGpu {
  GpuSpec gpu;
  GpuPrice price;  // an override (provider "user") or the catalog's; usd_per_hour NaN when !has_price
  bool has_price = true;
};
// What priced_gpus does with a named GPU that has no price: refuse it (a search that needs a cost), or keep it
// with has_price false (plan, which then ranks by GPU-hours).
enum class UnpricedGpus { kRefuse, kKeep };
// The GPU kinds a cost search covers (plan, train-plan): the GPUs named in
// `gpus` (as find_gpu accepts them), or every catalog GPU with a price when
// `gpus` is empty; each priced by `overrides` when it lists it, else by the
// catalog. Errors name the field ("gpu" or "price"): an unknown or repeated
// GPU, a named GPU with no price (under kRefuse), an override for a GPU not searched.
Result<std::vector<PricedGpu>> priced_gpus(std::span<const std::string> gpus, std::span<const GpuPrice> overrides,
                                           UnpricedGpus unpriced = UnpricedGpus::kRefuse);

}  // namespace modelcalc

#endif  // MODELCALC_PRICES_H_
