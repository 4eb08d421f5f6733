// The Python front end's native half: `modelcalc._modelcalc`. Thin, like the
// CLI's main(): it hands an argument list to run_cli, the same entry point the
// executable and the tests use, and returns what came out. Every figure a
// Python caller gets is therefore the CLI's own (python/modelcalc/__init__.py
// turns keyword arguments into flags and the --json output into dicts).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cli.h"

namespace py = pybind11;

PYBIND11_MODULE(_modelcalc, m) {
  m.doc() = "modelcalc's engine: run(args) -> (status, stdout, stderr), commands() -> [(name, summary)]";
  m.def(
      "run",
      [](const std::vector<std::string>& args) {
        std::ostringstream out, err;
        const int status = modelcalc::run_cli(args, out, err);
        return std::make_tuple(status, out.str(), err.str());
      },
      py::arg("args"),
      "Runs modelcalc with args (argv without argv[0]), in process. Returns (exit status, stdout, stderr): "
      "0 success, 2 bad input (stderr is one line naming the flag), 1 otherwise.");
  m.def(
      "commands",
      [] {
        std::vector<std::tuple<std::string, std::string>> out;
        for (const modelcalc::Command& c : modelcalc::commands()) out.emplace_back(c.name, c.summary);
        return out;
      },
      "Every subcommand as (name, summary), in the order `modelcalc --help` lists them.");
}
