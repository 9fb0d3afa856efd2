// NOTE [Autocast at the Python boundary]
// torch's autocast is a dispatch key: a listed op called from user code casts its inputs,
// and the ops it calls in turn run with the key excluded. gradtrack's equivalent of "called
// from user code" is the Python binding: the bindings of the lower-precision list (matmul,
// mm, bmm, addmm, baddbmm, addbmm, linear, convolution) cast their tensor arguments before
// calling the op, and C++ never casts on its own, so a composite (linear calling addmm, a
// backward formula calling mm) sees no second cast. The float32 list is a decorator on the
// Python functions (gradtrack/_autocast.py). The measured lists are in
// tests/amp/test_autocast_cpu.py.
#include "ops/autocast.h"

#include <unordered_map>
#include <utility>

#include "autograd/variable.h"
#include "ops/ops.h"

namespace gradtrack::ops::autocast {

namespace {

thread_local State tls_state;
// Keyed by the source's TensorImpl; the value holds the source too, so the key cannot be
// reused by another tensor while the entry lives (it lives until the region closes).
thread_local std::unordered_map<const TensorImpl*, std::pair<Tensor, Tensor>> tls_cache;

bool eligible(const Tensor& t) {
  return t.defined() && is_floating(t.dtype()) && t.dtype() != ScalarType::Float64;
}

}  // namespace

State& state() { return tls_state; }

Tensor lower(const Tensor& t) {
  const State& s = tls_state;
  if (!s.enabled || !eligible(t) || t.dtype() == s.dtype) return t;
  const bool cacheable = s.cache && t.dtype() == ScalarType::Float32 &&
                         autograd::requires_grad(t) && autograd::is_leaf(t) &&
                         !autograd::is_view(t);
  if (!cacheable) return to_dtype(t, s.dtype);
  auto it = tls_cache.find(t.get());
  if (it != tls_cache.end()) return it->second.second;
  Tensor cast = to_dtype(t, s.dtype);
  tls_cache.emplace(t.get(), std::make_pair(t, cast));
  return cast;
}

Tensor to_float32(const Tensor& t) {
  if (!tls_state.enabled || !t.defined() || !is_reduced_float(t.dtype())) return t;
  return to_dtype(t, ScalarType::Float32);
}

void clear_cache() { tls_cache.clear(); }

}  // namespace gradtrack::ops::autocast
