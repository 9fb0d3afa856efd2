// NOTE [Sort keys]
// sort and topk order (value, position) pairs: NaN above every number, -0.0
// equal to 0.0, ties by position. For float32 that order is the order of one
// 64-bit integer per element: the float's bits mapped to an unsigned key that
// sorts like the value (NaNs all mapped to the top key, -0.0 to +0.0's key;
// negated for descending) in the high half, the position in the low half.
// Comparing integers is much cheaper than the pair comparator, and it allows
// (a) a stable LSD radix sort on the key half (positions already ascending,
// so ties stay in position order) for full sorts, and (b) for topk a
// max-heap of the k best integers that most elements leave after one compare,
// split over threads along a long line and merged. Values are read back from
// the input by position, so NaN payloads and -0.0 come out unchanged.
#include "kernels/sort_keys.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/parallel.h"

namespace gradtrack::kernels {

namespace {

inline uint64_t item(float v, bool descending, int64_t pos) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  if (v != v) {
    u = 0xFFFFFFFFu;
  } else {
    if (v == 0.0f) u = 0;  // -0.0 sorts as 0.0
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  }
  if (descending) u = ~u;
  return (uint64_t(u) << 32) | uint64_t(pos);
}

}  // namespace

void torch_sort_float_line(const float* src, int64_t stride, int64_t n, bool descending,
                           float* vout, int64_t* iout, int64_t out_stride) {
  // std::sort of (key, position) by key alone: the key compares as the value does
  // (NaNs equal and on top, -0.0 equal to 0.0), so every comparison std::sort
  // makes has the outcome torch's pair comparison has, and the order is torch's
  // (NOTE [Ties in torch's order] in scan_sort.cpp), at a third less time.
  std::vector<std::pair<uint32_t, uint32_t>> keyed(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j)
    keyed[size_t(j)] = {uint32_t(item(src[j * stride], descending, 0) >> 32), uint32_t(j)};
  std::sort(keyed.begin(), keyed.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  for (int64_t j = 0; j < n; ++j) {
    const int64_t pos = keyed[size_t(j)].second;
    vout[j * out_stride] = src[pos * stride];
    iout[j * out_stride] = pos;
  }
}

namespace {

// Stable LSD radix sort of a[0..n) on bits 32..63, 11 + 11 + 10 bits per pass.
void radix_sort_keys(std::vector<uint64_t>& a, std::vector<uint64_t>& tmp) {
  const size_t n = a.size();
  tmp.resize(n);
  static constexpr int kShift[3] = {32, 43, 54};
  static constexpr int kBits[3] = {11, 11, 10};
  std::vector<size_t> count(size_t(1) << 11);
  for (int pass = 0; pass < 3; ++pass) {
    const uint64_t mask = (uint64_t(1) << kBits[pass]) - 1;
    const int shift = kShift[pass];
    std::fill(count.begin(), count.end(), size_t(0));
    for (uint64_t x : a) ++count[size_t((x >> shift) & mask)];
    if (count[size_t((a[0] >> shift) & mask)] == n) continue;  // one bucket: nothing moves
    size_t sum = 0;
    for (size_t& c : count) {
      const size_t here = c;
      c = sum;
      sum += here;
    }
    for (uint64_t x : a) tmp[count[size_t((x >> shift) & mask)]++] = x;
    a.swap(tmp);
  }
}

// The k smallest items of positions [lo, hi) of one line, sorted ascending.
void smallest_k(const float* line, int64_t stride, int64_t lo, int64_t hi, bool descending,
                int64_t k, std::vector<uint64_t>& heap) {
  heap.clear();
  int64_t j = lo;
  for (; j < hi && int64_t(heap.size()) < k; ++j)
    heap.push_back(item(line[j * stride], descending, j));
  std::make_heap(heap.begin(), heap.end());  // top: the worst of the k best so far
  for (; j < hi; ++j) {
    const uint64_t x = item(line[j * stride], descending, j);
    if (x >= heap.front()) continue;  // the common case: not among the best
    std::pop_heap(heap.begin(), heap.end());
    heap.back() = x;
    std::push_heap(heap.begin(), heap.end());
  }
  std::sort_heap(heap.begin(), heap.end());
}

void write_line(const std::vector<uint64_t>& items, int64_t k, const float* line, int64_t stride,
                float* vout, int64_t* iout, int64_t out_stride) {
  for (int64_t j = 0; j < k; ++j) {
    const int64_t pos = int64_t(items[size_t(j)] & 0xFFFFFFFFu);
    vout[j * out_stride] = line[pos * stride];
    iout[j * out_stride] = pos;
  }
}

// topk of one long line: each thread keeps the k best of its part, then the
// union of those (which holds the k best overall) is sorted.
void topk_split_line(const float* line, int64_t stride, int64_t n, bool descending, int64_t k,
                     int threads, std::vector<uint64_t>& best) {
  std::vector<std::vector<uint64_t>> parts(static_cast<size_t>(threads));
  parallel_for(threads, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t per = (n + threads - 1) / threads;
      const int64_t lo = t * per, hi = std::min(n, lo + per);
      if (lo < hi) smallest_k(line, stride, lo, hi, descending, k, parts[size_t(t)]);
    }
  });
  best.clear();
  for (const auto& p : parts) best.insert(best.end(), p.begin(), p.end());
  std::sort(best.begin(), best.end());
}

}  // namespace

bool sort_lines_by_keys(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                        bool descending, int64_t k) {
  if (in.dtype() != ScalarType::Float32 || in.numel() == 0 || k == 0) return false;
  const auto& sizes = in.sizes();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < int64_t(sizes.size()); ++d) {
    if (d < dim) outer *= sizes[size_t(d)];
    if (d > dim) inner *= sizes[size_t(d)];
  }
  const int64_t n = sizes.empty() ? 1 : sizes[size_t(dim)];
  if (n < 256 || n > int64_t(0xFFFFFFFFu)) return false;
  const bool few = k * 64 < n;
  const float* src = in.data<float>();
  float* vout = values.data<float>();
  int64_t* iout = indices.data<int64_t>();
  const int64_t lines = outer * inner;
  const int threads = get_num_threads();
  auto line_at = [&](int64_t line, int64_t len) {
    return (line / inner) * len * inner + line % inner;
  };
  if (few && lines < threads && n >= (int64_t(1) << 16)) {
    std::vector<uint64_t> best;
    for (int64_t line = 0; line < lines; ++line) {
      const float* p = src + line_at(line, n);
      topk_split_line(p, inner, n, descending, k, threads, best);
      const int64_t o = line_at(line, k);
      write_line(best, k, p, inner, vout + o, iout + o, inner);
    }
    return true;
  }
  parallel_for(lines, std::max<int64_t>(1, kGrainSize / n), [&](int64_t b, int64_t e) {
    std::vector<uint64_t> a, tmp;
    for (int64_t line = b; line < e; ++line) {
      const float* p = src + line_at(line, n);
      if (few) {
        smallest_k(p, inner, 0, n, descending, k, a);
      } else {
        a.resize(size_t(n));
        for (int64_t j = 0; j < n; ++j) a[size_t(j)] = item(p[j * inner], descending, j);
        radix_sort_keys(a, tmp);
      }
      const int64_t o = line_at(line, k);
      write_line(a, k, p, inner, vout + o, iout + o, inner);
    }
  });
  return true;
}

}  // namespace gradtrack::kernels
