"""Where every public ``gradtrack.*`` name and every Tensor method written in Python
comes from, and the one function that installs them.

NOTE [One registry]
``gradtrack``'s namespace and the Python side of the Tensor class are assembled here
and nowhere else: no other module assigns into ``gradtrack``'s namespace or onto
``Tensor``. Each module of ``SOURCES`` says what it gives, in tables of its own:

- ``BOUND``: names of ``gradtrack._C`` that ``gradtrack.*`` takes as they are;
- ``FUNCTIONS``: its Python functions, each ``gradtrack.<fn.__name__>``;
- ``NAMES``: other ``gradtrack.*`` names, ``{name: object}`` (classes, constants);
- ``ALIASES``: ``{name: other}``: ``gradtrack.<name>`` is ``gradtrack.<other>``,
  wrappers included;
- ``METHODS``: Tensor attributes, ``{name: method, property or value}``.

``REEXPORTS`` names what the modules without tables (grad modes, printing, DLPack)
give. A name given twice fails the import, whichever two sources give it, so the
order of ``SOURCES`` never decides what a name is; a Python method never replaces a
C++ one unless ``REPLACES_CXX`` says why. The one exception is temporary: an open profile
puts timers on the public ops and puts the installed objects back when it closes (NOTE
[Profiled ops are swapped in] in ``autograd/_profiled_ops.py``).

:func:`install` then runs a fixed pipeline, each step on the result of the last:

1. the raw functions: the ``_C``-bound names and every source's functions and names;
2. the wrappers that add keywords: ``layout=``/``pin_memory=`` on the factories
   (``_ops/creation.py``), then ``out=`` (``_out.py``: from the op list's rows and
   its rules table), then the aliases, which name the wrapped function;
3. the Tensor methods, then the names of the Python functions among them and in the
   namespace (NOTE [A function says its public name]);
4. the docstrings of the names bound in C++ or made in loops (``_docs``), which
   document what steps 1-3 made;
5. Tensor's number slots (``+ - * /`` without a Python frame: NOTE [Number slots] in
   csrc/python/bind_fast_ops.cpp), last: a later ``Tensor.__add__ = ...`` would drop
   them, which ``tests/test_op_fast_paths.py`` notices.
"""

import importlib
import types

from . import _C, _docs, _out
from ._ops import creation

