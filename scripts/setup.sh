#!/usr/bin/env bash
# Installs what modelcalc needs from Debian's packages, and only what is missing.
#   scripts/setup.sh          build dependencies (and the Python package's: python3-dev, pybind11-dev,
#                             python3-numpy for sweep's columns)
#   scripts/setup.sh --test   also what the test suite uses: clang with its sanitizer and libFuzzer
#                             runtimes and llvm (the symbolizer) for the sanitize preset, chromium
#                             for the browser test, pandas for the Python package's to_pandas() test
set -euo pipefail

pkgs=(g++ cmake ninja-build ccache lld libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev libbenchmark-dev
      python3-dev pybind11-dev python3-numpy pkg-config libcpp-httplib-dev libboost-dev)
if [[ "${1:-}" == "--test" ]]; then
  pkgs+=(libxml2-utils clang llvm libclang-rt-dev)
  optional=(chromium chromium-driver python3-selenium python3-pandas)
else
  optional=()
fi

missing=()
for p in "${pkgs[@]}" "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
echo "setup: installing ${missing[*]}" >&2
$sudo apt-get update -qq
required=()
for p in "${missing[@]}"; do
  [[ " ${optional[*]} " == *" $p "* ]] || required+=("$p")
done
if [[ ${#required[@]} -gt 0 ]]; then
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${required[@]}" >/dev/null
fi
for p in "${optional[@]}"; do
  if [[ " ${missing[*]} " == *" $p "* ]]; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$p" >/dev/null \
      || echo "setup: optional package $p could not be installed; the tests that need it will say so and skip" >&2
  fi
done
