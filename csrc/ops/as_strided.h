// as_strided's checks, shared by the view (views.cpp) and its in-place form
// (inplace_views.cpp).
#pragma once

#include <optional>

#include "core/tensor.h"

namespace gradtrack::ops {

/// as_strided's checks (shape and stride lengths, offset, negative strides, the storage
/// bound), with torch's messages.
void check_as_strided(const Tensor& a, const DimVector& sizes, const DimVector& strides,
                      int64_t off);

/// as_strided_(size, stride, storage_offset): self takes the new geometry
/// (AsStridedBackward1).
Tensor inplace_as_strided(const Tensor& self, const DimVector& sizes, const DimVector& strides,
                          std::optional<int64_t> offset);

}  // namespace gradtrack::ops