# The modules that give names, with what each holds (their tables are described above).
SOURCES = (
    "_ops.pointwise",   # elementwise math: the op list, clamp, lerp, isclose, float_power, ...
    "_ops.reduction",   # sums, extremes, statistics, order statistics, norm, max/min
    "_ops.statistics",  # nansum/nanmean/nanmedian, aminmax, quantiles, histograms, cov, dist
    "_ops.views",       # results sharing their input's storage: movedim, broadcasting, splits
    "_ops.shape",       # copies that rearrange or join: triangles, flips, repeats, hstack, ...
    "_ops.indexing",    # gather/scatter, masks, nonzero, take_along_dim, where
    "_ops.scan_sort",   # cumsum/cumprod/diff, sort/topk, searchsorted/bucketize
    "_ops.linalg",      # products and contractions: mm, baddbmm, einsum, tensordot, cdist
    "_ops.linalg_factor",  # inverse, det, slogdet, logdet, cholesky, cholesky_solve
    "_ops.linalg_decompose",  # svd, qr (torch's older forms and methods)
    "_ops.linalg_lu",   # lu_unpack, torch's older lu and lu_solve
    "_ops.frexp",       # frexp
    "_ops.round_decimals",  # round with torch's decimals=
    "_ops.python_callables",  # Tensor.apply_, map_, map2_: a Python callable per element
    "_ops.polygamma_inplace",  # Tensor.polygamma_, recorded as torch records it
    "_ops.complex_parts",  # conj, real, imag & co. as they act on real tensors
    "_ops.poisson",     # poisson: torch's sampler, draw for draw
    "_ops.binomial",    # binomial: torch's sampler, draw for draw
    "_ops.gamma_draws",  # _standard_gamma, _sample_dirichlet and their gradients
    "_ops.nn",          # softmax, log_softmax, cosine_similarity
    "_ops.nn_layers",   # torch.conv2d, torch.batch_norm, ...: nn.functional with ATen's parameters
    "_ops.nn_native",   # native_layer_norm & co.: the layers with the statistics they save
    "_ops.creation",    # factories, *_like, as_tensor, Tensor.new_*, layout
    "_ops.unique",      # unique, unique_consecutive
    "_ops.creation_sequences",  # logspace, range, the window functions
    "_ops.view_copies",  # the *_copy functions, narrow_copy, the unsafe_* splits
    "_ops.nn_losses",   # torch.kl_div & co.: nn.functional's losses with an int reduction
    "_ops.conversion",  # asarray, frombuffer, scalar_tensor
    "_runtime_queries",  # typename, is_storage, get_device, has_lapack & co.
    "random",           # the generator, seeds, random factories and fills
    "_dtypes",          # the dtypes, finfo/iinfo, promotion
    "_tensor",          # the Tensor class: autograd fields, hooks, conversions, printing
    "_inplace",         # every in-place method and augmented assignment
    "_ops.inplace_functions",  # torch.abs_(x) & co.: the in-place methods as functions
    "_legacy",          # torch's older conventions: device, default dtype, FloatTensor & co.
    "_saving",          # save, load
    "_memory_format",   # channels_last & co.; contiguous, is_contiguous, clone with formats
    "_shared_memory",   # share_memory_, is_shared: storages other processes map
    "_typed_storage",   # Tensor.storage(), TypedStorage: torch's older view of the memory
    "_settings",        # matmul precision, deterministic algorithms, inter-op threads
    "amp.autocast_mode",  # autocast regions and their state
    "compiler",         # compile: gradtrack has no compiler, the model runs as it is
)
# What the modules without tables of their own give gradtrack.*.
REEXPORTS = {
    "_C": ("get_num_threads", "set_num_threads", "set_flush_denormal"),
    "_size": ("Size",),
    "_tensor_str": ("set_printoptions",),
    "autograd.grad_mode": ("enable_grad", "inference_mode", "is_grad_enabled",
                           "is_inference_mode_enabled", "no_grad", "set_grad_enabled"),
    "autograd.anomaly_mode": ("is_anomaly_check_nan_enabled", "is_anomaly_enabled",
                              "set_anomaly_enabled"),
    "utils.dlpack": ("from_dlpack", "to_dlpack"),
    "func": ("vmap",),
    "amp": ("GradScaler",),
}
# ... and Tensor: {module: {method name: name in the module}}.
TENSOR_REEXPORTS = {
    "utils.dlpack": {"__dlpack__": "dlpack", "__dlpack_device__": "dlpack_device"},
}
# Tensor attributes bound in C++ that a Python one replaces, and why.
REPLACES_CXX = {
    "requires_grad": "the setter applies torch's leaf and dtype rules (_tensor.py)",
    "split": "torch's parameter names, split_size and dim (_ops/views.py)",
    "contiguous": "takes torch's memory_format= (_memory_format.py)",
    "is_contiguous": "takes torch's memory_format= (_memory_format.py)",
    "clone": "takes torch's memory_format= (_memory_format.py)",
    "round": "takes torch's decimals= (_ops/round_decimals.py)",
    "scatter": "takes torch's reduce= (_ops/scatter_with_reduce.py)",
    "gather": "takes torch's sparse_grad= (_ops/indexing.py)",
}


# The C++ class's own attributes: this module loads before the pipeline attaches any.
_CXX_TENSOR = frozenset(vars(_C.Tensor))


def _modules():
    return [importlib.import_module(f"{__package__}.{name}") for name in SOURCES]


def _give(table, name, value, source, given, owner="gradtrack"):
    """``table[name] = value``, unless a source gave ``name`` already (``given``: name -> source)."""
    if name in given:
        raise RuntimeError(f"{owner}.{name} is given twice: by {given[name]} and by {source}")
    table[name] = value
    given[name] = source


def functions(modules):
    """Step 1's names, {name: object}, and the aliases, {name: other name}."""
    names, aliases, given = {}, {}, {}
    for module in modules:
        source = module.__name__
        for name in getattr(module, "BOUND", ()):
            _give(names, name, getattr(_C, name), source, given)
        for fn in getattr(module, "FUNCTIONS", ()):
            _give(names, fn.__name__, fn, source, given)
        for name, value in getattr(module, "NAMES", {}).items():
            _give(names, name, value, source, given)
        for name, other in getattr(module, "ALIASES", {}).items():
            _give(aliases, name, other, source, given)
    for module_name, exported in REEXPORTS.items():
        module = importlib.import_module(f"{__package__}.{module_name}")
        for name in exported:
            _give(names, name, getattr(module, name), module.__name__, given)
    return names, aliases


def methods(modules):
    """Step 3's Tensor attributes, {name: object}."""
    table, given = {}, {}
    for module in modules:
        for name, value in getattr(module, "METHODS", {}).items():
            _give(table, name, value, module.__name__, given, "Tensor")
    for module_name, exported in TENSOR_REEXPORTS.items():
        module = importlib.import_module(f"{__package__}.{module_name}")
        for name, attribute in exported.items():
            _give(table, name, getattr(module, attribute), module.__name__, given, "Tensor")
    replaced = sorted(set(table) & (_CXX_TENSOR - set(REPLACES_CXX)))
    if replaced:
        raise RuntimeError(f"Python methods would replace the C++ Tensor's {replaced}: say why "
                           "in REPLACES_CXX, or give them another name")
    return table


