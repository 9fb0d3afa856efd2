"""Named results of ops that return several tensors (``max(dim)``, ``linalg.qr``)."""


class _Named(tuple):
    """A result of several tensors with torch's field names, printed as its structseq."""

    __slots__ = ()
    _name = ""
    _fields = ()

    def __new__(cls, parts):
        return tuple.__new__(cls, parts)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"gradtrack.return_types.{self._name}(\n{body})"

    def __reduce__(self):
        return (type(self), (tuple(self),))


def _field(i):
    return property(lambda self: self[i])


class _ReturnType(_Named):
    """A (values, indices) pair."""

    __slots__ = ()
    _fields = ("values", "indices")
    values, indices = _field(0), _field(1)


class max(_ReturnType):  # noqa: A001 - PyTorch's name
    """``tensor.max(dim)``: the largest values and their indices."""

    __slots__ = ()
    _name = "max"


class min(_ReturnType):  # noqa: A001 - PyTorch's name
    """``tensor.min(dim)``: the smallest values and their indices."""

    __slots__ = ()
    _name = "min"


# the sorts, topk and the order statistics (_ops/scan_sort.py, _ops/reduction.py)
class sort(_ReturnType):
    """``tensor.sort()``: the sorted values and their indices."""

    __slots__ = ()
    _name = "sort"


class topk(_ReturnType):
    """``tensor.topk(k)``: the k largest (or smallest) values and their indices."""

    __slots__ = ()
    _name = "topk"


class kthvalue(_ReturnType):
    """``tensor.kthvalue(k)``: the k-th smallest values and their indices."""

    __slots__ = ()
    _name = "kthvalue"


class median(_ReturnType):
    """``tensor.median(dim)``: the lower medians and their indices."""

    __slots__ = ()
    _name = "median"


class mode(_ReturnType):
    """``tensor.mode(dim)``: the most frequent values and their indices."""

    __slots__ = ()
    _name = "mode"


class cummax(_ReturnType):
    """``tensor.cummax(dim)``: the running maxima and where each was taken."""

    __slots__ = ()
    _name = "cummax"


class cummin(_ReturnType):
    """``tensor.cummin(dim)``: the running minima and where each was taken."""

    __slots__ = ()
    _name = "cummin"


class nanmedian(_ReturnType):
    """``tensor.nanmedian(dim)``: the lower medians of the numbers and their indices."""

    __slots__ = ()
    _name = "nanmedian"


# the factorizations of torch.linalg (_ops/linalg_factor.py)
class linalg_inv_ex(_Named):
    """``linalg.inv_ex(A)``: the inverse and LAPACK's info."""

    __slots__ = ()
    _name, _fields = "linalg_inv_ex", ("inverse", "info")
    inverse, info = _field(0), _field(1)


class linalg_slogdet(_Named):
    """``linalg.slogdet(A)``: the sign and the log of the absolute value of the determinant."""

    __slots__ = ()
    _name, _fields = "linalg_slogdet", ("sign", "logabsdet")
    sign, logabsdet = _field(0), _field(1)


class slogdet(linalg_slogdet):
    """``torch.slogdet(A)``: as ``linalg.slogdet``."""

    __slots__ = ()
    _name = "slogdet"


class linalg_solve_ex(_Named):
    """``linalg.solve_ex(A, B)``: the solution and LAPACK's info."""

    __slots__ = ()
    _name, _fields = "linalg_solve_ex", ("result", "info")
    result, info = _field(0), _field(1)


class linalg_cholesky_ex(_Named):
    """``linalg.cholesky_ex(A)``: the Cholesky factor and LAPACK's info."""

    __slots__ = ()
    _name, _fields = "linalg_cholesky_ex", ("L", "info")
    L, info = _field(0), _field(1)


class linalg_svd(_Named):
    """``linalg.svd(A)``: ``A = U diag(S) Vh``."""

    __slots__ = ()
    _name, _fields = "linalg_svd", ("U", "S", "Vh")
    U, S, Vh = _field(0), _field(1), _field(2)


class svd(_Named):
    """``torch.svd(A)``: ``A = U diag(S) V^T``."""

    __slots__ = ()
    _name, _fields = "svd", ("U", "S", "V")
    U, S, V = _field(0), _field(1), _field(2)


class linalg_qr(_Named):
    """``linalg.qr(A)``: ``A = Q R``."""

    __slots__ = ()
    _name, _fields = "linalg_qr", ("Q", "R")
    Q, R = _field(0), _field(1)


class qr(linalg_qr):
    """``torch.qr(A)``: as ``linalg.qr``."""

    __slots__ = ()
    _name = "qr"


class linalg_eigh(_Named):
    """``linalg.eigh(A)``: the eigenvalues (ascending) and the eigenvectors (columns)."""

    __slots__ = ()
    _name, _fields = "linalg_eigh", ("eigenvalues", "eigenvectors")
    eigenvalues, eigenvectors = _field(0), _field(1)


class aminmax(_Named):
    """``tensor.aminmax()``: the smallest and largest values."""

    __slots__ = ()
    _name, _fields = "aminmax", ("min", "max")
    min, max = _field(0), _field(1)  # noqa: A003 - torch's field names


class histogram(_Named):
    """``gradtrack.histogram(input, bins)``: the counts and the bin edges."""

    __slots__ = ()
    _name, _fields = "histogram", ("hist", "bin_edges")
    hist, bin_edges = _field(0), _field(1)


# the LU factorization (_ops/linalg_lu.py), least squares, frexp
class linalg_lu_factor(_Named):
    """``linalg.lu_factor(A)``: the packed factorization and its pivots."""

    __slots__ = ()
    _name, _fields = "linalg_lu_factor", ("LU", "pivots")
    LU, pivots = _field(0), _field(1)


class linalg_lu_factor_ex(_Named):
    """``linalg.lu_factor_ex(A)``: the packed factorization, its pivots and LAPACK's info."""

    __slots__ = ()
    _name, _fields = "linalg_lu_factor_ex", ("LU", "pivots", "info")
    LU, pivots, info = _field(0), _field(1), _field(2)


class _lu_with_info(linalg_lu_factor_ex):
    """``torch.lu(A, get_infos=True)``: as ``linalg.lu_factor_ex``."""

    __slots__ = ()
    _name = "_lu_with_info"


class linalg_lu(_Named):
    """``linalg.lu(A)``: ``A = P L U``."""

    __slots__ = ()
    _name, _fields = "linalg_lu", ("P", "L", "U")
    P, L, U = _field(0), _field(1), _field(2)


class lu_unpack(linalg_lu):
    """``torch.lu_unpack(LU, pivots)``: as ``linalg.lu``."""

    __slots__ = ()
    _name = "lu_unpack"


class linalg_lstsq(_Named):
    """``linalg.lstsq(A, B)``: the solution, and what the driver gives beside it."""

    __slots__ = ()
    _name, _fields = "linalg_lstsq", ("solution", "residuals", "rank", "singular_values")
    solution, residuals, rank, singular_values = _field(0), _field(1), _field(2), _field(3)


class frexp(_Named):
    """``torch.frexp(x)``: ``x = mantissa * 2 ** exponent``."""

    __slots__ = ()
    _name, _fields = "frexp", ("mantissa", "exponent")
    mantissa, exponent = _field(0), _field(1)


class frexp_out(frexp):
    """``torch.frexp(x, out=...)``: as ``frexp``."""

    __slots__ = ()
    _name = "frexp_out"
