"""gradtrack: PyTorch's autograd semantics, in-place rules included, in a small
library with a C++ core.

>>> import gradtrack
>>> X = gradtrack.tensor([[5., 1., 9.], [6., 5., 7.]], requires_grad=True)
>>> (X ** 2).sum().backward()
>>> X.grad
tensor([[10.,  2., 18.],
        [12., 10., 14.]])
"""

__version__ = "0.1.0"


def _load_core():
    # NOTE [One thread pool] (csrc/kernels/parallel.h): OpenBLAS reads
    # OPENBLAS_NUM_THREADS once, when it loads; with 1 it starts no worker
    # threads to spin beside OpenMP's. libgomp likewise reads GOMP_SPINCOUNT
    # once: by default its idle workers spin 300 000 rounds after every
    # parallel region, about 10 ms with this generation's slow PAUSE, taking
    # the cores from other threads and processes (measured: a second process
    # summing 16M floats ran 1.5-3x slower beside them). 10 000 rounds keep the
    # back-to-back kernels of one training step on warm threads. A user's own
    # GOMP_SPINCOUNT / OMP_WAIT_POLICY wins, and a libgomp that another library
    # loaded first keeps its settings. The variables are restored right after,
    # so the user's environment (and their subprocesses) see no change.
    import os
    wanted = {"OPENBLAS_NUM_THREADS": "1"}
    if "GOMP_SPINCOUNT" not in os.environ and "OMP_WAIT_POLICY" not in os.environ:
        wanted["GOMP_SPINCOUNT"] = "10000"
    previous = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    try:
        return _load_extension()
    finally:
        for name, value in previous.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


def _load_extension():
    # Normal installs find OpenBLAS through the extension's RPATH. Elsewhere
    # (an editable build tree), load the library by path first; importing
    # scipy_openblas32 itself would cost ~50 ms (measured).
    try:
        from . import _C
    except ImportError as e:
        if "libscipy_openblas" not in str(e):
            raise
        import ctypes
        import importlib.util
        import os
        spec = importlib.util.find_spec("scipy_openblas32")
        libdir = os.path.join(os.path.dirname(spec.origin), "lib")
        ctypes.CDLL(os.path.join(libdir, "libscipy_openblas.so"), mode=ctypes.RTLD_GLOBAL)
        from . import _C
    return _C


_C = _load_core()
# Frames inside this package are skipped when recording where an op was called.
# The package's own Python files are beside this one: __path__[0] is not them in
# an editable (developer) install, where it names the build's platlib folder first.
_C._set_package_dir(__file__[:-len("__init__.py")])

from ._size import Size  # noqa: E402
from . import _tensor, _tensor_str  # noqa: E402
from ._C import Tensor, dtype  # noqa: E402
from ._C import (  # noqa: E402,F401
    abs, add, addmm, all, amax, any, argmax, argmin, arange, as_strided, bmm, cat, ceil, chunk,
    clamp, clone, concat, cos, div, dot, empty, equal, exp, expm1, eye, flatten, floor,
    floor_divide, from_numpy, full, gather, get_num_threads, index_select, isnan, linspace, log,
    log1p, log_softmax, logical_and, logical_not, logical_or, logical_xor, masked_fill,
    matmul, maximum, mean, minimum, mm, mul, mv, narrow, neg, ones, outer, permute, pow, prod, rand,
    randint, randn, randperm, reciprocal, relu, remainder, reshape, round, rsqrt, rsub, scatter,
    scatter_add, select, set_num_threads, sigmoid, sign, sin, softmax, split, sqrt, square,
    squeeze, stack, sub,
    sum, swapaxes, t, tanh, tensor, transpose, trunc, unbind, unsqueeze, where, zeros,
    eq, ne, lt, le, gt, ge, bitwise_not,
)
from ._tensor_str import set_printoptions  # noqa: E402
from .autograd.grad_mode import (  # noqa: E402
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
    set_grad_enabled,
)
from . import autograd, return_types  # noqa: E402
from .autograd.anomaly_mode import (  # noqa: E402
    is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled,
)

_tensor.install(Tensor)

# Every op of the op list has a module function (gradtrack.tan, gradtrack.fmod, ...).
for _name in list(_C._inplace.ops) + ["clamp_min", "clamp_max", "isinf", "isposinf",
                                      "isneginf", "isfinite", "signbit", "masked_select", "amin"]:
    if hasattr(_C, _name):
        globals().setdefault(_name, getattr(_C, _name))


