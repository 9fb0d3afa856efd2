"""The timers a profile puts on gradtrack's public ops while it is open, and takes off when
it closes (NOTE [What the profiler times] in ``profiler.py``).

NOTE [Profiled ops are swapped in]
torch's dispatcher asks "is a profiler on?" in every op; gradtrack asks nothing. Opening a
profile replaces the public ops (``gradtrack.*``, ``gradtrack.nn.functional.*``,
``gradtrack.linalg.*``, ``gradtrack.special.*`` and the Tensor methods, operator slots
included: ``a + b``, ``a @ b``, ``-a``, ``a[i]``, ``a += b``) with timers that call the op
and record an event named as torch's (``aten::add``, ``aten::matmul``, ``aten::select``,
``aten::add_``...), with every argument's shape when ``record_shapes=True`` (``[]`` for a
number or any other non-tensor, padded to the number of arguments torch's schema has, as
torch records them). Closing it puts the original objects back (and Tensor's fast number
slots: NOTE [Number slots] in csrc/python/bind_fast_ops.cpp). So an op costs nothing more
when no profile is open, not even a branch; the price is that a reference to an op taken
before the profile opened (``from gradtrack import exp``) is not timed.
"""

import sys
import threading
import time

from .. import _C

_BUILTIN = type(len)
_now = time.perf_counter_ns
_native_id = threading.get_native_id

# Public callables that are not ops: torch records no event for them.
_NOT_OPS = frozenset({
    "dim", "size", "stride", "numel", "nelement", "ndimension", "data_ptr", "element_size",
    "storage_offset", "get_device", "requires_grad_", "retain_grad", "register_hook",
    "register_post_accumulate_grad_hook", "type", "backward", "tolist", "numpy", "untyped_storage",
    "storage", "untyped_storage_ptr", "dim_order", "share_memory_", "manual_seed", "seed",
    "initial_seed", "typename", "compile", "load", "save", "from_numpy", "from_dlpack",
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled", "broadcast_shapes",
    "promote_types", "can_cast", "vmap", "cpu", "cuda", "pin_memory", "apply_", "map_",
    "storage_type", "new_tensor", "has_names", "align_to", "refine_names", "rename", "rename_",
    "unflatten_names", "sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "cond",
    "__init__", "__repr__", "__str__", "__format__", "__bool__", "__float__", "__int__",
    "__index__", "__len__", "__iter__", "__hash__", "__reduce__", "__reduce_ex__",
    "__deepcopy__", "__copy__", "__setstate__", "__getstate__", "__array__", "__array_wrap__",
    "__dlpack__", "__dlpack_device__", "__contains__", "__reversed__", "__complex__",
    "__torch_function__", "__getattr__", "__dir__", "__sizeof__", "__class_getitem__",
    "__new__", "__del__", "tensor",
})
_NOT_OP_PREFIXES = ("is_", "get_", "set_", "_")

# Operator slots and the op torch records for them.
_SLOTS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_",
    "__sub__": "sub", "__rsub__": "rsub", "__isub__": "sub_",
    "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_",
    "__truediv__": "div", "__rtruediv__": "reciprocal", "__itruediv__": "div_",
    "__floordiv__": "floor_divide", "__rfloordiv__": "floor_divide",
    "__ifloordiv__": "floor_divide_",
    "__mod__": "remainder", "__rmod__": "remainder", "__imod__": "remainder_",
    "__pow__": "pow", "__rpow__": "pow", "__ipow__": "pow_",
    "__matmul__": "matmul", "__rmatmul__": "matmul", "__imatmul__": "matmul",
    "__neg__": "neg", "__pos__": "positive", "__abs__": "abs", "__invert__": "bitwise_not",
    "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
    "__and__": "__and__", "__rand__": "__and__", "__iand__": "__iand__",
    "__or__": "__or__", "__ror__": "__or__", "__ior__": "__ior__",
    "__xor__": "__xor__", "__rxor__": "__xor__", "__ixor__": "__ixor__",
    "__lshift__": "__lshift__", "__rlshift__": "__lshift__", "__ilshift__": "__ilshift__",
    "__rshift__": "__rshift__", "__rrshift__": "__rshift__", "__irshift__": "__irshift__",
}

# Python functions torch's dispatcher knows by another name.
_RENAMED = {"cross_entropy": "cross_entropy_loss", "nll_loss": "nll_loss_nd"}

