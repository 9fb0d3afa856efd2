// Channels-last outputs: the ops whose result torch lays out like their input (NHWC in,
// NHWC out) re-lay their row-major result where they enter from Python.
// NOTE [Channels-last results].
#pragma once

#include "core/tensor.h"

namespace gradtrack::ops {

/// torch's suggest_memory_format() == channels_last (4-d) or channels_last_3d (5-d): the
/// strides order C fastest, then the spatial dims last to first, then N; ambiguous
/// layouts (a size-1 channel dim with row-major strides) count as row-major.
bool is_channels_last(const Tensor& t);
/// Re-lays `t` channels-last in place when it is not: same values, version and autograd
/// identity (the node that made it keeps it as its output), new storage.
void make_channels_last(const Tensor& t);
/// torch's channels-last strides for 4-d or 5-d `sizes`.
DimVector channels_last_strides(const DimVector& sizes);
/// Re-lays `t` in place with `strides` (dense over its sizes) when it has others, as
/// make_channels_last does.
void relay(const Tensor& t, const DimVector& strides);
/// torch's stack of channels-last tensors along a dim before their last: a cat along that
/// dim (channels-last) viewed with the dim split, so the result's strides are that view's.
void stack_layout(const Tensor& stacked, const std::vector<Tensor>& inputs, int64_t dim);
/// `t`, re-laid channels-last when `like` is (returned for chaining).
const Tensor& follow_layout(const Tensor& t, const Tensor& like);

/// The layout Tensor.resize_ gives: row-major unless asked (0: not asked, 1: row-major,
/// 2: channels_last, 3: channels_last_3d).
enum class ResizeLayout { Unasked = 0, RowMajor = 1, ChannelsLast = 2, ChannelsLast3d = 3 };
/// torch's Tensor.resize_: `self` takes `sizes` (dense in `layout`, at its offset), its
/// storage growing in place when too small (keeping its bytes; the new ones are
/// unspecified); the version bumps unless the sizes are the same and no layout was asked.
/// Refused for a tensor that requires grad and for storage owned elsewhere.
void resize_(const Tensor& self, const DimVector& sizes, ResizeLayout layout);

}  // namespace gradtrack::ops
