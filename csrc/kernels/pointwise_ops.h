// The op list: every elementwise op gradtrack has, named once.
//
// NOTE [The op list]
// Round 1 named each elementwise op in six hand-kept lists (kernel enum,
// in-place enum, two name arrays whose order had to match the enums, the Python
// method tuple, the in-place entry's switch of specs) and nothing checked that
// they agreed: in-place div_ with a rounding mode, remainder_ and floor_divide_
// drifted to another op's gradient without an error. Now each op is one row
// here, and everything else is expanded from the rows:
//   - the kernel enums UnaryOp / BinaryOp (kernels.h),
//   - the in-place enum InplaceOp and its names (ops.h, ops/inplace.cpp),
//   - the in-place spec: which formula row an in-place variant records. It is
//     the out-of-place op's row by construction, as in PyTorch's derivative
//     table ("in-place variants default to the out-of-place definition"),
//   - the op functions of the uniform unary ops (ops/elementwise.cpp),
//   - the bindings: Tensor methods, module functions and the in-place table
//     _C._inplace.ops that python/gradtrack/_inplace.py turns into methods.
// The columns after the first name tokens that only some files expand: the
// kernel files read the first column alone, so kernels/ does not depend on
// autograd/ (the OpKind names live in autograd/formulas.h).
//
// Adding an elementwise op: one row here, its kernel functor in
// kernels/elementwise.cpp, its formula row in autograd/formulas.cpp, its row in
// tests/ops/op_db.py. Nothing else.
#pragma once

// Unary ops: a Tensor method, a module function and an in-place method each.
//   X(Kernel, method name, formula kind, rule)
//   rule Float:  integer inputs compute in the default float type (exp, sin, ...);
//        Same:   the result keeps the input's dtype (abs, floor, ...);
//        Custom: the op function is written by hand in ops/elementwise.cpp
//                (it has a check of its own, or is another op underneath).
// clang-format off: one row per line, as a table
#define GT_UNARY_OPS(X)                        \
  X(Neg, neg, Neg, Custom)                     \
  X(Abs, abs, Abs, Same)                       \
  X(Exp, exp, Exp, Float)                      \
  X(Log, log, Log, Float)                      \
  X(Sqrt, sqrt, Sqrt, Float)                   \
  X(Rsqrt, rsqrt, Rsqrt, Float)                \
  X(Sin, sin, Sin, Float)                      \
  X(Cos, cos, Cos, Float)                      \
  X(Tanh, tanh, Tanh, Float)                   \
  X(Sigmoid, sigmoid, Sigmoid, Float)          \
  X(Relu, relu, Relu, Custom)                  \
  X(Reciprocal, reciprocal, Reciprocal, Float) \
  X(Sign, sign, Sign, Same)                    \
  X(Sgn, sgn, Sgn, Same)                       \
  X(Floor, floor, Floor, Same)                 \
  X(Ceil, ceil, Ceil, Same)                    \
  X(Round, round, Round, Same)                 \
  X(Trunc, trunc, Trunc, Same)                 \
  X(Log1p, log1p, Log1p, Float)                \
  X(Expm1, expm1, Expm1, Float)                \
  X(Square, square, PowScalar, Custom)         \
  X(Tan, tan, Tan, Float)                      \
  X(Asin, asin, Asin, Float)                   \
  X(Acos, acos, Acos, Float)                   \
  X(Atan, atan, Atan, Float)                   \
  X(Sinh, sinh, Sinh, Float)                   \
  X(Cosh, cosh, Cosh, Float)                   \
  X(Log2, log2, Log2, Float)                   \
  X(Log10, log10, Log10, Float)                \
  X(Erf, erf, Erf, Float)                      \
  X(Exp2, exp2, Exp2, Float)                   \
  X(Frac, frac, Frac, Custom)                  \
  X(Erfc, erfc, Erfc, Float)                   \
  X(Erfinv, erfinv, Erfinv, Float)             \
  X(Asinh, asinh, Asinh, Float)                \
  X(Acosh, acosh, Acosh, Float)                \
  X(Atanh, atanh, Atanh, Float)                \
  X(Sinc, sinc, Sinc, Float)                   \
  X(Deg2rad, deg2rad, Deg2rad, Float)          \
  X(Rad2deg, rad2deg, Rad2deg, Float)
// clang-format on

// Unary kernels without a differentiable op of their own.
// clang-format off: one row per line, as a table
#define GT_UNARY_KERNELS_ONLY(X) \
  X(LogicalNot) X(BitNot) X(IsNan) X(IsInf) X(IsPosInf) X(IsNegInf) X(IsFinite) X(SignBit)
// clang-format on

// Binary ops with an in-place method `self.name_(other)`.
//   X(Kernel, method name, formula kind with a tensor other, with a number
//     other, rule); rule Float: the result is floating (true division, atan2);
//   Same: the promoted dtype. Kind NoGrad: the op never records a node
//   (bitwise ops: only integers and bools, which cannot require grad).
//   Kind NoNumber: the op takes no number operand (torch's TypeError).
// clang-format off: one row per line, as a table
#define GT_BINARY_OPS(X)                                                  \
  X(Add, add, Add, AddScalar, Same)                                       \
  X(Sub, sub, Sub, SubScalar, Same)                                       \
  X(Mul, mul, Mul, MulScalar, Same)                                       \
  X(Div, div, Div, DivScalar, Float)                                      \
  X(FloorDiv, floor_divide, FloorDivideInplace, FloorDivideInplace, Same) \
  X(Remainder, remainder, Remainder, RemainderScalar, Same)               \
  X(Pow, pow, PowTensor, PowScalar, Same)                                 \
  X(Fmod, fmod, Fmod, FmodScalar, Same)                                   \
  X(Atan2, atan2, Atan2, NoNumber, Float)                                 \
  X(Hypot, hypot, Hypot, NoNumber, Same)                                  \
  X(BitAnd, bitwise_and, NoGrad, NoGrad, Same)                            \
  X(BitOr, bitwise_or, NoGrad, NoGrad, Same)                              \
  X(BitXor, bitwise_xor, NoGrad, NoGrad, Same)
// clang-format on

// Binary kernels without an in-place method of their own.
// clang-format off: one row per line, as a table
#define GT_BINARY_KERNELS_ONLY(X)                                              \
  X(TruncDiv) X(Maximum) X(Minimum) X(Eq) X(Ne) X(Lt) X(Le) X(Gt) X(Ge) X(LogicalAnd) \
  X(LogicalOr) X(LogicalXor)
// clang-format on

// Helpers to take one column of a row.
#define GT_FIRST_COLUMN(K, ...) K,
