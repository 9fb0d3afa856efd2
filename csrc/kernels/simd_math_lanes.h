// The per-element formulas of tanh and gelu (NOTE [Vector tanh and gelu] in
// simd_math.cpp), written once over a lane type V: float, in the plain loops that the
// AVX2 and baseline clones vectorize, or __m512, sixteen floats in the AVX-512 kernels.
//
// simd_math.cpp includes this file twice, each time inside a namespace that first
// defines V and its operations (splat_, fma_, min_, max_, abs_, less_, select_,
// copysign_, recip_; each takes floats for V too); the coefficient tables come from the
// enclosing one. So this file includes nothing and has no include guard. V's
// arithmetic operators, with a float on either side, are the compiler's.

// p(x) by Horner's rule, c lowest degree first. Written as multiply and add: the FMA
// builds fuse them (-ffp-contract=fast), the baseline build keeps them apart.
template <int N>
GT_INLINE inline V horner(const float (&c)[N], V x) {
  V p = splat_(c[N - 1]);
  for (int k = N - 2; k >= 0; --k) p = p * x + c[k];
  return p;
}

// tanh(a) for 0 <= a < kTanhSmall.
GT_INLINE inline V tanh_small(V a) {
  const V s = a * a;
  return fma_(a * s, horner(kTanhP, s), a);
}

// tanh(a) for a >= kTanhSmall from t = exp(-2a): (1 - t) / (1 + t), the sums kept as
// hi + lo (exact: |t| < 1). The quotient takes no division: r ~ 1 / (1 + t) from a
// polynomial, q = (1 - t) r, and q's remainder, scaled by r, corrects it.
GT_INLINE inline V tanh_large(V t) {
  const V nh = 1.0f - t, nl = (1.0f - nh) - t;
  const V dh = 1.0f + t, dl = (1.0f - dh) + t;
  const V r = horner(kRecipOnePlusT, t);
  const V q = nh * r;
  const V rem = fma_(-q, dh, nh);
  const V corr = fma_(-q, dl, rem + nl);
  return fma_(corr, r, q);
}

// tanh(x) from t = exp(-2|x|); -0 stays -0 and NaN stays NaN (large is NaN).
GT_INLINE inline V tanh_of(V x, V t) {
  const V a = abs_(x);
  return copysign_(select_(less_(a, kTanhSmall), tanh_small(a), tanh_large(t)), x);
}

// erfc(a), 1 <= a <= kErfcZero, with a^2 = h + l exactly and ex = exp(-h).
GT_INLINE inline V erfc_tail(V a, V ex, V l) {
  const V t = recip_(fma_(a, 0.5f, 1.0f));
  const V er = ex * horner(kErfcR, t);
  return fma_(-er, l, er);  // exp(-h - l) = exp(-h) (1 - l), |l| tiny
}

// |x| clamped where erfc(|x| / sqrt 2) is 0 in float.
GT_INLINE inline V gelu_abs(V x) { return min_(abs_(x), kErfcZero * 1.4142135f); }

// -(x/2) x for the clamped |x|: gelu's exponential is exp of this.
GT_INLINE inline V gelu_exponent(V x) {
  const V xa = gelu_abs(x);
  return -(0.5f * xa * xa);
}

// 1 + erf(z) for |z| < kErfSmall, z = x / sqrt 2 rounded, s = z^2, ex ~ exp(-z^2) (to
// 2^-8 will do: it only scales z's rounding error).
GT_INLINE inline V one_plus_erf_near(V x, V z, V s, V ex) {
  // z < 0: 1 + z is exact from z = -1 to -0.5, where the sum cancels most
  const V q = horner(kErfQ, s);
  const V near0 = select_(less_(z, 0.0f), fma_(z, q, 1.0f + z), 1.0f + fma_(z, q, z));
  // x / sqrt 2 - z, the part of the product rounded off (with sqrt(1/2)'s own), times
  // erf'(z) = 2/sqrt(pi) exp(-z^2)
  const V zl = fma_(x, kSqrt1_2, -z) + x * kSqrt1_2Lo;
  return fma_(kTwoOverSqrtPi * ex, zl, near0);
}

// 1 + erf(z) for |z| >= kErfSmall from erfc(|z|), a = min(|z|, kErfcZero), ex =
// exp(gelu_exponent(x)).
GT_INLINE inline V one_plus_erf_far(V x, V z, V a, V ex) {
  const V xa = gelu_abs(x);
  const V h = 0.5f * xa * xa, l = fma_(0.5f * xa, xa, -h);
  const V tail = erfc_tail(max_(a, kErfSmall), ex, l);
  return select_(less_(0.0f, z), 2.0f - tail, tail);
}

// 1 + erf(z), z = x / sqrt 2, for gelu and its derivative; ex = exp(gelu_exponent(x)).
GT_INLINE inline V one_plus_erf(V x, V ex) {
  const V z = x * kSqrt1_2;
  const V a = min_(abs_(z), kErfcZero);
  const V near = one_plus_erf_near(x, z, z * z, ex);
  return select_(less_(a, kErfSmall), near, one_plus_erf_far(x, z, a, ex));
}

// gelu(x) = x/2 (1 + erf(x / sqrt 2)).
GT_INLINE inline V gelu_of(V x, V ex) { return (0.5f * x) * one_plus_erf(x, ex); }

// phi(x) = exp(-x^2 / 2) / sqrt(2 pi) from ex = exp(gelu_exponent(x)), x^2 / 2's
// rounding put back.
GT_INLINE inline V gelu_pdf(V x, V ex) {
  const V xa = gelu_abs(x);
  const V h = 0.5f * xa * xa, l = fma_(0.5f * xa, xa, -h);
  return kInvSqrt2Pi * fma_(-ex, l, ex);
}

// gelu'(x) = Phi(x) + x phi(x), phi from the same exponential.
GT_INLINE inline V gelu_slope(V x, V ex) {
  return fma_(x, gelu_pdf(x, ex), 0.5f * one_plus_erf(x, ex));
}
