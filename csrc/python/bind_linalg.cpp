// Matrix products as Tensor methods and gradtrack.* functions.
#include "ops/autocast.h"
#include "ops/linalg_lapack.h"
#include "python/tensor_methods.h"

namespace gradtrack::python {

namespace {

using namespace methods;  // NOLINT: the shared binding helpers

void bind_linalg(Cls& cls, py::module_& m) {
  both(
      cls, m, "matmul",
      [](const Tensor& a, const Tensor& b) {
        return ops::autocast::lowered(
            [](const Tensor& x, const Tensor& y) { return ops::matmul(x, y); }, a, b);
      },
      py::arg("other"));
  both(
      cls, m, "mm",
      [](const Tensor& a, const Tensor& b) {
        return ops::autocast::lowered(
            [](const Tensor& x, const Tensor& y) { return ops::mm(x, y); }, a, b);
      },
      py::arg("mat2"));
  both(
      cls, m, "bmm",
      [](const Tensor& a, const Tensor& b) {
        return ops::autocast::lowered(
            [](const Tensor& x, const Tensor& y) { return ops::bmm(x, y); }, a, b);
      },
      py::arg("mat2"));
  both(
      cls, m, "mv", [](const Tensor& a, const Tensor& b) { return ops::mv(a, b); }, py::arg("vec"));
  both(
      cls, m, "dot", [](const Tensor& a, const Tensor& b) { return ops::dot(a, b); },
      py::arg("tensor"));
  both(
      cls, m, "outer", [](const Tensor& a, const Tensor& b) { return ops::outer(a, b); },
      py::arg("vec2"));
  both(
      cls, m, "addmm",
      [](const Tensor& bias, const Tensor& a, const Tensor& b, py::handle beta, py::handle alpha) {
        const Scalar be = number_arg(beta, "addmm", "beta");
        const Scalar al = number_arg(alpha, "addmm", "alpha");
        return ops::autocast::lowered([&](const Tensor& c, const Tensor& x,
                                          const Tensor& y) { return ops::addmm(c, x, y, be, al); },
                                      bias, a, b);
      },
      py::arg("mat1"), py::arg("mat2"), py::kw_only(), py::arg("beta") = 1, py::arg("alpha") = 1);
}

// The factorizations (ops/linalg_factor.cpp) as private entries: the Python face
// (_ops/linalg_factor.py) checks the arguments and raises LinAlgError from info.
void bind_linalg_factor(py::module_& m) {
  py::module_ f =
      m.def_submodule("_linalg", "the factorizations and decompositions of torch.linalg (private)");
  f.def("inv_ex", [](const Tensor& a) { return ops::linalg_inv_ex(a); });
  f.def("det", [](const Tensor& a) { return ops::linalg_det(a); });
  f.def("slogdet", [](const Tensor& a) { return ops::linalg_slogdet(a); });
  f.def("solve_ex", [](const Tensor& a, const Tensor& b, bool left) {
    return ops::linalg_solve_ex(a, b, left);
  });
  f.def("solve_triangular", [](const Tensor& a, const Tensor& b, bool upper, bool left, bool unit) {
    return ops::linalg_solve_triangular(a, b, upper, left, unit);
  });
  f.def("cholesky_ex", [](const Tensor& a, bool upper, bool legacy) {
    return ops::linalg_cholesky_ex(a, upper, legacy);
  });
  f.def("cholesky_solve", [](const Tensor& b, const Tensor& l, bool upper) {
    return ops::cholesky_solve(b, l, upper);
  });
  // The decompositions (ops/linalg_decompose.cpp), checked by _ops/linalg_decompose.py.
  f.def("svd", [](const Tensor& a, bool full_matrices, bool compute_uv) {
    return ops::linalg_svd(a, full_matrices, compute_uv);
  });
  f.def("qr", [](const Tensor& a, int mode) { return ops::linalg_qr(a, mode); });
  f.def("eigh", [](const Tensor& a, bool upper, bool compute_v) {
    return ops::linalg_eigh(a, upper, compute_v);
  });
  // History-free forwards whose nodes the Python face records (ops/linalg_lapack.h).
  f.def("lu_factor", [](const Tensor& a) { return ops::linalg_lu_factor_plain(a); });
  f.def("lu_solve",
        [](const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left, bool adjoint) {
          return ops::linalg_lu_solve_plain(lu, pivots, b, left, adjoint);
        });
  f.def("lstsq", [](const Tensor& a, const Tensor& b, int driver, double rcond, bool vector) {
    return ops::linalg_lstsq_plain(a, b, driver, rcond, vector);
  });
  f.def("matrix_exp", [](const Tensor& a) { return ops::linalg_matrix_exp_plain(a); });
  f.def("frexp", [](const Tensor& x) { return ops::frexp_plain(x); });
}

}  // namespace

void init_linalg(Cls& cls, py::module_& m) {
  bind_linalg(cls, m);
  bind_linalg_factor(m);
}

}  // namespace gradtrack::python
