"""Reading ``data.pkl``: the restricted unpickler ``load(weights_only=True)`` uses, and
the full one ``weights_only=False`` opts into.

NOTE [The weights-only unpickler]
Python's unpickler calls whatever a pickle names, so a file can run any code. The
weights-only unpickler runs the pickle's opcodes itself and only ever calls a name
on the allow-list: torch 2.13's (tensors, Parameters, storages, dtypes, ``Size``,
``device``, ``OrderedDict``, ``Counter``, ``set``, ``bytearray``, ``complex``, bytes
through ``_codecs.encode``) mapped to gradtrack's objects, plus what the user allowed
with ``add_safe_globals`` / ``safe_globals``. Any other name is refused before
anything runs, with torch's ``UnpicklingError`` and message. It reads the opcodes
torch's reads (protocol 2's), refusing the others as torch does. It keeps its own stack
(no recursion, so no depth limit to hit) and reads each length-prefixed value only
as far as the data holds, so what it builds is bounded by the file's size.
"""

import _compat_pickle
import pickle
import struct
import warnings
from collections import Counter, OrderedDict

from .. import _C
from . import torch_names

_BLOCKED_MODULES = ("sys", "os", "posix", "nt")


def _display_path(full_path):
    # torch names builtins without their module: GLOBAL print, not builtins.print.
    if full_path.startswith("builtins."):
        return full_path[len("builtins."):]
    return full_path


