// _C._bench: reference loops for the benchmark runner (NOTE [Benchmark
// floors], kernels/bench_floor.h). Private; nothing in gradtrack uses them.
#include <algorithm>

#include "kernels/bench_floor.h"
#include "kernels/blas.h"
#include "kernels/conv_implicit.h"
#include "kernels/cpu_vendor.h"
#include "kernels/gemm_amx.h"
#include "kernels/loops.h"
#include "kernels/parallel.h"
#include "kernels/prefetch.h"
#include "kernels/simd.h"
#include "kernels/simd_log_exp.h"
#include "kernels/simd_math.h"
#include "kernels/simd_trig.h"
#include "kernels/small_gemm.h"
#include "python/common.h"

namespace gradtrack::python {

namespace {

// run(float{}) or run(double{}) by the dtype of a GEMM hook's operands.
template <typename F>
void float_or_double(ScalarType dtype, const char* name, const F& run) {
  if (dtype == ScalarType::Float32)
    run(float{});
  else if (dtype == ScalarType::Float64)
    run(double{});
  else
    GT_CHECK(false, name, ": expected float32 or float64");
}

// c = beta * c + a @ b in place, through the small GEMM (or its portable
// loops): 2-D operands of one float dtype with unit column stride; the row
// strides are the leading dimensions, so sliced views test those.
void small_gemm_hook(const Tensor& a, const Tensor& b, const Tensor& c, double beta,
                     bool vectorised) {
  const Tensor* ops[] = {&a, &b, &c};
  for (const Tensor* t : ops)
    GT_CHECK(t->dim() == 2 && t->dtype() == c.dtype() && (t->size(1) < 2 || t->strides()[1] == 1) &&
                 (t->size(0) < 2 || t->strides()[0] >= t->size(1)),
             "small_gemm: expected 2-D row-major operands of one dtype");
  const int64_t m = c.size(0), n = c.size(1), k = a.size(1);
  GT_CHECK(a.size(0) == m && b.size(0) == k && b.size(1) == n, "small_gemm: shapes do not match");
  auto run = [&](auto tag) {
    using T = decltype(tag);
    auto ld = [](const Tensor& t) { return std::max<int64_t>(1, t.strides()[0]); };
    auto f = vectorised ? &kernels::small_gemm<T> : &kernels::small_gemm_generic<T>;
    f(m, n, k, a.data<T>(), ld(a), b.data<T>(), ld(b), T(beta), c.data<T>(), ld(c));
  };
  float_or_double(c.dtype(), "small_gemm", run);
}

// How a 2-D operand reaches BLAS: row-major (unit column stride) or
// transposed (unit row stride), with its leading dimension.
struct Op {
  bool trans;
  int64_t ld;
};
Op gemm_operand(const Tensor& t) {
  const int64_t r = t.size(0), c = t.size(1), rs = t.strides()[0], cs = t.strides()[1];
  if ((c < 2 || cs == 1) && (r < 2 || rs >= c)) return {false, std::max<int64_t>({1, c, rs})};
  GT_CHECK((r < 2 || rs == 1) && (c < 2 || cs >= r),
           "gemm: expected operands with a unit row or column stride");
  return {true, std::max<int64_t>({1, r, cs})};
}

// c = beta * c + a @ b in place, through our AVX-512 GEMM (NOTE [AVX-512
// GEMM]) on `threads` threads or through OpenBLAS: a and b may be transposed
// views, all three may have wider leading dimensions.
void gemm_hook(const Tensor& a, const Tensor& b, const Tensor& c, double beta, int threads,
               bool own) {
  const Tensor* ops[] = {&a, &b, &c};
  for (const Tensor* t : ops)
    GT_CHECK(t->dim() == 2 && t->dtype() == c.dtype(), "gemm: expected 2-D operands of one dtype");
  const int64_t m = c.size(0), n = c.size(1), k = a.size(1);
  GT_CHECK(a.size(0) == m && b.size(0) == k && b.size(1) == n, "gemm: shapes do not match");
  const Op oa = gemm_operand(a), ob = gemm_operand(b), oc = gemm_operand(c);
  GT_CHECK(!oc.trans || m < 2, "gemm: expected a row-major c");
  GT_CHECK(!own || kernels::gemm_avx512_available(), "gemm: this CPU has no AVX-512");
  auto run = [&](auto tag) {
    using T = decltype(tag);
    if (own)
      kernels::gemm_avx512<T>(oa.trans, ob.trans, m, n, k, a.data<T>(), oa.ld, b.data<T>(), ob.ld,
                              T(beta), c.data<T>(), oc.ld, threads);
    else if (m > 0 && n > 0 && k > 0)
      kernels::openblas_gemm<T>(oa.trans, ob.trans, m, n, k, a.data<T>(), oa.ld, b.data<T>(), ob.ld,
                                T(beta), c.data<T>(), oc.ld);
  };
  py::gil_scoped_release nogil;
  float_or_double(c.dtype(), "gemm", run);
}

}  // namespace

void init_bench(py::module_& m) {
  py::module_ b = m.def_submodule("_bench", "benchmark reference loops (private)");
  b.def("read_floor", [](const Tensor& t) {
    GT_CHECK(t.dtype() == ScalarType::Float32 && t.is_contiguous(),
             "read_floor: expected a contiguous float32 tensor");
    py::gil_scoped_release nogil;
    return kernels::bench::read_floor(t.data<float>(), t.numel());
  });
  b.def(
      "fma_peak",
      [](double flops) {
        py::gil_scoped_release nogil;
        return kernels::bench::fma_peak(flops);
      },
      py::arg("flops"));
  b.def("fma_lanes", [] { return kernels::bench::fma_lanes(); });
  // Test hook for the streaming loops' prefetch distances (NOTE [Streaming
  // prefetch]): (sum, extreme) in bytes, 0 for none.
  b.def("stream_prefetch", [] {
    const auto& d = kernels::stream_prefetch();
    return py::make_tuple(d.sum, d.extreme);
  });
  b.def(
      "set_stream_prefetch",
      [](int64_t sum, int64_t extreme) {
        GT_CHECK(sum >= 0 && extreme >= 0, "set_stream_prefetch: distances must be >= 0");
        kernels::set_stream_prefetch({sum, extreme});
      },
      py::arg("sum"), py::arg("extreme"));
  // Test hook for the elementwise loops' streaming stores (NOTE [Streaming
  // stores]): the footprint in bytes from which they stream (0: always).
  b.def("stream_store_bytes", [] { return kernels::stream_store_bytes(); });
  b.def(
      "set_stream_store_bytes",
      [](int64_t bytes) {
        GT_CHECK(bytes >= 0, "set_stream_store_bytes: bytes must be >= 0");
        kernels::set_stream_store_bytes(bytes);
      },
      py::arg("bytes"));
  // Test hook for the LSTM steps' small GEMM (NOTE [Small GEMM]).
  b.def("small_gemm", &small_gemm_hook, py::arg("a"), py::arg("b"), py::arg("c"), py::arg("beta"),
        py::arg("vectorised") = true);
  b.def("small_gemm_vectorised", [] { return kernels::small_gemm_vectorised(); });
  // Test and timing hooks for our AVX-512 GEMM (NOTE [AVX-512 GEMM]): one
  // call of it (own=True) or of OpenBLAS, and the switch matmul, conv and the
  // LSTM layer read (False: OpenBLAS everywhere).
  b.def("gemm", &gemm_hook, py::arg("a"), py::arg("b"), py::arg("c"), py::arg("beta"),
        py::arg("threads") = 1, py::arg("own") = true);
  b.def("gemm_avx512_available", [] { return kernels::gemm_avx512_available(); });
  b.def("gemm_avx512_depth_caps", [] { return kernels::gemm_avx512_depth_caps(); });
  b.def("use_gemm_avx512", [] { return kernels::use_gemm_avx512(); });
  b.def("set_gemm_avx512", [](bool on) { kernels::set_gemm_avx512(on); }, py::arg("on"));
  // The switch of the AMX bfloat16 products (NOTE [AMX bfloat16 products]).
  b.def("amx_bf16_available", [] { return kernels::amx_bf16_available(); });
  b.def("use_amx_bf16", [] { return kernels::use_amx_bf16(); });
  b.def("set_amx_bf16", [](bool on) { kernels::set_amx_bf16(on); }, py::arg("on"));
  // The switches of float32 log's, tanh's, gelu's and atan's Intel AVX-512 paths (NOTE
  // [Logarithm in sixteen lanes], NOTE [tanh from rows of polynomials], NOTE [gelu from
  // rows of polynomials], NOTE [atan from rows of polynomials]).
  b.def("log_sixteen_lanes", [] { return kernels::simd::log_sixteen_lanes(); });
  b.def(
      "set_log_sixteen_lanes", [](bool on) { kernels::simd::set_log_sixteen_lanes(on); },
      py::arg("on"));
  b.def("tanh_rows", [] { return kernels::simd::tanh_rows(); });
  b.def("set_tanh_rows", [](bool on) { kernels::simd::set_tanh_rows(on); }, py::arg("on"));
  b.def("gelu_rows", [] { return kernels::simd::gelu_rows(); });
  b.def("set_gelu_rows", [](bool on) { kernels::simd::set_gelu_rows(on); }, py::arg("on"));
  b.def("logistic_one_pass", [] { return kernels::simd::logistic_one_pass(); });
  b.def(
      "set_logistic_one_pass", [](bool on) { kernels::simd::set_logistic_one_pass(on); },
      py::arg("on"));
  b.def("atan_rows", [] { return kernels::simd::atan_rows(); });
  b.def("set_atan_rows", [](bool on) { kernels::simd::set_atan_rows(on); }, py::arg("on"));
  // The same for the AVX2 convolution kernels (NOTE [Implicit im2col on
  // AVX2]): mode 0 never, 1 where they win, 2 always.
  b.def("conv_implicit_avx2_available", [] { return kernels::conv_implicit_avx2_available(); });
  b.def("conv_implicit_avx2_mode", [] { return int(kernels::conv_implicit_avx2_mode()); });
  b.def("avx512_in_halves", [] { return kernels::avx512_in_halves(); });
  b.def(
      "set_conv_implicit_avx2_mode",
      [](int mode) {
        GT_CHECK(mode >= 0 && mode <= 2, "set_conv_implicit_avx2_mode: mode must be 0, 1 or 2");
        kernels::set_conv_implicit_avx2_mode(kernels::ImplicitAvx2(mode));
      },
      py::arg("mode"));
  b.def("implicit_avx2_wins", &kernels::implicit_avx2_wins, py::arg("oc"), py::arg("oh"),
        py::arg("ow"), py::arg("k"));
}

}  // namespace gradtrack::python
