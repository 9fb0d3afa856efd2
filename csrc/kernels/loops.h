// Strided loop skeletons shared by every elementwise kernel.
//
// NOTE [Elementwise loops]
// An elementwise kernel is a functor plus one of these skeletons. The skeleton
// broadcasts each input to the output's shape (stride 0), merges dims that are
// contiguous for every operand, and then calls an inner 1-D loop over runs of
// the innermost dim. The inner loop checks once per run whether all operands
// are dense (or an input is a broadcast scalar) so the compiler can vectorise
// the common cases; everything else takes the generic strided path.
#pragma once

#include "core/tensor.h"
#include "kernels/pointwise.h"
#include "kernels/parallel.h"

namespace gradtrack::kernels {

constexpr int kMaxOperands = 4;

/// Operands (output first) laid over one iteration shape, strides in bytes.
struct LoopPlan {
  int nops = 0;
  char* base[kMaxOperands] = {};
  DimVector shape;  // innermost last, coalesced
  SmallVector<int64_t, 6> strides[kMaxOperands];
  int64_t numel = 1;
  int64_t out_item = 0;  // the output's element size in bytes
  bool stream = false;   // write the output with streaming stores
};

// NOTE [Streaming stores]
// A store to a line that is not in cache first reads the line from DRAM
// (write-allocate), so a loop writing a tensor far bigger than the caches
// moves its output twice. A streaming (non-temporal) store writes whole lines
// without reading them and keeps them out of the cache. Measured on an AMD
// EPYC Zen 4 (32 MiB L3), 2 threads, timed in turns in one process:
//  * a C++ driver of (x*w).relu().sum().backward()'s loops over 4M floats
//    took 3.4-3.7 ms with plain stores and 2.7 ms with the product and the
//    gradient streamed (the relu's output, read at once by the sum: no
//    difference). Over 1M floats streaming took 1.4x as long: the next loop
//    then reads from DRAM what L3 held. So only loops whose tensors span
//    more than L3 stream: kStreamBytes, 5/4 of that L3, fixed (getconf
//    reports 320 MiB on that VM). x * x over 4M floats spans 32 MiB and
//    lost 0-40% streamed, when its recycled output stayed in L3;
//  * the kernels stay plain loops: each writes blocks of kStageBytes to a
//    buffer on the stack and stream_copy moves the block out. With 4 KiB
//    blocks the loops' reads and the copy's writes took turns and a product
//    of 4M floats ran slower than with plain stores; 256 B blocks came
//    within ~10% of a kernel storing its vectors directly. In the library:
//    the large graph step 0.87-0.93x, a * b over 4M floats 0.70-0.80x, a + b
//    and relu over 16M 0.70-0.75x of plain stores. mul's fused backward,
//    which writes two gradients, stages both: 0.8x over 4M floats.
constexpr int64_t kStreamBytes = int64_t(40) << 20;
constexpr int64_t kStageBytes = 256;

/// The footprint from which loops stream (a test hook lowers it).
int64_t stream_store_bytes();
void set_stream_store_bytes(int64_t bytes);
/// Copies `bytes` from src to dst with streaming stores where the CPU has
/// them; stream_fence() orders them before the stores that follow (another
/// thread reads the output once the parallel region ends).
void stream_copy(char* dst, const char* src, int64_t bytes);
void stream_fence();

/// inner over one run of n elements, its output staged in blocks on the
/// stack and streamed to ptrs[0] (NOTE [Streaming stores]).
template <typename Inner>
void run_staged(const LoopPlan& p, char** ptrs, const int64_t* s, int64_t n, const Inner& inner) {
  alignas(64) char stage[kStageBytes];
  const int64_t per = kStageBytes / p.out_item;
  char* q[kMaxOperands];
  q[0] = stage;
  for (int64_t done = 0; done < n; done += per) {
    const int64_t m = n - done < per ? n - done : per;
    for (int k = 1; k < p.nops; ++k) q[k] = ptrs[k] + done * s[k];
    inner(q, s, m);
    stream_copy(ptrs[0] + done * s[0], stage, m * p.out_item);
  }
}

/// An input of a loop: a tensor broadcastable to the output, or one value
/// (already of the compute type) that every element reads.
struct Operand {
  Operand(const Tensor& t) : tensor(&t) {}  // NOLINT
  explicit Operand(const void* value) : scalar(value) {}
  const Tensor* tensor = nullptr;
  const void* scalar = nullptr;
};

/// Builds a plan writing `out` from `ins`. It streams (NOTE [Streaming
/// stores]) when it has an input (a tensor or a value), writes dense runs and
/// its tensors span enough bytes.
LoopPlan make_plan(const Tensor& out, std::initializer_list<Operand> ins);

/// Runs inner(ptrs, strides, n) over every innermost run of the plan, in
/// parallel chunks when the plan is large. `ptrs` has nops entries.
template <typename Inner>
void run_plan(const LoopPlan& p, const Inner& inner) {
  const int64_t nd = static_cast<int64_t>(p.shape.size());
  if (p.numel == 0) return;
  if (nd == 0) {
    char* ptrs[kMaxOperands];
    int64_t s[kMaxOperands] = {};
    for (int k = 0; k < p.nops; ++k) ptrs[k] = p.base[k];
    inner(ptrs, s, 1);
    return;
  }
  const int64_t inner_n = p.shape[nd - 1];
  int64_t inner_s[kMaxOperands];
  for (int k = 0; k < p.nops; ++k) inner_s[k] = p.strides[k][nd - 1];
  // Split along the flat index so a single long row parallelises too.
  parallel_for(p.numel, kGrainSize, [&](int64_t begin, int64_t end) {
    int64_t idx[16];
    SmallVector<int64_t, 16> big;
    int64_t* pos = nd <= 16 ? idx : (big.resize(nd), big.data());
    int64_t row = begin / inner_n, col = begin % inner_n;
    int64_t r = row;
    for (int64_t d = nd - 2; d >= 0; --d) {
      pos[d] = r % p.shape[d];
      r /= p.shape[d];
    }
    int64_t remaining = end - begin;
    while (remaining > 0) {
      char* ptrs[kMaxOperands];
      for (int k = 0; k < p.nops; ++k) {
        char* q = p.base[k] + col * inner_s[k];
        for (int64_t d = 0; d < nd - 1; ++d) q += pos[d] * p.strides[k][d];
        ptrs[k] = q;
      }
      int64_t n = inner_n - col;
      if (n > remaining) n = remaining;
      if (p.stream) {
        run_staged(p, ptrs, inner_s, n, inner);
      } else {
        inner(ptrs, inner_s, n);
      }
      remaining -= n;
      col = 0;
      for (int64_t d = nd - 2; d >= 0; --d) {
        if (++pos[d] < p.shape[d]) break;
        pos[d] = 0;
      }
    }
    if (p.stream) stream_fence();
  });
}

/// out[i] = f(a[i]) with out of type O and a of type A.
template <typename O, typename A, typename F>
void unary_loop(const LoopPlan& p, const F& f) {
  run_plan(p, [&f](char** ptr, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(O) && s[1] == sizeof(A) && aligned_for<O>(ptr[0]) &&
        aligned_for<A>(ptr[1])) {
      O* o = reinterpret_cast<O*>(ptr[0]);
      const A* a = reinterpret_cast<const A*>(ptr[1]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) store<O>(ptr[0] + i * s[0], f(load<A>(ptr[1] + i * s[1])));
    }
  });
}

