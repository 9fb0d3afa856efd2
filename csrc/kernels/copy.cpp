// Copies between dtypes and layouts, and fills.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/copy.h"
#include "kernels/loops.h"
#include "kernels/reduced_float.h"

namespace gradtrack::kernels {

namespace {

// NOTE [Transposed copies in tiles]
// A copy whose output runs along a dim the source crosses with a long stride (t() or a
// channels-last permute made contiguous) read one element per cache line, each line
// fetched again for the next output row: 1.8-2.2x torch's time for a 1024 x 1024 or
// 4096 x 256 float32 transpose. When the plan's last dim is dense in the output and
// the one before it dense in the source, the copy goes in 32 x 32 tiles, whose source
// lines stay in L1 while the tile's rows are written. A plan that streams its output
// (NOTE [Streaming stores] in loops.h) builds each tile on the stack and streams its
// rows: a 4096 x 4096 float32 t() went from 1.24x torch's time, plain loop streamed,
// to 0.2x (9 ms against 38-45; Xeon, Emerald Rapids, two threads). False where it does
// not apply.
template <typename T>
bool copy_transposed(const LoopPlan& p) {
  const int64_t nd = static_cast<int64_t>(p.shape.size());
  if (nd < 2) return false;
  const int64_t item = sizeof(T);
  const auto& os = p.strides[0];
  const auto& ss = p.strides[1];
  if (os[nd - 1] != item || ss[nd - 2] != item || ss[nd - 1] == item || os[nd - 2] == item)
    return false;
  const int64_t rows = p.shape[nd - 2], cols = p.shape[nd - 1];
  if (rows < 8 || cols < 8) return false;
  if (os[nd - 2] % item != 0 || ss[nd - 1] % item != 0) return false;
  const int64_t orow = os[nd - 2] / item, scol = ss[nd - 1] / item;
  constexpr int64_t kTile = 32;
  const int64_t row_tiles = (rows + kTile - 1) / kTile, col_tiles = (cols + kTile - 1) / kTile;
  const int64_t outer = p.numel / (rows * cols);
  const int64_t tiles = outer * row_tiles;  // a task: one outer index, one band of rows
  parallel_for(
      tiles, std::max<int64_t>(1, kGrainSize / (kTile * cols)), [&](int64_t lo, int64_t hi) {
        for (int64_t t = lo; t < hi; ++t) {
          int64_t o = t / row_tiles, r0 = (t % row_tiles) * kTile;
          char* ob = p.base[0];
          const char* sb = p.base[1];
          for (int64_t d = nd - 3; d >= 0; --d) {
            const int64_t i = o % p.shape[d];
            o /= p.shape[d];
            ob += i * p.strides[0][d];
            sb += i * p.strides[1][d];
          }
          T* out = reinterpret_cast<T*>(ob);
          const T* src = reinterpret_cast<const T*>(sb);
          const int64_t r1 = std::min(rows, r0 + kTile);
          for (int64_t ct = 0; ct < col_tiles; ++ct) {
            const int64_t c0 = ct * kTile, c1 = std::min(cols, c0 + kTile);
            if (!p.stream) {
              for (int64_t r = r0; r < r1; ++r)
                for (int64_t c = c0; c < c1; ++c) out[r * orow + c] = src[r + c * scol];
              continue;
            }
            alignas(64) T tile[kTile * kTile];
            for (int64_t r = r0; r < r1; ++r)
              for (int64_t c = c0; c < c1; ++c) tile[(r - r0) * kTile + c - c0] = src[r + c * scol];
            for (int64_t r = r0; r < r1; ++r)
              stream_copy(reinterpret_cast<char*>(out + r * orow + c0),
                          reinterpret_cast<const char*>(tile + (r - r0) * kTile), (c1 - c0) * item);
          }
        }
        if (p.stream) stream_fence();
      });
  return true;
}

}  // namespace

void copy(const Tensor& out, const Tensor& src) {
  if (copy_reduced(out, src)) return;
  LoopPlan p = make_plan(out, {src});
  // (a copy within one storage keeps the element order of the plain loop)
  if (out.dtype() == src.dtype() && out.is_aligned() && src.is_aligned() &&
      out->storage() != src->storage()) {
    const int64_t item = static_cast<int64_t>(itemsize(out.dtype()));
    if ((item == 4 && copy_transposed<uint32_t>(p)) ||
        (item == 8 && copy_transposed<uint64_t>(p)) || (item == 2 && copy_transposed<uint16_t>(p)))
      return;
  }
  GT_DISPATCH_ALL(out.dtype(), [&] {
    using O = scalar_t;
    GT_DISPATCH_ALL(src.dtype(), [&] {
      using I = scalar_t;
      if constexpr (std::is_same_v<O, I>) {
        run_plan(p, [](char** ptr, const int64_t* s, int64_t n) {
          if (s[0] == sizeof(O) && s[1] == sizeof(I)) {
            // memmove: copy_ between overlapping views that are not dense is
            // allowed (PyTorch's "too hard" overlap); memcpy would be undefined.
            std::memmove(ptr[0], ptr[1], static_cast<size_t>(n) * sizeof(O));
          } else if (s[0] == sizeof(O) && s[1] == 0 && aligned_for<O>(ptr[0])) {
            // an expanded value (the ones of sum()'s gradient made dense): a
            // fill, which vectorizes; the generic loop ran 12x torch's time
            const O v = load<I>(ptr[1]);
            std::fill_n(reinterpret_cast<O*>(ptr[0]), n, v);
          } else {
            for (int64_t i = 0; i < n; ++i) store<O>(ptr[0] + i * s[0], load<I>(ptr[1] + i * s[1]));
          }
        });
      } else if constexpr (std::is_same_v<O, bool>) {
        unary_loop<O, I>(p, [](I x) { return x != I(0); });
      } else {
        unary_loop<O, I>(p, [](I x) { return static_cast<O>(x); });
      }
    });
  });
}

Tensor aligned(const Tensor& t) {
  if (t.is_aligned()) return t;
  Tensor c = empty(t.sizes(), t.dtype());
  copy(c, t);
  return c;
}

void fill(const Tensor& out, Scalar value) {
  if (fill_reduced(out, value)) return;
  GT_DISPATCH_ALL(out.dtype(), [&] {
    const scalar_t v = value.to<scalar_t>();
    LoopPlan p = make_plan(out, {});
    run_plan(p, [v](char** ptr, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(scalar_t) && aligned_for<scalar_t>(ptr[0])) {
        scalar_t* o = reinterpret_cast<scalar_t*>(ptr[0]);
        for (int64_t i = 0; i < n; ++i) o[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) store<scalar_t>(ptr[0] + i * s[0], v);
      }
    });
  });
}

}  // namespace gradtrack::kernels
