// The `generator=` argument of the random ops: None or a gradtrack.Generator.
#pragma once

#include "core/generator.h"
#include "python/common.h"

namespace gradtrack::python {

/// Null for None (the op then uses the default generator).
Generator* generator_arg(py::handle gen);

}  // namespace gradtrack::python
