// The long-running bindings of _kvsim (runs.cc): simulate_run, ppl_json, sweep_run.
#pragma once

#include <pybind11/pybind11.h>

namespace kvsim::python {

void def_runs(pybind11::module_& m);

}  // namespace kvsim::python
