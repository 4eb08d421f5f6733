#include "modelcalc/eplb.h"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace modelcalc {

namespace {

// replicate_experts: each redundant slot to the expert with the most load per replica (the first such).
std::vector<int64_t> replicate(const std::vector<double>& load, int64_t redundant) {
  std::vector<int64_t> count(load.size(), 1);
  // Max-heap on load / count; ties to the lower index, as torch's max returns the first.
  using Entry = std::pair<double, int64_t>;  // (load per replica, -index)
  std::priority_queue<Entry> heap;
  for (size_t i = 0; i < load.size(); ++i) heap.emplace(load[i], -static_cast<int64_t>(i));
  for (int64_t r = 0; r < redundant; ++r) {
    const auto [per, neg] = heap.top();
    heap.pop();
    const size_t i = static_cast<size_t>(-neg);
    ++count[i];
    heap.emplace(load[i] / static_cast<double>(count[i]), neg);
  }
  return count;
}

// balanced_packing: replicas heaviest first, each into the lightest rank with a free slot (the first such);
// returns the heaviest rank's load.
double pack(std::vector<double> items, int64_t ranks) {
  std::stable_sort(items.begin(), items.end(), std::greater<double>());
  const int64_t per_rank = static_cast<int64_t>(items.size()) / ranks;
  using Entry = std::pair<double, int64_t>;  // (load, index): the lightest first, then the lower index
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> open;
  for (int64_t r = 0; r < ranks; ++r) open.emplace(0.0, r);
  std::vector<int64_t> filled(static_cast<size_t>(ranks), 0);
  double heaviest = 0;
  for (double w : items) {
    auto [load, r] = open.top();
    open.pop();
    load += w;
    heaviest = std::max(heaviest, load);
    if (++filled[static_cast<size_t>(r)] < per_rank) open.emplace(load, r);
  }
  return heaviest;
}

}  // namespace

double eplb_imbalance(int64_t experts, int64_t redundant, int64_t ep, double imbalance) {
  if (redundant <= 0 || ep <= 1 || experts < 1) return imbalance;
  const double E = static_cast<double>(experts);
  const double mean_rank = E / static_cast<double>(ep);  // the mean rank's load, an expert's mean load being 1
  const double I = std::min(imbalance, static_cast<double>(ep));
  // The hot rank's experts carry I x the mean rank's load between them; the others share the rest.
  const int64_t n_hot = std::max<int64_t>(1, experts / ep);
  const double hot = I * mean_rank / static_cast<double>(n_hot);
  const double cold = experts > n_hot ? std::max(0.0, (E - I * mean_rank) / static_cast<double>(experts - n_hot)) : 0;
  std::vector<double> load(static_cast<size_t>(experts), cold);
  std::fill(load.begin(), load.begin() + n_hot, hot);
  const std::vector<int64_t> count = replicate(load, redundant);
  std::vector<double> items;
  items.reserve(static_cast<size_t>(experts + redundant));
  for (size_t i = 0; i < load.size(); ++i) {
    for (int64_t c = 0; c < count[i]; ++c) items.push_back(load[i] / static_cast<double>(count[i]));
  }
  return std::max(1.0, pack(std::move(items), ep) / mean_rank);
}

}  // namespace modelcalc
