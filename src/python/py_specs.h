// The specs Python passes around: a Model (a validated ModelSpec and the
// flags that describe it) and a Gpu (a GpuSpec and its flags). Resolved once
// by the CLI's own resolvers (resolve_model, resolve_gpu), shared by every
// result made from them. A preset or catalog name given as a string is
// resolved once per process and kept (the compiled-in data does not change).
#ifndef MODELCALC_PY_SPECS_H_
#define MODELCALC_PY_SPECS_H_

#include <pybind11/pybind11.h>

#include "inputs.h"
#include "runs.h"

namespace modelcalc::py_bind {

namespace py = pybind11;

struct PyModel {
  SharedModel spec;
  ModelFlags flags;  // how to make it again (diagnose reads the flags)
};

struct PyGpu {
  SharedGpu spec;
  GpuFlags flags;
};

void init_specs(py::module_& m);

// `v` as a model: a Model, or a preset name. TypeError / InputError (naming `keyword`) otherwise.
const PyModel& as_model(py::handle v, std::string_view keyword = "model");
// `v` as a GPU: a Gpu, a catalog name, or None (nullptr).
const PyGpu* as_gpu(py::handle v, std::string_view keyword = "gpu");

}  // namespace modelcalc::py_bind

#endif  // MODELCALC_PY_SPECS_H_
