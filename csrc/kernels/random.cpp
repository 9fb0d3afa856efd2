// torch's CPU distributions over the mt19937 generator (see random.h).
#include "kernels/random.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <numeric>
#include <vector>

#include "core/dtype.h"
#include "core/half.h"
#include "kernels/pointwise.h"
#include "kernels/random_detail.h"
#include "kernels/reduced_float.h"

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

// NOTE [Reduced random draws]
// float16 / bfloat16 outputs (measured against torch 2.13 bit for bit): each
// draw is made exactly as for float32 (uniform: a 24-bit draw, the bounds as
// floats, one fused multiply-add) or float64 (normal one by one, exponential,
// cauchy, ...), and only the result is rounded: a float once, a double first
// to float then to 16 bits (torch's static_cast<Half>(double) goes through
// float). Two rules are the reduced types' own: a uniform that rounds up to
// `to` becomes `from`, and the batched normal draws uniforms for whole blocks
// only, then 16 more for the last 16 elements.
uint16_t red_word(float v, ScalarType t) {
  return t == ScalarType::Float16 ? float_to_half(v) : float_to_bfloat16(v);
}
float red_value(uint16_t w, ScalarType t) {
  return t == ScalarType::Float16 ? half_to_float(w) : bfloat16_to_float(w);
}
uint16_t red_word_d(double v, ScalarType t) { return red_word(static_cast<float>(v), t); }

// Draws 16-element normal blocks of `n` (>= 16) contiguous reduced elements.
void red_normal_blocks(const Tensor& out, double mean, double std, Generator& gen) {
  const ScalarType t = out.dtype();
  const int64_t n = out.numel(), whole = n - n % 16;
  const float m = static_cast<float>(mean), s = static_cast<float>(std);
  std::vector<float> buf(static_cast<size_t>(whole));
  float tail[16];
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    rd::uniform_block<float>(gen, buf.data(), whole, 0.0f, 1.0f);
    if (whole != n) rd::uniform_block<float>(gen, tail, 16, 0.0f, 1.0f);
  }
  rd::normal_transform_float(buf.data(), whole / 16, m, s);
  uint16_t* data = out.data<uint16_t>();
  for (int64_t i = 0; i < whole; ++i) data[i] = red_word(buf[size_t(i)], t);
  if (whole == n) return;
  rd::normal_transform_float(tail, 1, m, s);
  for (int64_t i = 0; i < 16; ++i) data[n - 16 + i] = red_word(tail[i], t);
}

void red_uniform(const Tensor& out, double lo, double hi, Generator& gen) {
  const ScalarType t = out.dtype();
  const float from = static_cast<float>(lo), to = static_cast<float>(hi);
  const uint16_t from_w = red_word(from, t);
  const float to_v = red_value(red_word(to, t), t);
  serial_fill<uint16_t>(out, gen, [&] {
    const uint16_t w = red_word(rd::uniform_real<float>(gen, from, to), t);
    return red_value(w, t) == to_v ? from_w : w;
  });
}

// One double draw per element, rounded through float.
template <typename Draw>
void red_from_double(const Tensor& out, Generator& gen, const Draw& draw) {
  const ScalarType t = out.dtype();
  serial_fill<uint16_t>(out, gen, [&] { return red_word_d(draw(), t); });
}

}  // namespace

void uniform(const Tensor& out, double lo, double hi, Generator& gen) {
  if (is_reduced_float(out.dtype())) return red_uniform(out, lo, hi, gen);
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
  if (is_reduced_float(out.dtype())) {
    if (out.numel() >= 16 && out.is_contiguous() && out.is_aligned())
      return red_normal_blocks(out, mean, std, gen);
    return red_from_double(out, gen, [&] { return rd::normal_scalar(gen, mean, std); });
  }
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
  // torch 2.13 draws 64 bits once the range reaches 2^28 (measured: for every
  // dtype; a 32-bit draw modulo such a range would be visibly biased).
  const bool wide = range >= (uint64_t(1) << 28);
  if (is_reduced_float(out.dtype())) {
    return red_from_double(out, gen, [&] {
      const uint64_t v = wide ? gen.random64() : gen.random();
      return static_cast<double>(static_cast<int64_t>(v % range + static_cast<uint64_t>(base)));
    });
  }
  GT_DISPATCH_ALL(out.dtype(), [&] {
    using T = scalar_t;
    serial_fill<T>(out, gen, [&] {
      const uint64_t v = wide ? gen.random64() : gen.random();
      return static_cast<T>(static_cast<int64_t>(v % range + static_cast<uint64_t>(base)));
    });
  });
}

