// Reference loops for the benchmark report: what the machine can
// do at best, timed in the same run as the library's own kernels.
#pragma once

#include <cstdint>

namespace gradtrack::kernels::bench {

/// Reads p[0..n) once over all threads with the CPU's widest vector loads
/// (four independent sums) and returns the sum (so the reads cannot be
/// optimized away). The memory floor the 16M reductions are compared with.
double read_floor(const float* p, int64_t n);

/// About `flops` float32 multiply-adds' worth of FLOPs (2 per FMA lane) in
/// registers on every thread, with enough independent chains to fill the FMA
/// units; returns the FLOPs actually done. The measured peak FLOP rate.
double fma_peak(double flops);

/// Float lanes of the widest FMA the CPU runs (16 AVX-512, 8 AVX2+FMA, 4 else).
int fma_lanes();

}  // namespace gradtrack::kernels::bench
