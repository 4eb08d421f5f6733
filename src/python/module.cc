// The Python front end's native half: `modelcalc._modelcalc`. A front end
// like the CLI's main(): it parses (keywords, with the CLI's parsers) and
// renders (the CLI's report builders), and every figure comes from the same
// core functions the CLI calls (src/cli/runs.h). python/modelcalc/ wraps
// these in functions with real signatures and docstrings.
//
//   _lab                 the lab's formulas (py_lab.cc)
//   Model, Gpu           specs (py_specs.cc)
//   _size, _plan, ...    the commands, typed results (py_runs.cc)
//   _sweep               columns filled by the core's sweep (py_sweep.cc)
//   run, commands        the CLI itself, in process, for everything else
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cli.h"
#include "modelcalc/app/requests.h"
#include "py_util.h"

namespace modelcalc::py_bind {
void init_specs(py::module_& m);
void init_lab(py::module_& m);
void init_runs(py::module_& m);
void init_sweep(py::module_& m);
}  // namespace modelcalc::py_bind

namespace py = pybind11;

PYBIND11_MODULE(_modelcalc, m) {
  m.doc() = "modelcalc's engine for Python (python/modelcalc wraps it; docs/python.md)";
  modelcalc::py_bind::init_errors(m);
  modelcalc::py_bind::init_specs(m);
  py::module_ lab = m.def_submodule("_lab", "The lab's formulas, bound to the formula core");
  modelcalc::py_bind::init_lab(lab);
  modelcalc::py_bind::init_runs(m);
  modelcalc::py_bind::init_sweep(m);
  m.def(
      "run",
      [](const std::vector<std::string>& args) {
        std::ostringstream out, err;
        const int status = modelcalc::run_cli(args, out, err);  // the GIL held: run_cli is one command at a time
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
  m.def(
      "_field_table",
      [](const std::string& command) {
        namespace app = modelcalc::app;
        const app::Table* t = app::find_table(command);
        if (t == nullptr) throw py::value_error("no request table for '" + command + "'");
        py::list rows;
        for (const app::Row& r : t->rows) {
          const app::Field& f = *r.field;
          py::dict d;
          d["name"] = std::string(f.name);
          d["type"] = std::string(app::type_name(f));
          d["kind"] = static_cast<int>(f.type);  // app::Type's order: bool, int, real, text, choice, dtype, range
          d["min"] = f.min;
          d["max"] = f.max;
          d["min_open"] = f.min_open;
          d["list"] = r.list;
          d["file"] = f.file;
          d["positional"] = r.positional;
          rows.append(d);
        }
        return rows;
      },
      py::arg("command"),
      "The request table of `command` (\"size\", \"kv-budget\", ...): each field's name (the keyword), type, "
      "range and whether it takes a list, a file or a positional; what the bad-input battery walks.");
}