void random_default(const Tensor& out, Generator& gen) {
  if (is_reduced_float(out.dtype())) {
    // [0, 2^digits]: 11 significand bits for float16, 8 for bfloat16
    const uint64_t top = (uint64_t(1) << (out.dtype() == ScalarType::Float16 ? 11 : 8)) + 1;
    return red_from_double(out, gen, [&] { return static_cast<double>(gen.random() % top); });
  }
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
  if (out.dtype() == ScalarType::BFloat16) {
    return red_from_double(out, gen, [&] {
      return static_cast<double>(static_cast<float>(static_cast<int64_t>(gen.random64())));
    });
  }
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
  if (is_reduced_float(out.dtype())) {
    return red_from_double(out, gen,
                           [&] { return rd::uniform_real<double>(gen, 0.0, 1.0) < p ? 1.0 : 0.0; });
  }
  GT_DISPATCH_ALL(out.dtype(), [&] {
    using T = scalar_t;
    serial_fill<T>(out, gen,
                   [&] { return static_cast<T>(rd::uniform_real<double>(gen, 0.0, 1.0) < p); });
  });
}

namespace {

// A double p compares a 53-bit draw; any other p a 24-bit float draw.
template <typename T>
void bernoulli_tensor_into(const Tensor& out, const Tensor& p, Generator& gen, T one) {
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
      store<T>(out, oo, hit ? one : T(0));
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
}

}  // namespace

void bernoulli_tensor(const Tensor& out, const Tensor& p_in, Generator& gen) {
  // A float16 / bfloat16 p compares as a float (torch reads p_val as float).
  const Tensor p = widen(p_in);
  if (is_reduced_float(out.dtype()))
    return bernoulli_tensor_into<uint16_t>(out, p, gen, red_word(1.0f, out.dtype()));
  GT_DISPATCH_ALL(out.dtype(), [&] { bernoulli_tensor_into<scalar_t>(out, p, gen, scalar_t(1)); });
}

void exponential(const Tensor& out, double lambda, Generator& gen) {
  if (is_reduced_float(out.dtype()))
    return red_from_double(out, gen, [&] {
      return rd::exponential_from(rd::uniform_real<double>(gen, 0.0, 1.0), lambda);
    });
  GT_DISPATCH_FLOAT(out.dtype(), "exponential_cpu", [&] {
    using T = scalar_t;
    serial_fill<T>(out, gen, [&] {
      const double u = rd::uniform_real<double>(gen, 0.0, 1.0);
      return static_cast<T>(rd::exponential_from(u, lambda));
    });
  });
}

void geometric(const Tensor& out, double p, Generator& gen) {
  if (is_reduced_float(out.dtype()))
    return red_from_double(out, gen, [&] {
      return std::ceil(std::log(rd::uniform_real<double>(gen, 0.0, 1.0)) / std::log(1.0 - p));
    });
  GT_DISPATCH_NUMERIC(out.dtype(), "geometric_cpu", [&] {
    using T = scalar_t;
    serial_fill<T>(out, gen, [&] {
      const double u = rd::uniform_real<double>(gen, 0.0, 1.0);
      return static_cast<T>(std::ceil(std::log(u) / std::log(1.0 - p)));
    });
  });
}

void cauchy(const Tensor& out, double median, double sigma, Generator& gen) {
  if (is_reduced_float(out.dtype()))
    return red_from_double(out, gen, [&] {
      return median + sigma * std::tan(M_PI * (rd::uniform_real<double>(gen, 0.0, 1.0) - 0.5));
    });
  GT_DISPATCH_FLOAT(out.dtype(), "cauchy_cpu", [&] {
    using T = scalar_t;
    serial_fill<T>(out, gen, [&] {
      const double u = rd::uniform_real<double>(gen, 0.0, 1.0);
      return static_cast<T>(median + sigma * std::tan(M_PI * (u - 0.5)));
    });
  });
}

void log_normal(const Tensor& out, double mean, double std, Generator& gen) {
  if (is_reduced_float(out.dtype()))
    return red_from_double(out, gen, [&] { return std::exp(rd::normal_scalar(gen, mean, std)); });
  GT_DISPATCH_FLOAT(out.dtype(), "log_normal_cpu", [&] {
    using T = scalar_t;
    serial_fill<T>(out, gen,
                   [&] { return static_cast<T>(std::exp(rd::normal_scalar(gen, mean, std))); });
  });
}

void multinomial_row(const Tensor& probs, int64_t n_sample, int64_t* out, int64_t out_stride,
                     Generator& gen) {
  // float16 / bfloat16 rows build their cumulative distribution in float
  if (is_reduced_float(probs.dtype()))
    return multinomial_row(widen(probs), n_sample, out, out_stride, gen);
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