/// out[i] = vector(a, out, n) over the plan: a vector kernel of simd.h (NOTE [SIMD clones]).
/// Dense aligned runs go to it directly; strided or unaligned runs through a buffer of 256
/// elements, so that a view gets the same values as a contiguous tensor.
template <typename T, typename V>
void unary_loop_vectored(const LoopPlan& p, const V& vector) {
  run_plan(p, [&](char** ptr, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(T) && s[1] == sizeof(T) && aligned_for<T>(ptr[0]) && aligned_for<T>(ptr[1]))
      return vector(reinterpret_cast<const T*>(ptr[1]), reinterpret_cast<T*>(ptr[0]), n);
    constexpr int64_t kChunk = 256;
    alignas(64) T buffer[kChunk];
    for (int64_t b = 0; b < n; b += kChunk) {
      const int64_t m = std::min(kChunk, n - b);
      for (int64_t i = 0; i < m; ++i) buffer[i] = load<T>(ptr[1] + (b + i) * s[1]);
      vector(buffer, buffer, m);
      for (int64_t i = 0; i < m; ++i) store<T>(ptr[0] + (b + i) * s[0], buffer[i]);
    }
  });
}

/// One run of binary_loop: n elements at ptr[0..2] with byte strides s[0..2].
template <typename O, typename A, typename B, typename F>
void binary_run(char** ptr, const int64_t* s, int64_t n, const F& f) {
  if (s[0] == sizeof(O) && aligned_for<O>(ptr[0]) && aligned_for<A>(ptr[1]) &&
      aligned_for<B>(ptr[2])) {
    O* o = reinterpret_cast<O*>(ptr[0]);
    if (s[1] == sizeof(A) && s[2] == sizeof(B)) {
      const A* a = reinterpret_cast<const A*>(ptr[1]);
      const B* b = reinterpret_cast<const B*>(ptr[2]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
      return;
    }
    if (s[1] == sizeof(A) && s[2] == 0) {
      const A* a = reinterpret_cast<const A*>(ptr[1]);
      const B b = *reinterpret_cast<const B*>(ptr[2]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b);
      return;
    }
    if (s[1] == 0 && s[2] == sizeof(B)) {
      const A a = *reinterpret_cast<const A*>(ptr[1]);
      const B* b = reinterpret_cast<const B*>(ptr[2]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a, b[i]);
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i)
    store<O>(ptr[0] + i * s[0], f(load<A>(ptr[1] + i * s[1]), load<B>(ptr[2] + i * s[2])));
}

/// out[i] = f(a[i], b[i]); a broadcast scalar on either side gets its own loop.
template <typename O, typename A, typename B, typename F>
void binary_loop(const LoopPlan& p, const F& f) {
  run_plan(p, [&f](char** ptr, const int64_t* s, int64_t n) { binary_run<O, A, B>(ptr, s, n, f); });
}

/// out[i] = f(a[i], b[i], c[i]) (where, clamp with tensor bounds, fused backward).
template <typename O, typename A, typename B, typename C, typename F>
void ternary_loop(const LoopPlan& p, const F& f) {
  run_plan(p, [&f](char** ptr, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(O) && s[1] == sizeof(A) && s[2] == sizeof(B) && s[3] == sizeof(C) &&
        aligned_for<O>(ptr[0]) && aligned_for<A>(ptr[1]) && aligned_for<B>(ptr[2]) &&
        aligned_for<C>(ptr[3])) {
      O* o = reinterpret_cast<O*>(ptr[0]);
      const A* a = reinterpret_cast<const A*>(ptr[1]);
      const B* b = reinterpret_cast<const B*>(ptr[2]);
      const C* c = reinterpret_cast<const C*>(ptr[3]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i], c[i]);
      return;
    }
    if (s[0] == sizeof(O) && s[1] == 0 && s[2] == sizeof(B) && s[3] == sizeof(C) &&
        aligned_for<O>(ptr[0]) && aligned_for<A>(ptr[1]) && aligned_for<B>(ptr[2]) &&
        aligned_for<C>(ptr[3])) {
      // The first input broadcast (a gradient expanded from a sum).
      O* o = reinterpret_cast<O*>(ptr[0]);
      const A a = *reinterpret_cast<const A*>(ptr[1]);
      const B* b = reinterpret_cast<const B*>(ptr[2]);
      const C* c = reinterpret_cast<const C*>(ptr[3]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a, b[i], c[i]);
      return;
    }
    for (int64_t i = 0; i < n; ++i)
      store<O>(ptr[0] + i * s[0], f(load<A>(ptr[1] + i * s[1]), load<B>(ptr[2] + i * s[2]),
                                    load<C>(ptr[3] + i * s[3])));
  });
}

}  // namespace gradtrack::kernels