def true_divide(input, other):  # noqa: A002 - torch's argument names
    """Alias of :func:`div` without rounding."""
    return div(input, other)


def split(tensor, split_size_or_sections, dim=0):
    """Splits ``tensor`` into chunks of ``split_size_or_sections`` (a size or a list of sizes)."""
    return Tensor.split(tensor, split_size_or_sections, dim)
del _name


def _rebuild_tensor(array, requires_grad):
    t = tensor(array)
    t.requires_grad_(requires_grad)
    return t


def _like(kind):
    if kind in ("rand", "randn"):
        def factory(input, *, generator=None, dtype=None, layout=None, device=None,  # noqa: A002
                    requires_grad=False, memory_format=None):
            _C._ops.check_device(device)
            return _C._like(kind, input, dtype, requires_grad, None, generator)
    else:
        def factory(input, *, dtype=None, layout=None, device=None,  # noqa: A002
                    requires_grad=False, memory_format=None):
            _C._ops.check_device(device)
            return _C._like(kind, input, dtype, requires_grad, None)
    factory.__name__ = kind + "_like"
    factory.__doc__ = f"A new tensor shaped like ``input``, filled as by ``{kind}``."
    return factory


zeros_like = _like("zeros")
ones_like = _like("ones")
empty_like = _like("empty")
rand_like = _like("rand")
randn_like = _like("randn")


def full_like(input, fill_value, *, dtype=None, layout=None, device=None,  # noqa: A002
              requires_grad=False, memory_format=None):
    """A new tensor shaped like ``input`` filled with ``fill_value``."""
    _C._ops.check_device(device)
    return _C._like("full", input, dtype, requires_grad, fill_value, None)


def is_tensor(obj):
    """True if ``obj`` is a gradtrack Tensor (or a subclass such as Parameter)."""
    return isinstance(obj, Tensor)


def is_floating_point(input):  # noqa: A002
    """True if ``input`` has a floating-point dtype."""
    return input.dtype.is_floating_point


def numel(input):  # noqa: A002
    """The number of elements of ``input``."""
    return input.numel()


def max(input, dim=None, keepdim=False):  # noqa: A001 - PyTorch's name
    """The largest element, or (values, indices) along ``dim``, or elementwise with a tensor."""
    return Tensor.max(input, dim, keepdim)


def min(input, dim=None, keepdim=False):  # noqa: A001
    """The smallest element, or (values, indices) along ``dim``, or elementwise with a tensor."""
    return Tensor.min(input, dim, keepdim)


def clip(input, min=None, max=None):  # noqa: A002
    """Alias of :func:`clamp`."""
    return clamp(input, min, max)


def as_tensor(data, dtype=None, device=None):
    """``data`` as a tensor, sharing memory when it already is a tensor or a
    NumPy array of that dtype (as ``torch.as_tensor`` does)."""
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype is dtype else data.to(dtype)
    if type(data).__module__ == "numpy" and type(data).__name__ == "ndarray":
        try:
            aliased = from_numpy(data)
        except (TypeError, ValueError):
            aliased = None
        if aliased is not None and (dtype is None or aliased.dtype is dtype):
            return aliased
    return tensor(data, dtype=dtype)


# dtype names last: they shadow Python builtins in this module's namespace.
float32 = _C.float32
float64 = _C.float64
int64 = _C.int64
int32 = _C.int32
uint8 = _C.uint8
globals()["bool"] = _C.bool
globals()["float"] = _C.float32
globals()["int"] = _C.int32
double = _C.float64
long = _C.int64
# int8/int16 and the float16/bfloat16 storage dtypes (issue 19)
int8 = _C.int8
int16 = _C.int16
short = _C.int16
float16 = _C.float16
half = _C.float16
bfloat16 = _C.bfloat16

from . import __config__, nn, optim  # noqa: E402

# DLPack exchange (NumPy, torch, ...): zero-copy through NumPy's implementation.
from .utils.dlpack import dlpack as _dlpack, dlpack_device as _dlpack_device  # noqa: E402
from .utils.dlpack import from_dlpack  # noqa: E402,F401

Tensor.__dlpack__ = _dlpack
Tensor.__dlpack_device__ = _dlpack_device


