// THE derivative table: one row per node kind, written at build time from the
// rows of python/gradtrack/_declarations (NOTE [One declaration per op]) into
// formula_rows.inc. The formulas themselves are in autograd/formulas/<area>.cpp.
#include "formula_decls.h"

namespace gradtrack::autograd {

namespace {

// NOTE [Formula rows]
// Each row names what its node saves, as PyTorch's generated nodes do:
// `.saves_input(i, grads)` saves input i when one of the gradients `grads`
// is needed (each of those formulas reads it; PyTorch's should_compute_output),
// `.saves_result()` the output, `.saves_wrapped_number()` a Python number
// operand (x * 2 saves the wrapped 2), and `.wrapped_number_edge()` gives that
// number an edge of its own (None), as PyTorch's wrapped-number tensors have.
// The other columns are FormulaRow's (formulas.h).
constexpr uint8_t ForGrad(int i) { return static_cast<uint8_t>(1u << i); }

class Row {
 public:
  Row(OpKind kind, const char* name, BackwardFn fn) {
    r_.kind = kind;
    r_.name = name;
    r_.fn = fn;
  }
  Row& saves_input(size_t i, uint8_t grads) {
    r_.input_needed_by[i] = grads;
    return *this;
  }
  Row& saves_result() { return set(r_.saves_result); }
  Row& saves_wrapped_number() { return set(r_.saves_scalar); }
  Row& wrapped_number_edge() { return set(r_.scalar_edge); }
  Row& jvp(JvpFn fn) {
    r_.jvp = fn;
    return *this;
  }
  Row& jvp_from_backward() { return set(r_.jvp_from_backward); }
  Row& saves_last_input_first() { return set(r_.saves_last_input_first); }
  Row& unpacks_last_input_first() { return set(r_.unpacks_last_input_first); }
  Row& not_implemented() { return set(r_.not_implemented); }
  Row& takes_absent_grads() { return set(r_.takes_absent_grads); }
  Row& aten_name(const char* name) {
    r_.aten_name = name;
    return *this;
  }
  operator FormulaRow() const { return r_; }  // NOLINT: rows read as a table

 private:
  Row& set(bool& flag) {
    flag = true;
    return *this;
  }
  FormulaRow r_;
};

const FormulaRow kRows[] = {
#include "formula_rows.inc"
};

}  // namespace

const FormulaRow& formula_row(OpKind kind) { return kRows[static_cast<size_t>(kind)]; }

bool formula_table_ok() {
  constexpr size_t n = sizeof(kRows) / sizeof(kRows[0]);
  if (n != static_cast<size_t>(OpKind::NumKinds)) return false;
  for (size_t i = 0; i < n; ++i)
    if (static_cast<size_t>(kRows[i].kind) != i) return false;
  return true;
}

}  // namespace gradtrack::autograd