# NOTE [A function says its public name]
# Python prints a function's __qualname__ in the errors of a call whose arguments do
# not bind ("asin() got an unexpected keyword argument" for gradtrack.arcsin), and
# pickle finds a function by __module__ and __qualname__. A Python function under a
# public name therefore says that name: gradtrack.<name> is "<name>" in module
# "gradtrack"; a Tensor method is "<name>" in module "gradtrack._tensor_methods" (which
# hands pickle the method), as torch's C++ methods name themselves, except the methods
# torch writes in Python, "Tensor.<name>" in "gradtrack" as torch prints them. Methods
# made in a loop (_unary.<locals>.method), private helpers (_norm_method) and aliases all
# said another. A function given under two names (an alias, or a function that is also
# a method) is copied for the second, as torch's are two objects.
_TORCH_PYTHON_METHODS = frozenset((
    "backward", "is_shared", "lu", "norm", "register_hook", "register_post_accumulate_grad_hook",
    "share_memory_", "split", "storage", "unflatten", "unique", "unique_consecutive"))
_FAST_PATH = type(_C._fast_path(abs, abs, ()))


def _say_public_names(namespace, tensor_methods):
    """Names the Python functions of ``namespace`` and ``tensor_methods`` (replacing the
    entries that had to be copied); returns the (copy, original) pairs, whose docstrings
    are attached later, to the original."""
    claimed, copies = set(), []

    def named(fn, name, qualname, module, top=True):
        if type(fn) is _FAST_PATH:  # both of its functions (_wrappers.fast_path)
            fast = named(fn._gt_fast, name, qualname, module, False)
            slow = named(fn._gt_slow, name, qualname, module, True)  # pickle reads the slow one
            if fast is fn._gt_fast and slow is fn._gt_slow:
                return fn
            return _C._fast_path(fast, slow, fn._gt_triggers)
        if not isinstance(fn, types.FunctionType) or not fn.__module__.startswith("gradtrack"):
            return fn
        if id(fn) in claimed:
            original, fn = fn, _copy_function(fn)
            copies.append((fn, original))
        fn.__name__, fn.__qualname__ = name, qualname
        if top:  # where pickle finds it
            fn.__module__ = module
        claimed.add(id(fn))
        return fn

    # the functions whose own name is their public name first: an alias is the copy
    ordered = sorted(namespace.items(), key=lambda kv: getattr(kv[1], "__name__", None) != kv[0])
    for name, value in ordered:
        if not name.startswith("_"):
            namespace[name] = named(value, name, name, "gradtrack")
    for name, value in tensor_methods.items():
        if name.startswith("__"):
            continue
        if name in _TORCH_PYTHON_METHODS:
            tensor_methods[name] = named(value, name, f"Tensor.{name}", "gradtrack")
        else:
            tensor_methods[name] = named(value, name, name, "gradtrack._tensor_methods")
    return copies


def _copy_function(fn):
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__module__ = fn.__module__
    copy.__dict__.update(fn.__dict__)
    copy.__doc__ = fn.__doc__
    copy.__annotations__ = dict(fn.__annotations__)
    return copy


# gradtrack's namespace once assembled: the submodules that give torch's other names
# for its functions (gradtrack.special) read them here, not through `import gradtrack`.
INSTALLED = {}


def install(namespace):
    """Assembles ``namespace`` (gradtrack's) and the Tensor class: NOTE [One registry]."""
    modules = _modules()
    names, aliases = functions(modules)
    # 1. the raw functions
    namespace.update(names)
    # 2. the wrappers that add keywords, then the aliases of what they made
    creation.wrap(namespace)
    _out.wrap(namespace)
    for name, other in aliases.items():
        namespace[name] = namespace[other]
    # 3. the Tensor methods, and the names every Python function says
    tensor_methods = methods(modules)
    copies = _say_public_names(namespace, tensor_methods)
    for name, value in tensor_methods.items():
        setattr(_C.Tensor, name, value)
    # 4. the docstrings; a copy made for a second name reads its original's
    _docs.attach()
    for copy, original in copies:
        if ">>>" not in (copy.__doc__ or ""):
            copy.__doc__ = original.__doc__
    # 5. the number slots, after every assignment to Tensor's attributes
    _C._install_number_slots()
    INSTALLED.update(namespace)