def user_globals(marked):
    """``{"module.qualname": object}`` for what ``add_safe_globals`` marked."""
    table = {}
    for item in marked:
        if isinstance(item, tuple):
            if len(item) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got tuple of length: {len(item)}")
            if type(item[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full "
                                f"path, but got: {type(item[1])}")
            table[item[1]] = item[0]
        else:
            table[f"{item.__module__}.{item.__qualname__}"] = item
    return table


class _Truncated(pickle.UnpicklingError):
    pass


class WeightsOnlyUnpickler:
    """Runs a pickle's opcodes, calling only allowed names (NOTE [The weights-only unpickler])."""

    def __init__(self, data, persistent_load, allowed, user_allowed):
        self.data, self.pos = data, 0
        self.persistent_load = persistent_load
        self.allowed, self.user_allowed = allowed, user_allowed
        self.callables = {id(v) for v in allowed.values()} | {id(v) for v in user_allowed.values()}
        self.user_types = tuple(v for v in user_allowed.values() if isinstance(v, type))
        self.memo = {}

    def read(self, n):
        end = self.pos + n
        if end > len(self.data):
            raise _Truncated("pickle data was truncated")
        chunk = self.data[self.pos:end]
        self.pos = end
        return chunk

    def readline(self):
        end = self.data.find(b"\n", self.pos)
        if end < 0:
            raise _Truncated("pickle data was truncated")
        line = self.data[self.pos:end]
        self.pos = end + 1
        return line

    def load(self):
        self.stack, self.marks = [], []
        handlers = _HANDLERS
        while True:
            code = self.read(1)[0]
            if code == _STOP:
                return self.stack.pop()
            handler = handlers.get(code)
            if handler is None:
                raise pickle.UnpicklingError(f"Unsupported operand {code}")
            handler(self)

    # ---- names and calls ------------------------------------------------------------------

    def find(self, module, name):
        full_path = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(f"Trying to load unsupported GLOBAL {full_path} whose "
                                         f"module {module} is blocked.")
        if full_path in self.allowed:
            return self.allowed[full_path]
        if full_path in self.user_allowed:
            return self.user_allowed[full_path]
        shown = _display_path(full_path)
        raise pickle.UnpicklingError(
            f"Unsupported global: GLOBAL {shown} was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{shown}])` or the "
            f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist "
            f"this global if you trust this class/function.")

    def op_global(self):
        module = self.readline().decode("utf-8")
        name = self.readline().decode("utf-8")
        # Protocol 2 writes Python 2's names (__builtin__.set): read them as Python 3's.
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        self.stack.append(self.find(module, name))

    def op_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if id(func) not in self.callables:
            message = f"Trying to call reduce for unrecognized function {func}"
            if hasattr(func, "__self__"):
                message += f" which belongs to {func.__self__}"
            raise pickle.UnpicklingError(message)
        if type(args) is not tuple:
            raise pickle.UnpicklingError("REDUCE arguments must be a tuple")
        _refuse_allocation(func, args)
        self.stack[-1] = func(*args)

    def op_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        from ..nn.parameter import Parameter
        if cls is Parameter:
            self.stack.append(Parameter(*args))
        elif id(cls) in self.callables and isinstance(cls, type):
            _refuse_allocation(cls, args)
            self.stack.append(cls.__new__(cls, *args))
        else:
            raise pickle.UnpicklingError("Can only create new object for nn.Parameter or classes "
                                         f"allowlisted via `add_safe_globals` but got {cls}")

    def op_build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        if type(inst) is OrderedDict:
            inst.__dict__.update(state)
        elif isinstance(inst, _C.Tensor) and (type(inst) is _C.Tensor or
                                              type(inst).__module__.startswith("gradtrack")):
            torch_names.set_state(inst, state)
        elif self.user_types and isinstance(inst, self.user_types) and \
                type(inst) in self.user_types:
            if hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
            else:
                slots = None
                if isinstance(state, tuple) and len(state) == 2:
                    state, slots = state
                if state:
                    inst.__dict__.update(state)
                for key, value in (slots or {}).items():
                    setattr(inst, key, value)
        else:
            raise pickle.UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types "
                                         f"allowlisted via `add_safe_globals`, but got {type(inst)}")

    def op_binpersid(self):
        pid = self.stack.pop()
        if type(pid) is not tuple and type(pid) is not int:
            raise pickle.UnpicklingError(f"persistent_load id must be tuple or int, but got "
                                         f"{type(pid)}")
        if type(pid) is tuple and pid and _ascii(pid[0]) != "storage":
            raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got "
                                         f"{type(pid[0])}")
        self.stack.append(self.persistent_load(pid))

    # ---- containers -----------------------------------------------------------------------

    def op_mark(self):
        self.marks.append(self.stack)
        self.stack = []

    def pop_mark(self):
        if not self.marks:
            raise pickle.UnpicklingError("could not find MARK")
        items, self.stack = self.stack, self.marks.pop()
        return items

    def op_append(self):
        item = self.stack.pop()
        target = self.stack[-1]
        if type(target) is not list:
            raise pickle.UnpicklingError(f"Can only append to lists, but got {type(target)}")
        target.append(item)

    def op_appends(self):
        items = self.pop_mark()
        target = self.stack[-1]
        if type(target) is not list:
            raise pickle.UnpicklingError(f"Can only extend lists, but got {type(target)}")
        target.extend(items)

    def _check_mapping(self, opcode):
        if type(self.stack[-1]) not in (dict, OrderedDict, Counter):
            raise pickle.UnpicklingError(f"Can only {opcode} for dict, collections.OrderedDict, "
                                         f"collections.Counter, but got {type(self.stack[-1])}")

    def op_setitem(self):
        value, key = self.stack.pop(), self.stack.pop()
        self._check_mapping("SETITEM")
        self.stack[-1][key] = value

    def op_setitems(self):
        items = self.pop_mark()
        self._check_mapping("SETITEMS")
        target = self.stack[-1]
        if len(items) % 2:
            raise pickle.UnpicklingError("SETITEMS needs key, value pairs")
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def op_tuple(self):
        items = tuple(self.pop_mark())  # before naming self.stack: pop_mark replaces it
        self.stack.append(items)

    def op_tuple_n(self, n):
        if len(self.stack) < n:
            raise pickle.UnpicklingError("unpickling stack underflow")
        items = tuple(self.stack[len(self.stack) - n:])
        del self.stack[len(self.stack) - n:]
        self.stack.append(items)

    # ---- memo ----------------------------------------------------------------------------

    def op_get(self, index):
        if index not in self.memo:
            raise pickle.UnpicklingError(f"Memo value not found at index {index}")
        self.stack.append(self.memo[index])

    def op_put(self, index):
        if not self.stack:
            raise pickle.UnpicklingError("unpickling stack underflow")
        self.memo[index] = self.stack[-1]

    def op_proto(self):
        proto = self.read(1)[0]
        if proto != 2:
            warnings.warn(
                f"Detected pickle protocol {proto} in the checkpoint, which was not the default "
                "pickle protocol used by `torch.load` (2). The weights_only Unpickler might not "
                "support all instructions implemented by this protocol, please file an issue "
                "for adding support if you encounter this.", stacklevel=4)

    def op_unicode(self, size_format):
        (length,) = struct.unpack(size_format, self.read(struct.calcsize(size_format)))
        self.stack.append(str(self.read(length), "utf-8", "surrogatepass"))

    def op_short_binstring(self):
        # torch.load unpickles with encoding="utf-8": a Python 2 str becomes text.
        self.stack.append(str(self.read(self.read(1)[0]), "utf-8"))


