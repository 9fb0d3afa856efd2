"""The globals a pickle names, read without running it: what
``get_unsafe_globals_in_checkpoint`` reports.

NOTE [Listing a checkpoint's globals]
torch lists a checkpoint's globals by walking ``data.pkl``'s opcodes and collecting
every ``GLOBAL`` (Python 2 names read as Python 3's, as the unpickler reads them);
nothing is called, so a hostile file can be inspected safely. A name that only an
object built while unpickling would bring in is not seen. The opcodes walked are the
ones the weights-only unpickler reads; any other is refused with its message.
"""

import _compat_pickle
import pickle
import struct

# opcode -> how many bytes of argument follow it (fixed-size arguments only).
_FIXED = {op[0]: 0 for op in (
    pickle.NEWOBJ, pickle.REDUCE, pickle.BUILD, pickle.APPEND, pickle.APPENDS, pickle.SETITEM,
    pickle.SETITEMS, pickle.MARK, pickle.TUPLE, pickle.TUPLE1, pickle.TUPLE2, pickle.TUPLE3,
    pickle.NONE, pickle.NEWFALSE, pickle.NEWTRUE, pickle.EMPTY_TUPLE, pickle.EMPTY_LIST,
    pickle.EMPTY_DICT, pickle.EMPTY_SET, pickle.BINPERSID)}
_FIXED.update({pickle.BININT[0]: 4, pickle.BININT1[0]: 1, pickle.BININT2[0]: 2,
               pickle.BINFLOAT[0]: 8, pickle.BINGET[0]: 1, pickle.LONG_BINGET[0]: 4,
               pickle.BINPUT[0]: 1, pickle.LONG_BINPUT[0]: 4, pickle.PROTO[0]: 1})


def global_name(module, name):
    """``module.name`` as the unpickler resolves it (Python 2's names as Python 3's)."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        module, name = _compat_pickle.NAME_MAPPING[(module, name)]
    elif module in _compat_pickle.IMPORT_MAPPING:
        module = _compat_pickle.IMPORT_MAPPING[module]
    return f"{module}.{name}"


def globals_in_pickle(data):
    """The set of ``"module.name"`` the pickle ``data`` names (NOTE [Listing a
    checkpoint's globals])."""
    found, pos, end = set(), 0, len(data)

    def line(start):
        stop = data.find(b"\n", start)
        if stop < 0:
            raise EOFError
        return data[start:stop].decode("utf-8"), stop + 1

    while True:
        if pos >= end:
            raise EOFError
        code = data[pos]
        pos += 1
        if code == pickle.STOP[0]:
            return found
        if code in _FIXED:
            pos += _FIXED[code]
        elif code == pickle.GLOBAL[0]:
            module, pos = line(pos)
            name, pos = line(pos)
            found.add(global_name(module, name))
        elif code == pickle.BINUNICODE[0]:
            if pos + 4 > end:
                raise EOFError
            pos += 4 + struct.unpack_from("<I", data, pos)[0]
        elif code in (pickle.SHORT_BINSTRING[0], pickle.LONG1[0]):
            if pos >= end:
                raise EOFError
            pos += 1 + data[pos]
        else:
            raise pickle.UnpicklingError(f"Unsupported operand {code}")
