// A Python number carried into C++ without becoming a tensor.
#pragma once

#include <cstdint>

#include "core/dtype.h"

namespace gradtrack {

/// A bool, int or float value with the kind it came from (for promotion).
class Scalar {
 public:
  Scalar() : kind_(NumberKind::Int), i_(0), d_(0) {}
  Scalar(bool b) : kind_(NumberKind::Bool), i_(b), d_(b) {}                           // NOLINT
  Scalar(int v) : kind_(NumberKind::Int), i_(v), d_(v) {}                             // NOLINT
  Scalar(int64_t v) : kind_(NumberKind::Int), i_(v), d_(static_cast<double>(v)) {}    // NOLINT
  Scalar(double v) : kind_(NumberKind::Float), i_(static_cast<int64_t>(v)), d_(v) {}  // NOLINT
  /// A Python int in [2**63, 2**64): PyTorch keeps it as an unsigned 64-bit
  /// value, so integer arithmetic wraps (int64 + 2**63) and floats see it exactly.
  static Scalar from_uint64(uint64_t v) {
    Scalar s(static_cast<int64_t>(v));
    s.d_ = static_cast<double>(v);
    s.unsigned_ = true;
    return s;
  }

  NumberKind kind() const { return kind_; }
  bool is_float() const { return kind_ == NumberKind::Float; }
  bool is_bool() const { return kind_ == NumberKind::Bool; }
  bool is_uint64() const { return unsigned_; }
  double to_double() const { return d_; }
  int64_t to_int() const { return i_; }
  /// The value converted to the C++ type T (ints stay exact for integer T).
  template <typename T>
  T to() const {
    if constexpr (std::is_floating_point_v<T>) {
      if (unsigned_) return static_cast<T>(static_cast<uint64_t>(i_));
      return kind_ == NumberKind::Float ? static_cast<T>(d_) : static_cast<T>(i_);
    } else if constexpr (std::is_same_v<T, bool>) {
      return kind_ == NumberKind::Float ? d_ != 0 : i_ != 0;
    } else {
      return kind_ == NumberKind::Float ? static_cast<T>(d_) : static_cast<T>(i_);
    }
  }
  bool equals(double v) const { return kind_ == NumberKind::Float ? d_ == v : i_ == v; }
  /// The dtype of a tensor holding this number alone (torch.tensor(2.5) is float32).
  ScalarType default_dtype() const {
    return kind_ == NumberKind::Bool  ? ScalarType::Bool
           : kind_ == NumberKind::Int ? ScalarType::Int64
                                      : default_float_type();
  }

 private:
  NumberKind kind_;
  bool unsigned_ = false;
  int64_t i_;
  double d_;
};

/// PyTorch's checked conversion of a value written into a tensor (fill_,
/// full, masked_fill, setitem): RuntimeError "value cannot be converted to
/// type int64_t without overflow" when `dtype` cannot hold `value`.
void check_fits(Scalar value, ScalarType dtype);

}  // namespace gradtrack