def _refuse_allocation(func, args):
    # torch.Tensor(n) allocates n elements: memory the file does not hold.
    if func is _C.Tensor and args:
        raise pickle.UnpicklingError("gradtrack does not call torch.Tensor with arguments "
                                     "from a checkpoint: it would allocate memory the file "
                                     "does not hold")


def _ascii(value):
    return value.decode("ascii") if isinstance(value, bytes) else value


def _push(value_of):
    def handler(self):
        self.stack.append(value_of(self))
    return handler


_STOP = pickle.STOP[0]
_U = WeightsOnlyUnpickler
_HANDLERS = {
    pickle.GLOBAL[0]: _U.op_global,
    pickle.REDUCE[0]: _U.op_reduce,
    pickle.NEWOBJ[0]: _U.op_newobj,
    pickle.BUILD[0]: _U.op_build,
    pickle.BINPERSID[0]: _U.op_binpersid,
    pickle.MARK[0]: _U.op_mark,
    pickle.APPEND[0]: _U.op_append,
    pickle.APPENDS[0]: _U.op_appends,
    pickle.SETITEM[0]: _U.op_setitem,
    pickle.SETITEMS[0]: _U.op_setitems,
    pickle.TUPLE[0]: _U.op_tuple,
    pickle.TUPLE1[0]: lambda self: self.op_tuple_n(1),
    pickle.TUPLE2[0]: lambda self: self.op_tuple_n(2),
    pickle.TUPLE3[0]: lambda self: self.op_tuple_n(3),
    pickle.NONE[0]: _push(lambda self: None),
    pickle.NEWFALSE[0]: _push(lambda self: False),
    pickle.NEWTRUE[0]: _push(lambda self: True),
    pickle.EMPTY_TUPLE[0]: _push(lambda self: ()),
    pickle.EMPTY_LIST[0]: _push(lambda self: []),
    pickle.EMPTY_DICT[0]: _push(lambda self: {}),
    pickle.EMPTY_SET[0]: _push(lambda self: set()),
    pickle.BININT[0]: _push(lambda self: struct.unpack("<i", self.read(4))[0]),
    pickle.BININT1[0]: _push(lambda self: self.read(1)[0]),
    pickle.BININT2[0]: _push(lambda self: struct.unpack("<H", self.read(2))[0]),
    pickle.BINFLOAT[0]: _push(lambda self: struct.unpack(">d", self.read(8))[0]),
    pickle.LONG1[0]: _push(lambda self: int.from_bytes(self.read(self.read(1)[0]), "little",
                                                       signed=True)),
    pickle.BINUNICODE[0]: lambda self: self.op_unicode("<I"),
    pickle.SHORT_BINSTRING[0]: lambda self: self.op_short_binstring(),
    pickle.BINGET[0]: lambda self: self.op_get(self.read(1)[0]),
    pickle.LONG_BINGET[0]: lambda self: self.op_get(struct.unpack("<I", self.read(4))[0]),
    pickle.BINPUT[0]: lambda self: self.op_put(self.read(1)[0]),
    pickle.LONG_BINPUT[0]: lambda self: self.op_put(struct.unpack("<I", self.read(4))[0]),
    pickle.PROTO[0]: _U.op_proto,
}


class FullUnpickler(pickle.Unpickler):
    """``weights_only=False``: Python's unpickler (it runs what the file names), with
    torch's names read as gradtrack's (NOTE [Torch's names in gradtrack's files])."""

    def __init__(self, file, persistent_load, torch_globals, **kwargs):
        super().__init__(file, **kwargs)
        self._persistent_load = persistent_load
        self._torch_globals = torch_globals

    def persistent_load(self, pid):
        return self._persistent_load(pid)

    def find_class(self, module, name):
        found = self._torch_globals.get(f"{module}.{name}")
        if found is not None:
            return found
        if type(name) is str and "Storage" in name:
            # torch's full unpickler reads a storage type by its name alone, whatever
            # module the file names for it
            found = self._torch_globals.get(f"torch.{name}")
            if isinstance(found, torch_names.StorageType):
                return found
        return super().find_class(module, name)
