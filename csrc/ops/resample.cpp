// Padding and interpolation ops (see resample.h).
#include "ops/resample.h"

#include <algorithm>
#include <optional>

#include "kernels/reduced_float.h"
#include "kernels/resample.h"
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

using kernels::Taps;

// PyTorch's compute_scales_value: 1/scale_factor when one was given, else
// in/out, in the compute type S (float for float32 data).
template <typename S>
S scale_value(double scale, int64_t in, int64_t out) {
  return (!std::isnan(scale) && scale > 0) ? S(1.0 / scale) : S(in) / S(out);
}

// PyTorch's area_pixel_compute_scale and area_pixel_compute_source_index.
template <typename S>
S area_scale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? S(in - 1) / S(out - 1) : S(0);
  return scale_value<S>(scale, in, out);
}
using kernels::madd;

// torch's kernels built with FMA (AVX2 CPUs and up) compute scale * (dst + 0.5) - 0.5 as
// one fused multiply-add (NOTE [Bilinear rounded as torch's]); `fused` says whether the
// kernel being matched was built so.
template <typename S>
S source_index(S scale, int64_t dst, bool align_corners, bool cubic, bool fused) {
  if (align_corners) return scale * S(dst);
  const S src = madd(fused, scale, S(dst) + S(0.5), S(-0.5));
  return (!cubic && src < S(0)) ? S(0) : src;
}

// Keys' cubic convolution with A = -0.75, as torch's get_cubic_upsample_coefficients
// computes it: the far taps at t + 1 and (1 - t) + 1. Where its kernel was built with
// FMA (`fused`: the forward), every multiply-add but the last of each polynomial is
// fused (measured against torch: the weights read off the resize of single pixels at
// 3960 positions of 84 resizes, and 500 random rows at a border); its backward fuses
// none.
template <typename S>
void cubic_weights(S t, double* w, bool fused) {
  const S a = S(-0.75);
  auto near = [&](S x) { return S(madd(fused, a + 2, x, -(a + 3)) * x) * x + 1; };
  auto far = [&](S x) { return S(madd(fused, madd(fused, a, x, -5 * a), x, 8 * a) * x) - 4 * a; };
  const S x2 = S(1) - t;
  w[0] = double(far(t + S(1)));
  w[1] = double(near(t));
  w[2] = double(near(x2));
  w[3] = double(far(x2 + S(1)));
}

template <typename S>
void interpolation_taps(Taps& t, ResampleMode mode, double scale, bool align_corners, bool fused) {
  const int64_t in = t.in_size;
  for (int64_t o = 0; o < t.out_size; ++o) {
    int64_t* ix = t.idx.data() + o * t.taps;
    double* w = t.w.data() + o * t.taps;
    if (mode == ResampleMode::Nearest || mode == ResampleMode::NearestExact) {
      // PyTorch's nearest_idx / nearest_exact_idx (scales in float).
      const float s = scale_value<float>(scale, in, t.out_size);
      const double shift = mode == ResampleMode::NearestExact ? 0.5 : 0.0;
      const bool same = mode == ResampleMode::Nearest && t.out_size == in;
      const bool twice = mode == ResampleMode::Nearest && t.out_size == 2 * in;
      ix[0] = same    ? o
              : twice ? o >> 1
                      : std::min(int64_t(std::floor(float((double(o) + shift) * s))), in - 1);
      w[0] = 1;
      continue;
    }
    const bool cubic = mode == ResampleMode::Cubic;
    const S real = source_index<S>(area_scale<S>(in, t.out_size, align_corners, scale), o,
                                   align_corners, cubic, fused);
    // floorf, as torch's guard_index_and_lambda: a double index a hair below an
    // integer rounds up to it first.
    const int64_t i0 = std::min(int64_t(std::floor(float(real))), in - 1);
    const S lambda = std::min(std::max(real - S(i0), S(0)), S(1));
    if (cubic) {
      cubic_weights<S>(lambda, w, fused);
      for (int64_t k = 0; k < 4; ++k) ix[k] = std::clamp<int64_t>(i0 - 1 + k, 0, in - 1);
    } else {
      ix[0] = i0;
      ix[1] = i0 + (i0 < in - 1 ? 1 : 0);
      w[0] = double(S(1) - lambda);
      w[1] = double(lambda);
    }
  }
}

