// embedding (a row lookup recorded as EmbeddingBackward0), its max_norm
// renormalization, and dropout's noise.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/half.h"
#include "kernels/random.h"
#include "ops/common.h"
#include "ops/nn/nn.h"

namespace gradtrack::ops {

namespace {

Tensor dense(const Tensor& t) { return kernels::aligned(contiguous(t)); }

Tensor long_indices(const Tensor& indices) {
  GT_CHECK(indices.dtype() == ScalarType::Int64 || indices.dtype() == ScalarType::Int32,
           "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
           "Long, Int; but got gradtrack.",
           scalar_type_name(indices.dtype()),
           "Tensor instead (while checking arguments for embedding)");
  return dense(to_dtype(indices, ScalarType::Int64));
}

}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                 bool scale_grad_by_freq) {
  GT_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  Tensor idx = long_indices(indices);
  const int64_t rows = weight.sizes()[0], d = weight.sizes()[1], n = idx.numel();
  const int64_t* ip = idx.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    GT_CHECK_INDEX(ip[i] >= 0 && ip[i] < rows, "index out of range in self");
  }
  DimVector shape = indices.sizes();
  shape.push_back(d);
  Tensor out = empty(shape, weight.dtype());
  Tensor w = dense(weight);
  const size_t row_bytes = static_cast<size_t>(d) * itemsize(weight.dtype());
  if (row_bytes != 0) {
    parallel_for(n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(d, 1)),
                 [&](int64_t lo, int64_t hi) {
                   for (int64_t i = lo; i < hi; ++i)
                     std::memcpy(out.raw() + i * row_bytes, w.raw() + ip[i] * row_bytes, row_bytes);
                 });
  }
  record(OpKind::Embedding, {&weight}, out,
         [&](autograd::EmbeddingAttrs& at) {
           at.num_weights = rows;
           at.padding_idx = padding_idx;
           at.scale_grad_by_freq = scale_grad_by_freq;
         },
         {&indices});
  return out;
}

void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm,
                       double norm_type) {
  GT_CHECK(weight.is_contiguous() && weight.is_aligned(), "weight must be contiguous");
  Tensor idx = long_indices(indices);
  const int64_t rows = weight.sizes()[0], d = weight.sizes()[1];
  std::vector<int64_t> seen(idx.data<int64_t>(), idx.data<int64_t>() + idx.numel());
  std::sort(seen.begin(), seen.end());
  seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
  GT_DISPATCH_FLOAT(weight.dtype(), "embedding_renorm_", [&] {
    scalar_t* wp = weight.data<scalar_t>();
    for (int64_t r : seen) {
      GT_CHECK_INDEX(r >= 0 && r < rows, "index out of range in self");
      scalar_t* row = wp + r * d;
      double norm = 0;
      for (int64_t j = 0; j < d; ++j) {
        const double a = std::abs(double(row[j]));
        norm += norm_type == 1 ? a : norm_type == 2 ? a * a : std::pow(a, norm_type);
      }
      norm = norm_type == 1   ? norm
             : norm_type == 2 ? std::sqrt(norm)
                              : std::pow(norm, 1.0 / norm_type);
      if (norm > max_norm) {
        const scalar_t scale = static_cast<scalar_t>(max_norm / (norm + 1e-7));
        for (int64_t j = 0; j < d; ++j) row[j] *= scale;
      }
    }
  });
  weight->bump_version();
}

Tensor dropout_noise(const Tensor& x, double p) {
  // torch draws bernoulli_(1 - p) into an empty tensor (the same draws, from
  // the same generator), then divides it by (1 - p): each element is 0 or
  // 1 / (1 - p) in x's dtype.
  Tensor noise = empty(x.sizes(), x.dtype());
  kernels::bernoulli_scalar(noise, 1 - p, default_generator());
  if (is_reduced_float(x.dtype())) {
    // float16 / bfloat16: torch divides by the float 1 - p and rounds once
    const float scale = 1.0f / static_cast<float>(1 - p);
    const uint16_t w =
        x.dtype() == ScalarType::Float16 ? float_to_half(scale) : float_to_bfloat16(scale);
    uint16_t* np = noise.data<uint16_t>();
    for (int64_t i = 0; i < noise.numel(); ++i) np[i] = np[i] != 0 ? w : uint16_t(0);
    return noise;
  }
  GT_DISPATCH_FLOAT(x.dtype(), "bernoulli_", [&] {
    scalar_t* np = noise.data<scalar_t>();
    const scalar_t scale = scalar_t(1) / static_cast<scalar_t>(1 - p);
    for (int64_t i = 0; i < noise.numel(); ++i) np[i] = np[i] != scalar_t(0) ? scale : scalar_t(0);
  });
  return noise;
}

}  // namespace gradtrack::ops
