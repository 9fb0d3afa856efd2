// torch's CPU distributions over the mt19937 generator (see random.h).
#include "kernels/random.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <numeric>
#include <vector>

#include "core/dtype.h"
#include "kernels/elementwise.h"
#include "kernels/random_detail.h"

namespace gradtrack::kernels {

namespace rd = random_detail;

namespace {

// The element offsets of `t` in TensorIterator's order for one written
// operand: size-1 dimensions dropped, the rest sorted by stride, smallest
// innermost (a stable sort starting from the last dimension).
struct Order {
  DimVector sizes, strides;  // innermost first
};

std::vector<int64_t> sorted_dims(const Tensor& t) {
  std::vector<int64_t> dims;
  for (int64_t d = t.dim() - 1; d >= 0; --d)
    if (t.sizes()[d] != 1) dims.push_back(d);
  std::stable_sort(dims.begin(), dims.end(),
                   [&](int64_t a, int64_t b) { return t.strides()[a] < t.strides()[b]; });
  return dims;
}

Order iteration_order(const Tensor& t) {
  Order o;
  for (int64_t d : sorted_dims(t)) {
    o.sizes.push_back(t.sizes()[d]);
    o.strides.push_back(t.strides()[d]);
  }
  return o;
}

// Calls f(element offset) for each element of `t` in iteration order.
template <typename F>
void for_each_offset(const Tensor& t, const F& f) {
  const int64_t n = t.numel();
  if (n == 0) return;
  const Order o = iteration_order(t);
  const size_t nd = o.sizes.size();
  DimVector idx(nd, 0);
  int64_t off = 0;
  for (int64_t k = 0; k < n; ++k) {
    f(off);
    for (size_t d = 0; d < nd; ++d) {
      off += o.strides[d];
      if (++idx[d] < o.sizes[d]) break;
      off -= o.strides[d] * o.sizes[d];
      idx[d] = 0;
    }
  }
}

template <typename T>
void store(const Tensor& t, int64_t off, T v) {
  std::memcpy(t.raw() + off * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

// The serial kernel: one draw per element, in order, under the lock.
template <typename T, typename Draw>
void serial_fill(const Tensor& out, Generator& gen, const Draw& draw) {
  std::lock_guard<std::mutex> lock(gen.mutex());
  for_each_offset(out, [&](int64_t off) { store<T>(out, off, draw()); });
}

// Dense outputs (contiguous up to a permutation) are visited in memory order.
bool dense_in_order(const Tensor& t) {
  const Order o = iteration_order(t);
  int64_t expected = 1;
  for (size_t d = 0; d < o.sizes.size(); ++d) {
    if (o.strides[d] != expected) return false;
    expected *= o.sizes[d];
  }
  return t.is_aligned();
}

}  // namespace

void uniform(const Tensor& out, double lo, double hi, Generator& gen) {
  GT_DISPATCH_FLOAT(out.dtype(), "uniform_kernel_cpu", [&] {
    using T = scalar_t;
    const T from = static_cast<T>(lo), to = static_cast<T>(hi);
    if (dense_in_order(out)) {
      std::lock_guard<std::mutex> lock(gen.mutex());
      rd::uniform_block<T>(gen, out.data<T>(), out.numel(), from, to);
      return;
    }
    serial_fill<T>(out, gen, [&] { return rd::uniform_real<T>(gen, from, to); });
  });
}

void normal(const Tensor& out, double mean, double std, Generator& gen) {
  GT_DISPATCH_FLOAT(out.dtype(), "normal_kernel_cpu", [&] {
    using T = scalar_t;
    const int64_t n = out.numel();
    if (n >= 16 && out.is_contiguous()) {
      // Memory aliased from an unaligned NumPy array fills an aligned copy.
      Tensor dst = out.is_aligned() ? out : empty(out.sizes(), out.dtype());
      rd::normal_fill<T>(gen, dst.data<T>(), n, static_cast<T>(mean), static_cast<T>(std));
      if (!dst.is_same(out)) copy(out, dst);
      return;
    }
    serial_fill<T>(out, gen, [&] { return static_cast<T>(rd::normal_scalar(gen, mean, std)); });
  });
}

void random_from_to(const Tensor& out, uint64_t range, int64_t base, Generator& gen) {
  GT_DISPATCH_ALL(out.dtype(), [&] {
    using T = scalar_t;
    // Wide ranges take 64 bits only for the types that can hold them.
    const bool wide =
        range >= (uint64_t(1) << 32) && (std::is_same_v<T, int64_t> || std::is_floating_point_v<T>);
    serial_fill<T>(out, gen, [&] {
      const uint64_t v = wide ? gen.random64() : gen.random();
      return static_cast<T>(static_cast<int64_t>(v % range + static_cast<uint64_t>(base)));
    });
  });
}

void random_default(const Tensor& out, Generator& gen) {
  GT_DISPATCH_ALL(out.dtype(), [&] {
    using T = scalar_t;
    serial_fill<T>(out, gen, [&]() -> T {
      if constexpr (std::is_same_v<T, bool>) {
        return static_cast<bool>(gen.random() & 1u);
      } else if constexpr (std::is_same_v<T, double>) {
        return static_cast<T>(gen.random64() % ((uint64_t(1) << 53) + 1));
      } else if constexpr (std::is_same_v<T, float>) {
        return static_cast<T>(gen.random() % ((uint64_t(1) << 24) + 1));
      } else if constexpr (std::is_same_v<T, int64_t>) {
        return static_cast<T>(gen.random64() % (uint64_t(1) << 63));
      } else {
        const uint64_t top = static_cast<uint64_t>(std::numeric_limits<T>::max()) + 1;
        return static_cast<T>(gen.random() % top);
      }
    });
  });
}

void random_full_range(const Tensor& out, Generator& gen) {
  GT_DISPATCH_ALL(out.dtype(), [&] {
    using T = scalar_t;
    serial_fill<T>(out, gen, [&] { return static_cast<T>(static_cast<int64_t>(gen.random64())); });
  });
}

void randperm(const Tensor& out, Generator& gen) {
  const int64_t n = out.numel();
  int64_t* p = out.data<int64_t>();
  std::iota(p, p + n, int64_t(0));
  std::lock_guard<std::mutex> lock(gen.mutex());
  // Forward Fisher-Yates with one 32-bit draw per position (torch's order).
  for (int64_t i = 0; i < n - 1; ++i) {
    const int64_t z = static_cast<int64_t>(gen.random() % static_cast<uint64_t>(n - i));
    std::swap(p[i], p[i + z]);
  }
}

void bernoulli_scalar(const Tensor& out, double p, Generator& gen) {
  GT_DISPATCH_ALL(out.dtype(), [&] {
    using T = scalar_t;
    serial_fill<T>(out, gen,
                   [&] { return static_cast<T>(rd::uniform_real<double>(gen, 0.0, 1.0) < p); });
  });
}

void bernoulli_tensor(const Tensor& out, const Tensor& p, Generator& gen) {
  // A double p compares a 53-bit draw; any other p a 24-bit float draw.
  GT_DISPATCH_ALL(out.dtype(), [&] {
    using T = scalar_t;
    GT_DISPATCH_FLOAT(p.dtype(), "bernoulli_tensor_cpu_p_", [&] {
      using P = scalar_t;
      std::lock_guard<std::mutex> lock(gen.mutex());
      const int64_t n = out.numel();
      if (n == 0) return;
      // Both operands walk in out's order (p is broadcast, so out decides).
      const std::vector<int64_t> dims = sorted_dims(out);
      DimVector idx(dims.size(), 0);
      int64_t oo = 0, po = 0;
      for (int64_t k = 0; k < n; ++k) {
        P pv;
        std::memcpy(&pv, p.raw() + po * static_cast<int64_t>(sizeof(P)), sizeof(P));
        bool hit;
        if constexpr (std::is_same_v<P, double>)
          hit = rd::uniform_real<double>(gen, 0.0, 1.0) < pv;
        else
          hit = rd::uniform_real<float>(gen, 0.0f, 1.0f) < static_cast<float>(pv);
        store<T>(out, oo, static_cast<T>(hit));
        for (size_t d = 0; d < dims.size(); ++d) {
          const int64_t dim = dims[d];
          oo += out.strides()[dim];
          po += p.strides()[dim];
          if (++idx[d] < out.sizes()[dim]) break;
          oo -= out.strides()[dim] * out.sizes()[dim];
          po -= p.strides()[dim] * out.sizes()[dim];
          idx[d] = 0;
        }
      }
    });
  });
}

void exponential(const Tensor& out, double lambda, Generator& gen) {
  GT_DISPATCH_FLOAT(out.dtype(), "exponential_cpu", [&] {
    using T = scalar_t;
    serial_fill<T>(out, gen, [&] {
      const double u = rd::uniform_real<double>(gen, 0.0, 1.0);
      return static_cast<T>(rd::exponential_from(u, lambda));
    });
  });
}

void geometric(const Tensor& out, double p, Generator& gen) {
  GT_DISPATCH_NUMERIC(out.dtype(), "geometric_cpu", [&] {
    using T = scalar_t;
    serial_fill<T>(out, gen, [&] {
      const double u = rd::uniform_real<double>(gen, 0.0, 1.0);
      return static_cast<T>(std::ceil(std::log(u) / std::log(1.0 - p)));
    });
  });
}

void cauchy(const Tensor& out, double median, double sigma, Generator& gen) {
  GT_DISPATCH_FLOAT(out.dtype(), "cauchy_cpu", [&] {
    using T = scalar_t;
    serial_fill<T>(out, gen, [&] {
      const double u = rd::uniform_real<double>(gen, 0.0, 1.0);
      return static_cast<T>(median + sigma * std::tan(M_PI * (u - 0.5)));
    });
  });
}

void log_normal(const Tensor& out, double mean, double std, Generator& gen) {
  GT_DISPATCH_FLOAT(out.dtype(), "log_normal_cpu", [&] {
    using T = scalar_t;
    serial_fill<T>(out, gen,
                   [&] { return static_cast<T>(std::exp(rd::normal_scalar(gen, mean, std))); });
  });
}

void multinomial_row(const Tensor& probs, int64_t n_sample, int64_t* out, int64_t out_stride,
                     Generator& gen) {
  GT_DISPATCH_FLOAT(probs.dtype(), "multinomial", [&] {
    using T = scalar_t;
    const int64_t k = probs.numel(), stride = probs.strides()[0];
    const T* src = probs.data<T>();
    // The cumulative distribution in T, normalised, its last bucket forced to 1.
    std::vector<T> cum(static_cast<size_t>(k));
    T sum = 0;
    for (int64_t j = 0; j < k; ++j) {
      sum += src[j * stride];
      cum[j] = sum;
    }
    for (int64_t j = 0; j < k; ++j) cum[j] /= sum;
    cum[k - 1] = 1;
    std::lock_guard<std::mutex> lock(gen.mutex());
    for (int64_t s = 0; s < n_sample; ++s) {
      const double u = rd::uniform_real<double>(gen, 0.0, 1.0);
      int64_t left = 0, right = k;
      while (right > left) {
        const int64_t mid = left + (right - left) / 2;
        if (cum[mid] < u)
          left = mid + 1;
        else
          right = mid;
      }
      out[s * out_stride] = left;
    }
  });
}

}  // namespace gradtrack::kernels