// `fused`: torch's kernel for this pass was built with FMA (its CPU kernels are, on AVX2
// CPUs and up; the bicubic backward is not: NOTE [Resampling gradients summed as torch's]).
Taps make_taps(const ResampleSpec& s, size_t j, ScalarType dt,
               bool fused = kernels::torch_fuses_multiply_adds()) {
  Taps t;
  t.in_size = s.in_sizes[s.in_sizes.size() - s.out_sizes.size() + j];
  t.out_size = s.out_sizes[j];
  t.taps = s.mode == ResampleMode::Linear ? 2 : s.mode == ResampleMode::Cubic ? 4 : 1;
  t.idx.assign(size_t(t.out_size * t.taps), 0);
  t.w.assign(size_t(t.out_size * t.taps), 1.0);
  if (s.mode == ResampleMode::Reflect || s.mode == ResampleMode::Replicate) {
    const int64_t n = t.in_size;
    for (int64_t o = 0; o < t.out_size; ++o) {
      int64_t p = o - s.pads[j];
      if (s.mode == ResampleMode::Replicate) {
        p = std::clamp<int64_t>(p, 0, n - 1);
      } else {
        if (p < 0) p = -p;
        if (p >= n) p = 2 * (n - 1) - p;
      }
      t.idx[size_t(o)] = p;
    }
  } else if (dt == ScalarType::Float32) {
    interpolation_taps<float>(t, s.mode, s.scales[j], s.align_corners, fused);
  } else {
    interpolation_taps<double>(t, s.mode, s.scales[j], s.align_corners, fused);
  }
  // A linear dim of unchanged size reads (and its gradient adds into) its own pixel
  // twice, the second time with weight 0, as torch's.
  if (s.mode == ResampleMode::Linear && t.out_size == t.in_size)
    for (int64_t o = 0; o < t.out_size; ++o) t.idx[size_t(2 * o + 1)] = t.idx[size_t(2 * o)];
  return t;
}

// PyTorch's node for each mode and number of resampled dims; backward
// nodes follow their forward nodes in GT_FORALL_OPS, kNumResampleKinds later.
OpKind forward_kind(ResampleMode m, size_t k) {
  static const OpKind kinds[6][3] = {
      {OpKind::ReflectionPad1D, OpKind::ReflectionPad2D, OpKind::ReflectionPad3D},
      {OpKind::ReplicationPad1D, OpKind::ReplicationPad2D, OpKind::ReplicationPad3D},
      {OpKind::UpsampleNearest1D, OpKind::UpsampleNearest2D, OpKind::UpsampleNearest3D},
      {OpKind::UpsampleNearestExact1D, OpKind::UpsampleNearestExact2D,
       OpKind::UpsampleNearestExact3D},
      {OpKind::UpsampleLinear1D, OpKind::UpsampleBilinear2D, OpKind::UpsampleTrilinear3D},
      {OpKind::UpsampleBicubic2D, OpKind::UpsampleBicubic2D, OpKind::UpsampleBicubic2D}};
  return kinds[size_t(m)][k - 1];
}
constexpr int kNumResampleKinds =
    int(OpKind::ReflectionPad1DBackward) - int(OpKind::ReflectionPad1D);
static_assert(int(OpKind::UpsampleTrilinear3DBackward) - int(OpKind::UpsampleTrilinear3D) ==
                  kNumResampleKinds,
              "resampling backward kinds follow their forward kinds in the same order");

void check_spec(const Tensor& x, const ResampleSpec& s) {
  const size_t k = s.out_sizes.size();
  GT_CHECK(k >= 1 && k <= 3 && size_t(x.dim()) > k, "gradtrack: resample of ", k, " dims of a ",
           x.dim(), "-D tensor");
  const bool pad = s.mode == ResampleMode::Reflect || s.mode == ResampleMode::Replicate;
  GT_CHECK(!pad || s.pads.size() == k, "gradtrack: resample needs one padding per dim");
  for (size_t j = 0; j < k; ++j) {
    GT_CHECK(s.out_sizes[j] >= 0 && (s.out_sizes[j] == 0 || s.in_sizes[x.dim() - k + j] > 0),
             "gradtrack: resample from an empty dim");
  }
  GT_CHECK(s.mode != ResampleMode::Cubic || k == 2, "gradtrack: bicubic resamples 2 dims");
}

