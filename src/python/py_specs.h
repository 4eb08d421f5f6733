// The specs Python passes around: a Model (a validated ModelSpec and the
// flags that describe it) and a Gpu (a GpuSpec and its flags). Resolved once
// by the request layer's resolvers (app::resolve_model, app::resolve_gpu), shared by every
// result made from them. A preset or catalog name given as a string is
// resolved once per process and kept (the compiled-in data does not change).
#ifndef MODELCALC_PY_SPECS_H_
#define MODELCALC_PY_SPECS_H_

#include <pybind11/pybind11.h>

#include "modelcalc/app/answers.h"

namespace modelcalc::py_bind {

namespace py = pybind11;

using app::SharedGpu;
using app::SharedModel;

struct PyModel {
  SharedModel spec;
  app::ModelInput flags;  // how to make it again
};

struct PyGpu {
  SharedGpu spec;
  app::GpuInput flags;
};

void init_specs(py::module_& m);

// `v` as a model: a Model, or a preset name. TypeError / InputError (naming `keyword`) otherwise.
const PyModel& as_model(py::handle v, std::string_view keyword = "model");
// `v` as a GPU: a Gpu, a catalog name, or None (nullptr).
const PyGpu* as_gpu(py::handle v, std::string_view keyword = "gpu");

}  // namespace modelcalc::py_bind

#endif  // MODELCALC_PY_SPECS_H_
