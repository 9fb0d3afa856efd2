#include "kernels/reduced_float.h"

#include "core/half.h"
#include "kernels/pointwise.h"
#include "kernels/loops.h"

namespace gradtrack::kernels {

bool any_reduced(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t && is_reduced_float(t->dtype())) return true;
  return false;
}

Tensor widen(const Tensor& t) {
  if (!is_reduced_float(t.dtype())) return t;
  Tensor w = empty(t.sizes(), ScalarType::Float32);
  copy(w, t);
  return w;
}

Scalar round_scalar(Scalar v, ScalarType t) {
  if (!is_reduced_float(t)) return v;
  const float f = v.to<float>();
  const float r = t == ScalarType::Float16 ? half_to_float(float_to_half(f))
                                           : bfloat16_to_float(float_to_bfloat16(f));
  return Scalar(static_cast<double>(r));
}

Tensor narrowed(const Tensor& wide, ScalarType t) {
  Tensor out = empty(wide.sizes(), t);
  copy(out, wide);
  return out;
}

WideOut::WideOut(const Tensor& out, bool read_old) : out_(out) {
  if (!is_reduced_float(out.dtype())) {
    t = out;
    return;
  }
  t = read_old ? widen(out) : empty(out.sizes(), ScalarType::Float32);
}

void WideOut::commit() const {
  if (is_reduced_float(out_.dtype())) copy(out_, t);
}

namespace {

// float32 <-> 16-bit words, elementwise with broadcasting of `src`.
void words_from_float(const Tensor& out, const Tensor& src) {
  LoopPlan p = make_plan(out, {src});
  if (out.dtype() == ScalarType::Float16) {
    unary_loop<uint16_t, float>(p, [](float x) { return float_to_half(x); });
  } else {
    unary_loop<uint16_t, float>(p, [](float x) { return float_to_bfloat16(x); });
  }
}

void float_from_words(const Tensor& out, const Tensor& src) {
  LoopPlan p = make_plan(out, {src});
  if (src.dtype() == ScalarType::Float16) {
    unary_loop<float, uint16_t>(p, [](uint16_t h) { return half_to_float(h); });
  } else {
    unary_loop<float, uint16_t>(p, [](uint16_t b) { return bfloat16_to_float(b); });
  }
}

}  // namespace

bool copy_reduced(const Tensor& out, const Tensor& src) {
  const bool ro = is_reduced_float(out.dtype()), rs = is_reduced_float(src.dtype());
  if (!ro && !rs) return false;
  if (out.dtype() == src.dtype()) {
    // Same words: copied bit for bit (NaN payloads included).
    unary_loop<uint16_t, uint16_t>(make_plan(out, {src}), [](uint16_t w) { return w; });
    return true;
  }
  // Every other conversion passes through float32, as PyTorch's does (so a
  // double rounds twice: to float32, then to 16 bits).
  if (rs && out.dtype() == ScalarType::Float32) {
    float_from_words(out, src);
  } else if (ro && src.dtype() == ScalarType::Float32) {
    words_from_float(out, src);
  } else {
    Tensor mid = empty(out.sizes(), ScalarType::Float32);
    copy(mid, src);
    copy(out, mid);
  }
  return true;
}

bool fill_reduced(const Tensor& out, Scalar value) {
  if (!is_reduced_float(out.dtype())) return false;
  const float f = value.to<float>();
  const uint16_t w = out.dtype() == ScalarType::Float16 ? float_to_half(f) : float_to_bfloat16(f);
  unary_loop<uint16_t, uint16_t>(make_plan(out, {Operand(&w)}), [](uint16_t x) { return x; });
  return true;
}

}  // namespace gradtrack::kernels
