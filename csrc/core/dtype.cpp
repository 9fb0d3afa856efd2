#include "core/dtype.h"

#include <atomic>
#include <cfloat>
#include <cmath>

#include "core/error.h"
#include "core/scalar.h"

namespace gradtrack {

size_t itemsize(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
    case ScalarType::UInt8:
    case ScalarType::Int8: return 1;
    case ScalarType::Int16:
    case ScalarType::Float16:
    case ScalarType::BFloat16: return 2;
    case ScalarType::Int32:
    case ScalarType::Float32: return 4;
    case ScalarType::Int64:
    case ScalarType::Float64: return 8;
  }
  return 0;
}

const char* dtype_name(ScalarType t) {
  static const char* names[] = {"bool",    "uint8", "int32", "int64",   "float32",
                                "float64", "int8",  "int16", "float16", "bfloat16"};
  return names[static_cast<int>(t)];
}

const char* scalar_type_name(ScalarType t) {
  static const char* names[] = {"Bool",   "Byte", "Int",   "Long", "Float",
                                "Double", "Char", "Short", "Half", "BFloat16"};
  return names[static_cast<int>(t)];
}

std::string legacy_type_name(ScalarType t, const std::string& module) {
  // PyTorch prints bool as the backend-qualified "CPUBoolType" (measured, §5).
  if (t == ScalarType::Bool) return "CPUBoolType";
  static const char* names[] = {
      "",           "ByteTensor",  "IntTensor",  "LongTensor",    "FloatTensor", "DoubleTensor",
      "CharTensor", "ShortTensor", "HalfTensor", "BFloat16Tensor"};
  return module + "." + names[static_cast<int>(t)];
}

const char* cpp_type_name(ScalarType t) {
  static const char* names[] = {"bool",      "unsigned char", "int",         "long int",
                                "float",     "double",        "signed char", "short int",
                                "c10::Half", "c10::BFloat16"};
  return names[static_cast<int>(t)];
}

void throw_not_implemented(const char* kernel, ScalarType t) {
  if (kernel) {
    throw NotImplementedError(
        str_cat("\"", kernel, "\" not implemented for '", scalar_type_name(t), "'"));
  }
  throw NotImplementedError(str_cat("not implemented for '", scalar_type_name(t), "'"));
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  // PyTorch's promotion table, rows and columns in ScalarType order (measured
  // with torch.promote_types): uint8 with int8 is int16, float16 with
  // bfloat16 is float32, a reduced float with any integer stays itself.
  static const int8_t table[kNumScalarTypes][kNumScalarTypes] = {
      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 2, 3, 4, 5, 7, 7, 8, 9},
      {2, 2, 2, 3, 4, 5, 2, 2, 8, 9}, {3, 3, 3, 3, 4, 5, 3, 3, 8, 9},
      {4, 4, 4, 4, 4, 5, 4, 4, 4, 4}, {5, 5, 5, 5, 5, 5, 5, 5, 5, 5},
      {6, 7, 2, 3, 4, 5, 6, 7, 8, 9}, {7, 7, 2, 3, 4, 5, 7, 7, 8, 9},
      {8, 8, 8, 8, 4, 5, 8, 8, 8, 4}, {9, 9, 9, 9, 4, 5, 9, 9, 4, 9}};
  return static_cast<ScalarType>(table[static_cast<int>(a)][static_cast<int>(b)]);
}

namespace {

// PyTorch's c10::overflows: a float fits an integer type inside its range, a
// float type up to its largest finite value (inf and nan pass); a negative
// int fits an unsigned type when its magnitude does (it wraps, -1 -> 255).
// Integer range of an integer dtype.
void int_range(ScalarType t, double& lo, double& hi) {
  switch (t) {
    case ScalarType::UInt8: lo = 0.0, hi = 255.0; return;
    case ScalarType::Int8: lo = -128.0, hi = 127.0; return;
    case ScalarType::Int16: lo = -32768.0, hi = 32767.0; return;
    case ScalarType::Int32: lo = -2147483648.0, hi = 2147483647.0; return;
    default: lo = -9223372036854775808.0, hi = 9223372036854775807.0; return;
  }
}

bool overflows(Scalar v, ScalarType to) {
  // float16 and bfloat16 take every value (1e5 becomes inf), as in PyTorch.
  if (to == ScalarType::Bool || to == ScalarType::Float64 || is_reduced_float(to) || v.is_bool())
    return false;
  if (v.is_float()) {
    double d = v.to_double();
    if (to == ScalarType::Float32) return std::isfinite(d) && (d > FLT_MAX || d < -FLT_MAX);
    if (std::isnan(d)) return true;
    double lo, hi;
    int_range(to, lo, hi);
    return d < lo || d > hi;
  }
  if (to == ScalarType::Float32) return false;
  if (v.is_uint64()) return true;
  int64_t i = v.to_int();
  if (to == ScalarType::UInt8) return i > 255 || i < -255;
  if (to == ScalarType::Int32) return i < INT32_MIN || i > INT32_MAX;
  if (to == ScalarType::Int8) return i < INT8_MIN || i > INT8_MAX;
  if (to == ScalarType::Int16) return i < INT16_MIN || i > INT16_MAX;
  return false;
}

const char* checked_type_name(ScalarType t) {
  static const char* names[] = {"bool",   "uint8_t", "int",     "int64_t", "float",
                                "double", "int8_t",  "int16_t", "Half",    "BFloat16"};
  return names[static_cast<int>(t)];
}

}  // namespace

void check_fits(Scalar value, ScalarType dtype) {
  GT_CHECK(!overflows(value, dtype), "value cannot be converted to type ", checked_type_name(dtype),
           " without overflow");
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

namespace {
int category(int t) {
  if (t < 0) return -1;
  auto st = static_cast<ScalarType>(t);
  return st == ScalarType::Bool ? 0 : is_floating(st) ? 2 : 1;
}
int promote(int a, int b) {
  if (a < 0) return b;
  if (b < 0) return a;
  return static_cast<int>(promote_types(static_cast<ScalarType>(a), static_cast<ScalarType>(b)));
}
// PyTorch's combine_categories: `lower` only matters if its category is higher.
int combine(int higher, int lower) {
  if (higher < 0) return lower;
  if (lower < 0) return higher;
  if (category(higher) == 2) return higher;
  if (category(higher) == 0 || category(lower) == 2) return promote(higher, lower);
  return higher;
}
}  // namespace

namespace {
std::atomic<int8_t> g_default_float{static_cast<int8_t>(ScalarType::Float32)};
}  // namespace

ScalarType default_float_type() { return static_cast<ScalarType>(g_default_float.load()); }
void set_default_float_type(ScalarType t) { g_default_float.store(static_cast<int8_t>(t)); }

void ResultTypeState::add_tensor(ScalarType t, bool zero_dim) {
  int& slot = zero_dim ? zero_ : dim_;
  slot = promote(slot, static_cast<int>(t));
}

void ResultTypeState::add_number(NumberKind k) {
  // A wrapped number counts as the default type of its kind.
  ScalarType t = k == NumberKind::Bool  ? ScalarType::Bool
                 : k == NumberKind::Int ? ScalarType::Int64
                                        : default_float_type();
  wrapped_ = promote(wrapped_, static_cast<int>(t));
}

ScalarType ResultTypeState::result() const {
  int r = combine(dim_, combine(zero_, wrapped_));
  return r < 0 ? default_float_type() : static_cast<ScalarType>(r);
}

}  // namespace gradtrack