// Contiguous in channels-last order ([N, C, (D,) H, W] with strides (..., C, 1)), size-1
// dims aside.
bool is_channels_last(const Tensor& x) {
  const DimVector& n = x.sizes();
  const size_t nd = n.size();
  int64_t want = n[1];  // the stride of the last spatial dim
  for (size_t d = nd - 1; d >= 2; --d) {
    if (n[d] != 1 && x.strides()[d] != want) return false;
    want *= n[d];
  }
  return (n[1] == 1 || x.strides()[1] == 1) && (n[0] == 1 || x.strides()[0] == want);
}

// Which of torch's kernels a linear or bicubic resize rounds as: the generic kernel, whose
// nesting the forward follows, or, for bilinear and trilinear where NOTE [Bilinear rounded
// as torch's] says, the channels-last one. On float16/bfloat16 inputs that one is not
// matched: those take the passes, as do the other modes.
enum class Rounding { Passes, Nested, Corners };

Rounding rounding_as_torch(const Tensor& x, const ResampleSpec& s) {
  const bool reduced = is_reduced_float(x.dtype());
  if (!reduced && x.dtype() != ScalarType::Float32 && x.dtype() != ScalarType::Float64)
    return Rounding::Passes;
  const size_t k = s.out_sizes.size();
  if (x.dim() != int64_t(k) + 2) return Rounding::Passes;
  if (s.mode == ResampleMode::Cubic) return k == 2 ? Rounding::Nested : Rounding::Passes;
  if (s.mode != ResampleMode::Linear) return Rounding::Passes;
  const int64_t c = x.size(1);
  bool corners = k > 1 && is_channels_last(x) && c > 3;
  if (k == 2)
    corners =
        corners || s.out_sizes[0] + s.out_sizes[1] <= 128 || (get_num_threads() == 1 && c == 3);
  if (!corners) return Rounding::Nested;
  return reduced ? Rounding::Passes : Rounding::Corners;
}

// torch's generic kernel stores a float16/bfloat16 input's weights in its own type: each
// rounded there, a linear tap's first weight as 1 minus the second, already rounded.
void round_weights(kernels::Taps& t, ScalarType dt) {
  auto round = [&](double v) { return kernels::round_scalar(Scalar(v), dt).to_double(); };
  for (double& w : t.w) w = round(w);
  if (t.taps == 2)
    for (size_t i = 0; i < t.w.size(); i += 2) t.w[i] = round(double(1.0f - float(t.w[i + 1])));
}

ScalarType compute_dtype(ScalarType dt) { return is_reduced_float(dt) ? ScalarType::Float32 : dt; }

}  // namespace

Tensor resample(const Tensor& x, const ResampleSpec& spec_in) {
  ResampleSpec spec = spec_in;
  spec.in_sizes = x.sizes();
  check_spec(x, spec);
  const size_t k = spec.out_sizes.size();
  const int64_t first = x.dim() - int64_t(k);
  // float16 / bfloat16 resample in float32 (taps as for float data), rounded once
  const ScalarType cdt = compute_dtype(x.dtype());
  Tensor cur;
  if (const Rounding how = rounding_as_torch(x, spec); how != Rounding::Passes) {
    // NOTE [Resampled in torch's nesting], [Bilinear rounded as torch's] (kernels/resample.cpp)
    autograd::AutoGradMode off(false);
    std::vector<kernels::Taps> taps;
    std::vector<const kernels::Taps*> dims;
    for (size_t j = 0; j < k; ++j) taps.push_back(make_taps(spec, j, cdt));
    if (cdt != x.dtype())
      for (kernels::Taps& t : taps) round_weights(t, x.dtype());
    for (const kernels::Taps& t : taps) dims.push_back(&t);
    Tensor in = kernels::widen(contiguous(x));
    if (!in.is_aligned()) in = clone(in);
    DimVector sizes = in.sizes();
    for (size_t j = 0; j < k; ++j) sizes[size_t(first) + j] = spec.out_sizes[j];
    cur = empty(sizes, cdt);
    if (how == Rounding::Nested)
      kernels::gather_planes(cur, in, dims);
    else
      kernels::linear_corners(cur, in, dims);
    if (cdt != x.dtype()) cur = kernels::narrowed(cur, x.dtype());
  } else {
    autograd::AutoGradMode off(false);
    cur = kernels::widen(contiguous(x));
    if (!cur.is_aligned()) cur = clone(cur);
    // Last dim first.
    for (size_t j = k; j-- > 0;) {
      DimVector sizes = cur.sizes();
      sizes[size_t(first) + j] = spec.out_sizes[j];
      Tensor next = empty(sizes, cdt);
      kernels::gather_taps(next, cur, first + int64_t(j), make_taps(spec, j, cdt));
      cur = next;
    }
    if (k > 0 && cur.is_same(x)) cur = clone(cur);
    if (cdt != x.dtype()) cur = kernels::narrowed(cur, x.dtype());
  }
  record(forward_kind(spec.mode, k), {&x}, cur, [&](autograd::ResampleSpec& at) { at = spec; });
  return cur;
}

