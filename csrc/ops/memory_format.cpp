// NOTE [Channels-last results]
// torch's CPU kernels for convolution, batch and group norm, pooling, interpolation,
// padding, the activations and cat write a channels-last result for a channels-last
// input (convolution: input or weight), and a program sees it in strides(),
// is_contiguous() and whether view() works. gradtrack's kernels compute row-major; the
// bindings of those ops re-lay the result afterwards (one copy), through set_data on the
// result itself, so the grad_fn, version and any saved reference stay as they were, with
// the same values. Tested against torch's strides in tests/nn/test_channels_last.py.
#include "ops/memory_format.h"

#include "autograd/variable.h"
#include "core/shape.h"
#include "kernels/copy.h"

namespace gradtrack::ops {

namespace {

// The dims from fastest to slowest in a channels-last layout.
const int64_t kOrder4[] = {1, 3, 2, 0};
const int64_t kOrder5[] = {1, 4, 3, 2, 0};

}  // namespace

DimVector channels_last_strides(const DimVector& sizes) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  const int64_t* order = n == 4 ? kOrder4 : kOrder5;
  DimVector strides(sizes.size(), 1);
  int64_t step = 1;
  for (int64_t i = 0; i < n; ++i) {
    strides[order[i]] = step;
    step *= sizes[order[i]];
  }
  return strides;
}

bool is_channels_last(const Tensor& t) {
  const int64_t n = t.dim();
  if (n != 4 && n != 5) return false;
  const DimVector& sizes = t.sizes();
  const DimVector& strides = t.strides();
  if (strides[1] == 0) return false;
  const int64_t* order = n == 4 ? kOrder4 : kOrder5;
  int64_t least = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = order[i];
    if (sizes[d] == 0 || strides[d] < least) return false;
    // N111-like ambiguity: identical strides on the batch and channel dims read as row-major
    if (d == 0 && least == strides[1]) return false;
    least = strides[d];
    if (sizes[d] > 1) least *= sizes[d];
  }
  return true;
}

void relay(const Tensor& t, const DimVector& strides) {
  if (t.strides() == strides) return;
  Tensor relaid = empty_strided(t.sizes(), strides, t.dtype());
  kernels::copy(relaid, t);
  t->set_data(*relaid.get());
}

void make_channels_last(const Tensor& t) {
  if (t.dim() != 4 && t.dim() != 5) return;
  relay(t, channels_last_strides(t.sizes()));
}

void stack_layout(const Tensor& stacked, const std::vector<Tensor>& inputs, int64_t dim) {
  if (inputs.empty() || dim >= inputs[0].dim()) return;  // torch cats unsqueezed inputs there
  for (const Tensor& t : inputs)
    if (!is_channels_last(t)) return;
  DimVector joined = inputs[0].sizes();
  const int64_t part = joined[size_t(dim)];
  joined[size_t(dim)] *= static_cast<int64_t>(inputs.size());
  DimVector strides = channels_last_strides(joined);
  strides.insert(static_cast<size_t>(dim), part * strides[size_t(dim)]);
  relay(stacked, strides);
}

const Tensor& follow_layout(const Tensor& t, const Tensor& like) {
  if (is_channels_last(like)) make_channels_last(t);
  return t;
}

void resize_(const Tensor& self, const DimVector& sizes, ResizeLayout layout) {
  GT_CHECK(!autograd::requires_grad(self), "cannot resize variables that require grad");
  for (int64_t s : sizes) GT_CHECK(s >= 0, "numel: integer multiplication overflow");
  const int64_t n = static_cast<int64_t>(sizes.size());
  GT_CHECK(layout != ResizeLayout::ChannelsLast || n == 4,
           "required rank 4 tensor to use channels_last format");
  GT_CHECK(layout != ResizeLayout::ChannelsLast3d || n == 5,
           "required rank 5 tensor to use channels_last_3d format");
  if (layout == ResizeLayout::Unasked && sizes == self.sizes()) return;
  const DimVector strides =
      layout == ResizeLayout::ChannelsLast || layout == ResizeLayout::ChannelsLast3d
          ? channels_last_strides(sizes)
          : contiguous_strides(sizes);
  const int64_t numel = checked_numel(sizes);
  if (numel > 0) {
    const auto item = static_cast<int64_t>(itemsize(self.dtype()));
    self->storage()->grow(static_cast<size_t>((self->offset() + numel) * item));
  }
  // torch bumps the version only when the sizes change.
  const bool changed = sizes != self.sizes();
  self->set_geometry(sizes, strides, self->offset());
  if (changed) self->bump_version();
}

}  // namespace gradtrack::ops