def save(obj, f):
    """Saves ``obj`` (tensors, numbers, strings, nested dicts/lists) to ``f``
    in a safe format: a zip of ``.npy`` arrays and a JSON structure, no pickle.

    (serialization, and NumPy with it, load on first use: ``import gradtrack``
    stays fast.)
    """
    from .serialization import save as _save
    return _save(obj, f)


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None):
    """Loads what :func:`save` wrote; a corrupted or foreign file raises RuntimeError."""
    from .serialization import load as _load
    return _load(f, map_location=map_location, weights_only=weights_only)


# torch's CPU generator (mt19937) and the random fills drawn from it.
from . import random  # noqa: E402
from .random import (  # noqa: E402,F401
    Generator, bernoulli, default_generator, get_rng_state, initial_seed, manual_seed,
    multinomial, normal, randint_like, seed, set_rng_state,
)

for _name, _method in random.METHODS.items():
    setattr(Tensor, _name, _method)
del _name, _method

# distributed (issue 20): torch.distributed's API on MPI; mpi4py loads on init_process_group
from . import distributed  # noqa: E402

# round-2 tensor ops (issue 19): functions and Tensor methods
from . import _extra_ops  # noqa: E402
from ._extra_ops import (  # noqa: E402,F401
    argsort, cumprod, cumsum, flip, logsumexp, roll, sort, std, std_mean, tile, topk, tril, triu,
    var, var_mean,
)

_extra_ops.install(Tensor)
from . import _extra_ops2, linalg  # noqa: E402,F401
from ._extra_ops2 import (  # noqa: E402,F401
    addmv, allclose, baddbmm, cross, diag, diag_embed, diagonal, einsum, isclose, kthvalue, lerp,
    median, mode, nan_to_num, norm, repeat_interleave, tensordot, trace, unique,
)

_extra_ops2.install(Tensor)
from . import _shape_ops  # noqa: E402
from ._shape_ops import (  # noqa: E402,F401
    atleast_1d, atleast_2d, atleast_3d, broadcast_shapes, broadcast_tensors, broadcast_to,
    cartesian_prod, column_stack, cosine_similarity, detach, diff, dsplit, dstack, fix,
    float_power, fliplr, flipud, hsplit, hstack, inner, meshgrid, moveaxis, movedim, positive,
    ravel, row_stack, swapdims, take_along_dim, tensor_split, vsplit, vstack,
)

_shape_ops.install(Tensor)
from . import _select_ops  # noqa: E402
from ._select_ops import argwhere, count_nonzero, nonzero  # noqa: E402,F401

_select_ops.install(Tensor)

# torch's calling conventions (issue 19): device objects, default dtype/device,
# legacy tensor types, the CPU-only device modules
from . import _legacy, accelerator, backends, cuda, functional  # noqa: E402,F401
from ._legacy import (  # noqa: E402,F401
    device, get_default_device, get_default_dtype, set_default_device, set_default_dtype,
)

globals().update(_legacy.LEGACY_TYPES)
Tensor.type = _legacy.tensor_type
autograd.Variable = _legacy.Variable

# searchsorted, bucketize, cdist (issue 19)
from ._search_ops import bucketize, cdist, searchsorted  # noqa: E402,F401

# unique(dim=...) and unique_consecutive (issue 19)
from . import _unique  # noqa: E402
from ._unique import unique, unique_consecutive  # noqa: E402,F401

_unique.install(Tensor)

# layout= and pin_memory= on every factory, Tensor.layout (issue 19)
from . import _factories  # noqa: E402

_factories.install(globals(), Tensor)

# out= on every function that takes it in torch (NOTE [out= rules] in _out.py)
from . import _out  # noqa: E402

_out.wrap(globals())
row_stack = vstack

# dtype queries (issue 19): finfo/iinfo and the promotion rules
from ._dtypes import can_cast, finfo, iinfo, promote_types, result_type  # noqa: E402,F401

# docstrings of the C++-bound names and generated functions (issue 22): gradtrack/_docs.
# Keep this block last: it documents the names every block above has made.
from . import _docs  # noqa: E402

_docs.attach()

# Tensor's fast + - * / (issue 21, NOTE [Number slots] in csrc/python/bind_fast_ops.cpp):
# after every assignment to Tensor's attributes above.
_C._install_number_slots()
