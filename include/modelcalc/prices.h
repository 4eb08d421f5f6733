// GPU prices: on-demand US dollars per GPU-hour, each with a provider, a date
// and a source (data/prices.tsv, compiled in). `plan` costs deployments with
// them; a user overrides any of them (`--price h100=2.49`).
#ifndef MODELCALC_PRICES_H_
#define MODELCALC_PRICES_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

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

// Parses text in the data/prices.tsv format. Strict: the header must match,
// every row has all columns, gpu is a catalog KEY (not an alias) listed once,
// the price a plain decimal in (0, kMaxUsdPerGpuHour], date YYYY-MM-DD,
// confirmed yes/no, source non-empty, and an unconfirmed row says why in notes.
Result<std::vector<GpuPrice>> parse_price_catalog(std::string_view tsv);

// The compiled-in price list, in file order. Parsed once; a malformed list is a
// programming error and aborts with a message.
std::span<const GpuPrice> price_catalog();

// The catalog price of the GPU with catalog key `gpu_key`, or nullptr.
const GpuPrice* find_price(std::string_view gpu_key);

// "--price h100=2.49,mi300x=1.5": GPU names as find_gpu accepts them, each
// resolved to its catalog key. Errors name `field`; a GPU given twice is refused.
Result<std::vector<GpuPrice>> parse_price_overrides(std::string_view text, std::string_view field);

}  // namespace modelcalc

#endif  // MODELCALC_PRICES_H_
