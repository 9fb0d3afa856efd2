// CPU autocast: the per-thread state of torch.autocast("cpu") and the casts its op lists
// make where a call enters from Python (NOTE [Autocast at the Python boundary]).
#pragma once

#include "core/tensor.h"

namespace gradtrack::ops::autocast {

struct State {
  bool enabled = false;
  ScalarType dtype = ScalarType::BFloat16;
  bool cache = true;
};

/// This thread's state (autocast regions are per thread, as torch's).
State& state();
inline bool enabled() { return state().enabled; }

/// `t` in the region's lower-precision dtype, for the ops torch runs in it (matmul,
/// linear, conv, ...): a floating tensor other than float64 is cast (a differentiable
/// copy, ToCopyBackward0), anything else is returned as it is. The cast of a float32
/// leaf that requires grad (a weight) is made once per region and reused.
Tensor lower(const Tensor& t);
/// `t` in float32, for the ops torch runs in float32 (losses, prod, cdist, ...): a
/// bfloat16 or float16 tensor is cast, anything else is returned as it is.
Tensor to_float32(const Tensor& t);
/// Forgets the cached weight casts (when the outermost region closes).
void clear_cache();

/// `f(args...)`, with every tensor argument lowered when a region is open.
template <class F, class... Ts>
auto lowered(F&& f, const Ts&... ts) {
  if (!enabled()) return f(ts...);
  return f(lower(ts)...);
}

}  // namespace gradtrack::ops::autocast