# How many arguments torch's schema of an op has (the one torch picks for a call without
# ``dim``; a tuple: without and with it); torch records one shape for each. Ops not named
# here record the arguments given.
_ARITY = {
    "add": 3, "sub": 3, "rsub": 3, "add_": 3, "sub_": 3, "mul": 2, "div": 2, "mul_": 2,
    "div_": 2, "matmul": 2, "mm": 2, "bmm": 2, "addmm": 5, "linear": 3, "select": 3,
    "slice": 5, "index": 2, "index_put_": 4, "sum": (2, 4), "mean": (2, 4), "unsqueeze": 2,
    "transpose": 3, "t": 1, "relu": 1, "neg": 1, "exp": 1, "pow": 2, "eq": 2, "ne": 2,
    "lt": 2, "le": 2, "gt": 2, "ge": 2, "softmax": 3, "log_softmax": 3, "conv1d": 7,
    "conv2d": 7, "conv3d": 7, "max_pool2d": 6, "avg_pool2d": 7, "dropout": 3, "layer_norm": 6,
    "embedding": 5, "gelu": 2, "view": 2, "reshape": 2, "permute": 2, "flatten": 3,
    "cat": 2, "stack": 2, "mse_loss": 3, "cross_entropy_loss": 6, "nll_loss_nd": 5,
    "batch_norm": 9, "clamp": 3, "masked_fill": 3, "where": 3, "fill_": 2, "copy_": 3,
    "zeros": 5, "ones": 5, "randn": 5, "rand": 5, "empty": 6, "unsqueeze_": 2, "zero_": 1,
}


# The C++ type names torch's traces give each dtype ("Input type").
_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
               "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int", "int16": "short",
               "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
               "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _shape(x):
    return list(x.shape) if isinstance(x, _C.Tensor) else []


def _describe(x):
    """An argument as a trace describes it: (dims, strides, type)."""
    if isinstance(x, _C.Tensor):
        return list(x.shape), list(x.stride()), _TYPE_NAMES.get(str(x.dtype).rsplit(".", 1)[-1], "")
    if isinstance(x, (bool, int, float, complex)):
        return [], [], "Scalar"
    if isinstance(x, (list, tuple)) and all(isinstance(i, (bool, int, float)) for i in x):
        return [], [], "ScalarList"
    if isinstance(x, (list, tuple)) and all(isinstance(i, _C.Tensor) for i in x):
        return [], [], "TensorList"
    return [], [], ""


def _shapes(op, args, kwargs):
    """Each argument (dims, strides, type), as many as torch's schema has: the input
    shapes an event records (``[]`` for a non-tensor)."""
    inputs = [_describe(a) for a in args]
    inputs += [_describe(v) for k, v in kwargs.items() if k != "out"]
    arity = _ARITY.get(op)
    if isinstance(arity, tuple):
        arity = arity[1] if len(args) > 1 or "dim" in kwargs else arity[0]
    if arity is not None:
        if len(inputs) < arity:
            inputs += [([], [], "")] * (arity - len(inputs))
        elif not any(dims for dims, _, _ in inputs[arity:]):
            del inputs[arity:]
    return inputs


def _index_op(key):
    """The op torch runs first for ``tensor[key]``."""
    items = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, (_C.Tensor, list)) or type(k) is bool for k in items):
        return "index"
    for k in items:
        if k is None:
            return "unsqueeze"
        if isinstance(k, slice):
            if k == slice(None) and len(items) > 1:
                continue
            return "slice"
        if k is not Ellipsis:
            return "select"
    return "alias"


