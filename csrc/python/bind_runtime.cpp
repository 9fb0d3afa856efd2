// Threads, the BLAS and SIMD in use, the allocator: get_num_threads and
// set_num_threads are re-exported as gradtrack.*; the rest is for diagnostics.
#include <climits>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "kernels/matmul.h"
#include "kernels/parallel.h"
#include "kernels/simd.h"
#include "python/arg_errors.h"
#include "python/common.h"

namespace gradtrack::python {

namespace {

// NOTE [Flush denormal]
// torch.set_flush_denormal sets the calling thread's MXCSR bits FTZ (results that would be
// denormal become zero) and DAZ (denormal operands read as zero) on x86 CPUs that have DAZ
// (SSE3 and later), and answers whether it could. As torch's, it changes the calling
// thread only (threads the kernels start keep their own MXCSR).
bool set_flush_denormal(bool on) {
#if defined(__x86_64__) || defined(__i386__)
  if (!__builtin_cpu_supports("sse3")) return false;
  constexpr unsigned kDaz = 0x0040, kFtz = 0x8000;
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(on ? (csr | kDaz | kFtz) : (csr & ~(kDaz | kFtz)));
  return true;
#else
  (void)on;
  return false;
#endif
}

void bind_runtime(py::module_& m) {
  m.def("get_num_threads", [] { return get_num_threads(); });
  m.def(
      "set_num_threads",
      [](py::handle h) {
        // PyTorch's own checks and words: an int (not a bool) that fits in a C
        // int and is positive; 0 or -1 used to be taken as 1 silently.
        PyObject* o = h.ptr();
        if (!PyLong_Check(o) || PyBool_Check(o)) {
          throw Error("set_num_threads expects an int, but got " + type_name(h));
        }
        int overflow = 0;
        const long v = PyLong_AsLongAndOverflow(o, &overflow);
        if (overflow != 0 || v > INT_MAX || v < INT_MIN)
          throw ValueError("Overflow when unpacking long");
        GT_CHECK(v > 0, "set_num_threads expects a positive integer");
        set_num_threads(static_cast<int>(v));
      },
      py::arg("int"));  // torch's documented name: set_num_threads(int)
  m.def(
      "set_flush_denormal",
      [](py::handle h) {
        if (!PyBool_Check(h.ptr()))
          throw Error("flush_denormal expects a bool, but got " + type_name(h));
        return set_flush_denormal(h.ptr() == Py_True);
      },
      py::arg("mode"));
  m.def("_blas_core", [] { return std::string(kernels::blas_init()); });
  m.def("_simd_level", [] { return std::string(kernels::simd::level()); });
  m.def("_allocator_stats", [] {
    AllocatorStats s = allocator_stats();
    py::dict d;
    d["cached_bytes"] = s.cached_bytes;
    d["cached_blocks"] = s.cached_blocks;
    d["hits"] = s.hits;
    d["misses"] = s.misses;
    return d;
  });
  m.def("_empty_cache", [] { allocator_empty_cache(); });
  m.def("_build_info", [] {
    // What a bug report needs and only the compiler knows.
    py::dict d;
    d["compiler"] = std::string(__VERSION__);
    d["cplusplus"] = static_cast<long>(__cplusplus);
#ifdef _OPENMP
    d["openmp"] = static_cast<long>(_OPENMP);
#else
    d["openmp"] = py::none();
#endif
#ifdef __OPTIMIZE__
    d["optimized"] = true;
#else
    d["optimized"] = false;
#endif
#if defined(__SANITIZE_ADDRESS__)
    d["sanitizer"] = "address";
#elif defined(__SANITIZE_THREAD__)
    d["sanitizer"] = "thread";
#else
    d["sanitizer"] = py::none();
#endif
    return d;
  });
}

}  // namespace

void init_runtime(py::module_& m) { bind_runtime(m); }

}  // namespace gradtrack::python
