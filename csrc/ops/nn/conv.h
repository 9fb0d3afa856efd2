// Convolution and pooling ops (differentiable; kernels in kernels/nn/).
#pragma once

#include <array>

#include "core/tensor.h"

namespace gradtrack::ops {

/// PyTorch's convolution arguments, one entry per spatial dim (1 or 2).
/// `pad_extra` is what padding='same' adds after the input when the total
/// padding is odd (PyTorch pads the input by it first).
struct ConvArgs {
  DimVector stride, padding, dilation, output_padding, pad_extra;
  bool transposed = false;
  int64_t groups = 1;
};

/// input [N, C, (H,) W], weight [O, C/groups, (kH,) kW] (transposed:
/// [C, O/groups, ...]), bias [O] or null. Records ConvolutionBackward0.
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor* bias,
                   const ConvArgs& args);
/// The three gradients (undefined where `need` is false); records one
/// ConvolutionBackwardBackward0 node for them when a graph is being built.
std::array<Tensor, 3> convolution_backward(const Tensor& grad, const Tensor& input,
                                           const Tensor& weight, const ConvArgs& args,
                                           const std::array<bool, 3>& need);
/// convolution's checks of `input`, `weight` and the arguments, then `grad`'s
/// dtype and shape against the output's: for callers that bring their own
/// gradient (torch.nn.grad), where the graph's own call needs none.
void check_convolution_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                const ConvArgs& args);

/// Pooling arguments for 2-D pools over [N, C, H, W] (or [C, H, W]).
struct PoolArgs {
  DimVector kernel, stride, padding, dilation;
  bool ceil_mode = false, count_include_pad = true;
  int64_t divisor = 0;  // divisor_override, 0: none
};

/// (values, indices); records MaxPool2DWithIndicesBackward0.
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const PoolArgs& args);
/// Records AvgPool2DBackward0.
Tensor avg_pool2d(const Tensor& input, const PoolArgs& args);
/// Records AdaptiveAvgPool2DBackward0 / AdaptiveMaxPool2DBackward0.
Tensor adaptive_avg_pool2d(const Tensor& input, const DimVector& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, const DimVector& output_size);

/// Backward kernels; the average pools' are differentiable ops of their own
/// (AvgPool2DBackwardBackward0, AdaptiveAvgPool2DBackwardBackward0).
/// The max pools' backward; records MaxPool2DWithIndicesBackwardBackward0 (or
/// AdaptiveMaxPool2DBackwardBackward0) when a graph is being built.
Tensor max_pool_backward(const Tensor& grad, const Tensor& input, const Tensor& indices,
                         bool adaptive);
Tensor avg_pool2d_backward(const Tensor& grad, const Tensor& input, const PoolArgs& args);
Tensor adaptive_avg_pool2d_backward(const Tensor& grad, const Tensor& input);

}  // namespace gradtrack::ops