Tensor resample_backward(const Tensor& g, const ResampleSpec& spec) {
  const size_t k = spec.out_sizes.size();
  const ScalarType cdt = compute_dtype(g.dtype());
  Tensor cur;
  {
    autograd::AutoGradMode off(false);
    Tensor go = kernels::widen(contiguous(g));
    if (!go.is_aligned()) go = clone(go);
    // NOTE [Resampling gradients summed as torch's] (kernels/resample.cpp)
    std::vector<kernels::Taps> taps;
    std::vector<const kernels::Taps*> dims;
    const bool cubic = spec.mode == ResampleMode::Cubic;
    const bool fused = kernels::torch_fuses_multiply_adds() && !cubic;
    for (size_t j = 0; j < k; ++j) taps.push_back(make_taps(spec, j, cdt, fused));
    for (const kernels::Taps& t : taps) dims.push_back(&t);
    cur = empty(spec.in_sizes, cdt);
    kernels::scatter_planes(cur, go, dims, cubic, fused);
    if (cdt != g.dtype()) cur = kernels::narrowed(cur, g.dtype());
  }
  const OpKind bw = OpKind(int(forward_kind(spec.mode, k)) + kNumResampleKinds);
  record(bw, {&g}, cur, [&](autograd::ResampleSpec& at) { at = spec; });
  return cur;
}

Tensor constant_pad_nd(const Tensor& x, const DimVector& pad, Scalar value) {
  const int64_t n = x.dim();
  GT_CHECK(pad.size() % 2 == 0, "Length of pad must be even but instead it equals ", pad.size());
  GT_CHECK(int64_t(pad.size() / 2) <= n, "Length of pad should be no more than twice the number ",
           "of dimensions of the input. Pad length is ", pad.size(), " while the input has ", n,
           " dimensions.");
  // Negative pads first cut the input, by PyTorch's narrow() calls (and
  // its errors when a cut is larger than the dim).
  Tensor src = x;
  {
    autograd::AutoGradMode off(false);
    for (size_t i = 0; i < pad.size() / 2; ++i) {
      const int64_t d = n - 1 - int64_t(i);
      if (pad[2 * i] < 0) src = narrow(src, d, -pad[2 * i], src.size(d) + pad[2 * i]);
      if (pad[2 * i + 1] < 0) src = narrow(src, d, 0, src.size(d) + pad[2 * i + 1]);
    }
  }
  DimVector sizes = x.sizes();
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const size_t d = size_t(n) - 1 - i;
    const int64_t s = sizes[d] + pad[2 * i] + pad[2 * i + 1];
    GT_CHECK(s >= 0, "The input size ", sizes[d], ", plus negative padding ", pad[2 * i], " and ",
             pad[2 * i + 1], " resulted in a negative output size, which is invalid. Check ",
             "dimension ", d, " of your input.");
    sizes[d] = s;
  }
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    out = full(sizes, value, x.dtype());
    Tensor dst = out;
    for (size_t i = 0; i < pad.size() / 2; ++i) {
      const int64_t d = n - 1 - int64_t(i);
      dst = narrow(dst, d, std::max<int64_t>(pad[2 * i], 0), src.size(d));
    }
    if (src.numel() > 0) kernels::copy(dst, src);
  }
  record(OpKind::ConstantPadNd, {&x}, out, [&](autograd::PadAttrs& at) { at.pad = pad; });
  return out;
}

}  // namespace gradtrack::ops
