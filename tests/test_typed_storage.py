"""``Tensor.storage()`` and ``TypedStorage`` against torch 2.13: the one-time deprecation
warning, size, address, elements of the whole memory (not only the tensor's), writes
that reach every tensor over it without a version bump, the index errors, the legacy
type names and the printed form. Run in a fresh process per library, since the warning
is given once a process."""

import subprocess
import sys

_SCRIPT = r"""
import sys, warnings
lib = __import__(sys.argv[1])
out = []
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    x = lib.arange(6.).reshape(2, 3)[:, 1:]
    s = x.storage()
    s2 = x.storage()
    out.append([str(m.message) for m in caught])
out.append((s.size(), len(s), str(s.dtype), str(s.device), s.element_size(), s.nbytes(),
            s.tolist(), s[1], s[-1], s.data_ptr() == x.untyped_storage().data_ptr(),
            s.is_shared(), s.type(), s.is_pinned(), type(s).__name__,
            type(s.untyped()).__name__, isinstance(s, lib.TypedStorage)))
s[0] = 5.0
s[-1] = 7
s[1:3] = 9
out.append((x.tolist(), x._version, x._base._version, s.tolist()))
for probe in (lambda: s[6], lambda: s[1:2], lambda: s[-7]):
    try:
        probe()
    except Exception as e:
        out.append((type(e).__name__, str(e)))
ints = lib.tensor([1, 2]).storage()
out.append((list(iter(ints)), lib.tensor([True]).storage().type(), repr(ints),
            repr(lib.tensor([1.5, -2.0]).storage()), lib.zeros(0).storage().size(),
            lib.ones(2, requires_grad=True).storage().tolist()))
print(repr(out).replace(sys.argv[1], "LIB"))
"""


def test_storage_matches_torch(torch):
    runs = [subprocess.run([sys.executable, "-c", _SCRIPT, name], capture_output=True,
                           text=True, timeout=120, check=True).stdout
            for name in ("gradtrack", "torch")]
    assert runs[0] == runs[1]
