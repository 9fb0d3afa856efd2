// Matrix products on OpenBLAS.
#pragma once

#include "core/tensor.h"

namespace gradtrack::kernels {

/// out[b] = beta * out[b] + a[b] @ b[b] for every batch b. Operands are 3-D
/// ([B, M, K] @ [B, K, N] -> [B, M, N]) with any strides; `out` is dense.
/// `name` is the kernel PyTorch's "not implemented for" error names.
void gemm(const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate,
          const char* name = "addmm_impl_cpu_");
/// Pins OpenBLAS to one thread (NOTE [One thread pool]); returns its core name.
const char* blas_init();

}  // namespace gradtrack::kernels
