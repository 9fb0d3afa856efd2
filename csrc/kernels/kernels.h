// The kernel API, every family: pure math on strided memory. No autograd, no
// Python. Callers (csrc/ops/) have already promoted dtypes, broadcast shapes
// and allocated `out`; inputs of an arithmetic kernel share the compute dtype.
#pragma once

#include "kernels/pointwise.h"
#include "kernels/matmul.h"
#include "kernels/optim.h"
#include "kernels/random.h"
#include "kernels/reduce.h"
