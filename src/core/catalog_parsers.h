// The catalogs' parsers, internal to the core: the library's entry points are
// gpu_catalog() (gpu.h) and price_catalog() (prices.h), which parse the
// compiled-in data once; tests parse their own text with these.
#ifndef MODELCALC_CATALOG_PARSERS_H_
#define MODELCALC_CATALOG_PARSERS_H_

#include <string_view>
#include <vector>

#include "modelcalc/gpu.h"
#include "modelcalc/prices.h"
#include "modelcalc/status.h"

namespace modelcalc {

// Parses catalog text in the data/gpus.tsv format. Strict: the header must
// match, every row needs all columns, numbers must be plain non-negative
// decimals, capacity and bandwidth must be positive, source must be non-empty,
// confirmed must be yes/no, exposed_mib must be a whole number of MiB within
// 10 % below to 15 % above the nominal capacity and carry an exposed_source,
// and no name may resolve to two GPUs. gpu_catalog() is
// the entry point; tests parse their own text.
Result<std::vector<GpuSpec>> parse_gpu_catalog(std::string_view tsv);

// Parses text in the data/prices.tsv format. Strict: the header must match,
// every row has all columns, gpu is a catalog KEY (not an alias) listed once,
// the price a plain decimal in (0, kMaxUsdPerGpuHour], date YYYY-MM-DD,
// confirmed yes/no, source non-empty, and an unconfirmed row says why in notes.
Result<std::vector<GpuPrice>> parse_price_catalog(std::string_view tsv);

}  // namespace modelcalc

#endif  // MODELCALC_CATALOG_PARSERS_H_
