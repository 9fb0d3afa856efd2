// Padding and interpolation (F.pad, F.interpolate): constant padding, and the
// separable maps of kernels/resample.h for reflect/replicate padding and
// nearest/linear/cubic interpolation, each recording PyTorch's node.
#pragma once

#include <array>
#include <cmath>

#include "core/scalar.h"
#include "core/tensor.h"

namespace gradtrack::ops {

enum class ResampleMode : int64_t { Reflect, Replicate, Nearest, NearestExact, Linear, Cubic };

/// What a resampling op needs, and what its node keeps to run backward and
/// double backward (the last k dims are resampled, k = out_sizes.size()).
struct ResampleSpec {
  ResampleMode mode = ResampleMode::Nearest;
  DimVector in_sizes;   // the full input shape
  DimVector out_sizes;  // the k resampled sizes
  DimVector pads;       // padding modes: the padding before each of the k dims
  std::array<double, 3> scales{NAN, NAN, NAN};  // interpolation's scale_factor; NaN: none
  bool align_corners = false;
};

Tensor resample(const Tensor& x, const ResampleSpec& spec);
/// The gradient of resample(x) for x of spec.in_sizes (differentiable in g).
Tensor resample_backward(const Tensor& g, const ResampleSpec& spec);

/// F.pad's constant mode: `pad` as F.pad takes it (last dim first, before and
/// after), negative entries cut.
Tensor constant_pad_nd(const Tensor& x, const DimVector& pad, Scalar value);

}  // namespace gradtrack::ops