class _Timers:
    """The events of the open profile, and the originals its timers replaced."""

    def __init__(self, collector):
        self.collector = collector
        self.record_shapes = collector.record_shapes
        self.memory = _C._profiler.allocated_bytes if collector.profile_memory else _no_memory
        self.replaced = []  # (owner, name, original)
        self.timers = {}  # id(op) -> (op, its timer), for the copies modules keep

    def add(self, name, start, shapes, memory):
        self.collector.add_op(name, start, _now(), _native_id(), shapes, self.memory() - memory)

    def timer(self, op, fn):
        name = "aten::" + op
        timers = self

        def timed(*args, **kwargs):
            shapes = _shapes(op, args, kwargs) if timers.record_shapes else None
            memory = timers.memory()
            start = _now()
            try:
                return fn(*args, **kwargs)
            finally:
                timers.add(name, start, shapes, memory)
        timed.__name__ = getattr(fn, "__name__", op)
        timed.__qualname__ = timed.__name__
        timed.__doc__ = getattr(fn, "__doc__", None)
        timed.__wrapped__ = fn
        return timed

    def getitem_timer(self, fn):
        timers = self

        def __getitem__(self, key):
            op = _index_op(key)
            shapes = None
            if timers.record_shapes:  # an index list is one argument, as torch's
                shapes = _shapes(op, (self, [key] if op == "index" else key), {})
            memory = timers.memory()
            start = _now()
            try:
                return fn(self, key)
            finally:
                timers.add("aten::" + op, start, shapes, memory)
        return __getitem__

    def setitem_timer(self, fn):
        timers = self

        def __setitem__(self, key, value):
            shapes = None
            if _index_op(key) == "index":
                op = "index_put_"
                if timers.record_shapes:
                    shapes = _shapes(op, (self, [key], value), {})
            else:
                op = "copy_" if isinstance(value, _C.Tensor) else "fill_"
                if timers.record_shapes:
                    target = _C.Tensor.__getitem__(self, key)
                    shapes = _shapes(op, (target, value), {})
            memory = timers.memory()
            start = _now()
            try:
                return fn(self, key, value)
            finally:
                timers.add("aten::" + op, start, shapes, memory)
        return __setitem__

    def region_timer(self, label, fn):
        """A timer that records a ``record_function``-style region named ``label(self)``."""
        collector, allocated, timers = self.collector, self.memory, self

        def timed(self, *args, **kwargs):
            if timers.replaced is None:
                # kept past its profile: an optimizer's step hooked while it was open
                # (NOTE [Step hooks] in optim/optimizer.py) times nothing more
                return fn(self, *args, **kwargs)
            memory = allocated()
            start = _now()
            try:
                return fn(self, *args, **kwargs)
            finally:
                collector.add_region(label(self), start, _now(), _native_id(),
                                     allocated() - memory)
        timed.__name__ = fn.__name__
        timed.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        timed.__doc__ = fn.__doc__
        timed.__wrapped__ = fn
        if getattr(fn, "hooked", False):  # an optimizer's step that runs its hooks
            timed.hooked = True
        return timed

    def install_regions(self):
        """torch's regions around an optimizer's ``step``/``zero_grad`` and a DataLoader's
        ``__next__``, named by the object's class (``Optimizer.step#AdamW.step``,
        ``enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__``)."""
        optimizer = sys.modules.get("gradtrack.optim.optimizer")
        if optimizer is not None:
            classes, todo = [], [optimizer.Optimizer]
            while todo:
                cls = todo.pop()
                classes.append(cls)
                todo += cls.__subclasses__()
            for cls in classes:
                for name in ("step", "zero_grad"):
                    if callable(vars(cls).get(name)):
                        self.replace(cls, name, self.region_timer(
                            lambda opt, n=name: f"Optimizer.{n}#{type(opt).__name__}.{n}",
                            vars(cls)[name]))
        iterators = sys.modules.get("gradtrack.utils.data._iterators")
        if iterators is not None:
            base = iterators._BaseDataLoaderIter
            self.replace(base, "__next__", self.region_timer(
                lambda it: f"enumerate(DataLoader)#{type(it).__name__}.__next__",
                vars(base)["__next__"]))

    def replace(self, owner, name, timer):
        self.replaced.append((owner, name, vars(owner)[name]))
        setattr(owner, name, timer)

    def install(self):
        tensor = _C.Tensor
        for name, value in list(vars(tensor).items()):
            if name == "__getitem__":
                self.replace(tensor, name, self.getitem_timer(_unbound(value)))
            elif name == "__setitem__":
                self.replace(tensor, name, self.setitem_timer(_unbound(value)))
            elif name in _SLOTS:
                self.replace(tensor, name, self.timer(_SLOTS[name], _unbound(value)))
            elif _is_op(name, value):
                self.replace(tensor, name, self.timer(name, _unbound(value)))
        for module, prefix in (("gradtrack", ""), ("gradtrack.nn.functional", ""),
                               ("gradtrack.linalg", "linalg_"), ("gradtrack.special", "special_")):
            module = sys.modules.get(module)
            if module is None:
                continue
            for name, value in list(vars(module).items()):
                if _is_op(name, value) and not isinstance(value, type):
                    op = prefix + _RENAMED.get(name, name)
                    timer = self.timer(op, value)
                    self.timers.setdefault(id(value), (value, timer))
                    self.replace(module, name, timer)

        self.install_captured()
        self.install_regions()

    def install_captured(self):
        """The layers keep ops in module globals (``_relu = _C.relu``, for a call without
        an attribute lookup; ``conv2d`` in the module that defines it): those get the
        public op's timer too."""
        for module in (_C, _C._nn):
            for name, value in vars(module).items():
                if type(value) is _BUILTIN and _is_op(name, value) and id(value) not in self.timers:
                    self.timers[id(value)] = (value, self.timer(_RENAMED.get(name, name), value))
        for module_name, module in list(sys.modules.items()):
            if not module_name.startswith("gradtrack.nn.") or module is None:
                continue
            for name, value in list(vars(module).items()):
                found = self.timers.get(id(value))
                if found is not None and found[0] is value:
                    self.replace(module, name, found[1])

    def uninstall(self):
        for owner, name, original in reversed(self.replaced or ()):
            current = vars(owner).get(name)
            if getattr(current, "hooked", False) and not getattr(original, "hooked", False):
                # the class's first optimizer was made in the profile: its step hooks stay
                # (NOTE [Step hooks] in optim/optimizer.py)
                original = owner.profile_hook_step(original)
                original.hooked = True
            setattr(owner, name, original)
        self.replaced = None
        _C._install_number_slots()


def _no_memory():
    return 0


def _unbound(value):
    """The callable under a Tensor attribute, taking ``self`` first."""
    return getattr(value, "__func__", value)


def _is_op(name, value):
    if name in _NOT_OPS or name.startswith(_NOT_OP_PREFIXES) or not callable(value):
        return False
    return not isinstance(value, (type, property, staticmethod, classmethod))


def install(collector):
    """Puts the timers of ``collector`` on the public ops; returns what takes them off."""
    timers = _Timers(collector)
    timers.install()
    return timers.uninstall


__all__ = []
