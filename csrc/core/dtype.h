// Scalar types, their names, and PyTorch's type-promotion rules.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"

namespace gradtrack {

/// The dtypes gradtrack supports. The storage dtypes (int8, int16,
/// float16, bfloat16) come last so that tables indexed by the first six keep
/// their rows; promotion is a table (promote_types), not the enum order.
enum class ScalarType : int8_t {
  Bool = 0,
  UInt8,
  Int32,
  Int64,
  Float32,
  Float64,
  Int8,
  Int16,
  Float16,
  BFloat16
};
constexpr int kNumScalarTypes = 10;

size_t itemsize(ScalarType t);
/// float16 and bfloat16: stored as 16-bit words, computed in float32
/// (NOTE [Reduced floats are stored, not computed]).
inline bool is_reduced_float(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16;
}
inline bool is_floating(ScalarType t) {
  return t == ScalarType::Float32 || t == ScalarType::Float64 || is_reduced_float(t);
}
inline bool is_integral(ScalarType t) { return !is_floating(t) && t != ScalarType::Bool; }
/// torch.get_default_dtype(): the dtype of Python floats, of float factories
/// and of integer inputs of float-only ops (float32 unless
/// set_default_dtype changed it; process-wide, as PyTorch's).
ScalarType default_float_type();
void set_default_float_type(ScalarType t);

/// "float32", "int64", ... (the attribute name on the gradtrack module).
const char* dtype_name(ScalarType t);
/// "Float", "Long", ... (PyTorch's ScalarType names, used in cast errors).
const char* scalar_type_name(ScalarType t);
/// "FloatTensor", "LongTensor", ...; bool is "CPUBoolType" (PyTorch's legacy names).
std::string legacy_type_name(ScalarType t, const std::string& module);
/// "float", "double", "long int", ... (C++ names PyTorch prints in .grad errors).
const char* cpp_type_name(ScalarType t);

/// The smaller type that holds both (PyTorch's promote_types table).
ScalarType promote_types(ScalarType a, ScalarType b);
/// PyTorch's "same kind" rule for writing a result of type `from` into `to`.
bool can_cast(ScalarType from, ScalarType to);

/// PyTorch's NotImplementedError "\"<kernel>\" not implemented for '<Type>'",
/// raised where a kernel has no path for a dtype (float16 outside the ops
/// that widen it, NOTE [Reduced floats are stored, not computed]).
[[noreturn]] void throw_not_implemented(const char* kernel, ScalarType t);

/// What kind of value a Python number is; used for wrapped-number promotion.
enum class NumberKind : int8_t { Bool, Int, Float };

/// NOTE [Result type with wrapped numbers]
/// PyTorch ranks operands in three tiers: tensors with dim > 0, 0-dim tensors,
/// and Python numbers. A lower tier can only raise the result's category
/// (bool < integral < floating), never its width within the category:
/// int64 tensor + 2.5 -> float32 (the default float), float64 0-dim + float32
/// vector -> float32, int32 vector + int64 0-dim -> int32.
class ResultTypeState {
 public:
  void add_tensor(ScalarType t, bool zero_dim);
  void add_number(NumberKind k);
  ScalarType result() const;

 private:
  int dim_ = -1, zero_ = -1, wrapped_ = -1;  // -1 means "no operand in this tier"
};

}  // namespace gradtrack

// Runs `body` (a lambda using `scalar_t`) for the runtime dtype `dt`.
#define GT_DISPATCH_CASE(ENUM, TYPE, ...) \
  case ::gradtrack::ScalarType::ENUM: {   \
    using scalar_t = TYPE;                \
    return __VA_ARGS__();                 \
  }
#define GT_DISPATCH_ALL(dt, ...)                     \
  [&] {                                              \
    switch (dt) {                                    \
      GT_DISPATCH_CASE(Bool, bool, __VA_ARGS__)      \
      GT_DISPATCH_CASE(UInt8, uint8_t, __VA_ARGS__)  \
      GT_DISPATCH_CASE(Int32, int32_t, __VA_ARGS__)  \
      GT_DISPATCH_CASE(Int64, int64_t, __VA_ARGS__)  \
      GT_DISPATCH_CASE(Float32, float, __VA_ARGS__)  \
      GT_DISPATCH_CASE(Float64, double, __VA_ARGS__) \
      GT_DISPATCH_CASE(Int8, int8_t, __VA_ARGS__)    \
      GT_DISPATCH_CASE(Int16, int16_t, __VA_ARGS__)  \
      default: break;                                \
    }                                                \
    ::gradtrack::throw_not_implemented(nullptr, dt); \
  }()
#define GT_DISPATCH_NUMERIC(dt, NAME, ...)                                                \
  [&] {                                                                                   \
    switch (dt) {                                                                         \
      GT_DISPATCH_CASE(UInt8, uint8_t, __VA_ARGS__)                                       \
      GT_DISPATCH_CASE(Int32, int32_t, __VA_ARGS__)                                       \
      GT_DISPATCH_CASE(Int64, int64_t, __VA_ARGS__)                                       \
      GT_DISPATCH_CASE(Float32, float, __VA_ARGS__)                                       \
      GT_DISPATCH_CASE(Float64, double, __VA_ARGS__)                                      \
      GT_DISPATCH_CASE(Int8, int8_t, __VA_ARGS__)                                         \
      GT_DISPATCH_CASE(Int16, int16_t, __VA_ARGS__)                                       \
      default: break;                                                                     \
    }                                                                                     \
    throw ::gradtrack::NotImplementedError(::gradtrack::str_cat(                          \
        "\"", NAME, "\" not implemented for '", ::gradtrack::scalar_type_name(dt), "'")); \
  }()
#define GT_DISPATCH_FLOAT(dt, NAME, ...)                                                  \
  [&] {                                                                                   \
    switch (dt) {                                                                         \
      GT_DISPATCH_CASE(Float32, float, __VA_ARGS__)                                       \
      GT_DISPATCH_CASE(Float64, double, __VA_ARGS__)                                      \
      default: break;                                                                     \
    }                                                                                     \
    throw ::gradtrack::NotImplementedError(::gradtrack::str_cat(                          \
        "\"", NAME, "\" not implemented for '", ::gradtrack::scalar_type_name(dt), "'")); \
  }()
