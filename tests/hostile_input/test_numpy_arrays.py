"""Hostile input: NumPy arrays. Read-only, byte-swapped, negatively strided, broadcast and
freed arrays, bool arrays whose True bytes are not 1, dtypes gradtrack lacks, and tensors
aliasing unaligned memory (every kernel family reads and writes them: what the
ASan+UBSan run checks for misaligned accesses). hostile_cases.py runs them (gradtrack in
a child process).
"""

import warnings

import numpy as np
import pytest

import gradtrack

from hostile_cases import case_table, check_case

torch = pytest.importorskip("torch")

CASES, case = case_table()   # CASES: name -> (source, mode)


# -- NumPy arrays --------------------------------------------------------------------------------
UNALIGNED = ("b = np.zeros(8 * 4 + 1, dtype=np.uint8)\na = b[1:].view(np.float64)\n"
             "a[:] = [1, 2, 3, 4]\n")
for name, src in {
    "from_numpy_read_only": ("a = np.arange(4.0); a.flags.writeable = False\n"
                             "t = lib.from_numpy(a); out = (t, t._version)"),
    "tensor_read_only_copies": ("a = np.arange(4.0); a.flags.writeable = False\n"
                                "t = lib.tensor(a); t.add_(1); out = (t, a)"),
    "as_tensor_read_only": ("a = np.arange(4.0); a.flags.writeable = False\n"
                            "t = lib.as_tensor(a); out = (t, t.dtype)"),
    "from_numpy_byte_swapped": "a = np.arange(4.0).astype('>f8'); out = lib.from_numpy(a)",
    "tensor_byte_swapped": "a = np.arange(4.0).astype('>f8'); out = lib.tensor(a)",
    "as_tensor_byte_swapped": "a = np.arange(4.0).astype('>f8'); out = lib.as_tensor(a)",
    "from_numpy_negative_stride": "a = np.arange(6.0)[::-1]; out = lib.from_numpy(a)",
    "tensor_negative_stride": "a = np.arange(6.0)[::-1]; out = lib.tensor(a)",
    "as_tensor_negative_stride": "a = np.arange(6.0)[::-1]; out = lib.as_tensor(a)",
    "tensor_negative_strides_2d": "a = np.arange(12.0).reshape(3, 4)[::-2, ::-1]; out = lib.tensor(a)",
    "from_numpy_unaligned": UNALIGNED + "t = lib.from_numpy(a); t.add_(1); out = (t, a)",
    "tensor_unaligned": UNALIGNED + "out = lib.tensor(a)",
    "as_tensor_unaligned": UNALIGNED + "t = lib.as_tensor(a); t.add_(1); out = (t, a)",
    "from_numpy_strided_shares": ("a = np.arange(6.0).reshape(2, 3)[:, ::2]\n"
                                  "t = lib.from_numpy(a); t.add_(1); out = (t, a, t.stride())"),
    "from_numpy_broadcast": ("a = np.broadcast_to(np.arange(3.0), (2, 3))\n"
                             "t = lib.from_numpy(a); out = (t, t.stride())"),
    "tensor_broadcast_is_contiguous": ("a = np.broadcast_to(np.arange(3.0), (2, 3))\n"
                                       "t = lib.tensor(a); out = (t.stride(), t.view(-1))"),
    "from_numpy_empty": "out = lib.from_numpy(np.zeros((2, 0, 3))).shape",
    "from_numpy_list": "out = lib.from_numpy([1.0, 2.0])",
    "from_numpy_array_freed": ("a = np.arange(4.0); t = lib.from_numpy(a); del a\n"
                               "import gc; gc.collect(); out = t"),
    "tensor_masked_array": "out = lib.tensor(np.ma.masked_array([1.0, 2.0], mask=[0, 1]))",
    "tensor_numpy_scalar": "out = lib.tensor(np.float64(2.5))",
    # The exported array keeps the storage alive when the tensor moves to another one:
    # the freed block would otherwise be handed to the next tensors of its size.
    "numpy_then_data_replaced": (
        "t = lib.arange(4.0); a = t.numpy(); t.data = lib.zeros(2)\n"
        "junk = [lib.full((4,), 7.0) for _ in range(50)]\nout = (a.tolist(), t)"),
    "numpy_then_data_replaced_write": (
        "t = lib.arange(4.0); a = t.numpy(); t.data = lib.zeros(2)\n"
        "junk = [lib.full((4,), 7.0) for _ in range(50)]\na[:] = -1.0\n"
        "out = (a.tolist(), t, [j.tolist() for j in junk[:3]])"),
    "numpy_of_view_then_tensor_freed": (
        "t = lib.arange(6.0).reshape(2, 3); a = t[1].numpy(); del t\nimport gc; gc.collect()\n"
        "junk = [lib.full((2, 3), 7.0) for _ in range(50)]\nout = a.tolist()"),
    "numpy_large_then_data_replaced": (
        "t = lib.ones(1 << 20); a = t.numpy(); t.data = lib.zeros(2)\n"
        "junk = [lib.full((1 << 20,), 7.0) for _ in range(4)]\nout = float(a.sum())"),
}.items():
    case(f"numpy_{name}", src)

# Bool arrays whose True bytes are not 1 (any nonzero byte is True to numpy).
BOOLS = ("raw = np.frombuffer(b'\\x02\\x01\\x00\\xff', dtype=bool)\n"
         "def look(t):\n"
         "    return (t.sum(), t.tolist(), t.int(), t.float(), t == lib.tensor([True] * 4),\n"
         "            t.logical_not(), t.any(), t.all(), t.sum(0), t.to(lib.uint8))\n")
for name, src in {
    "from_numpy_read_only": "out = look(lib.from_numpy(raw))",
    "from_numpy_writable": "a = raw.copy()\nt = lib.from_numpy(a)\nout = (look(t), a.tolist())",
    "from_numpy_writable_shares": "a = raw.copy()\nt = lib.from_numpy(a)\na[2] = True\nout = t.tolist()",
    "from_numpy_strided": ("a = np.frombuffer(b'\\x02\\x00\\x03\\x00\\x05\\x00\\x07\\x00', dtype=bool)"
                           ".copy()[::2]\nout = look(lib.from_numpy(a))"),
    "tensor": "out = look(lib.tensor(raw))",
    "tensor_leaves_array": "a = raw.copy()\nt = lib.tensor(a)\nout = (look(t), a.view(np.uint8).tolist())",
    "as_tensor": "out = look(lib.as_tensor(raw))",
    "as_tensor_to_int": "out = lib.as_tensor(raw, dtype=lib.int64)",
}.items():
    case(f"numpy_bool_bytes_{name}", BOOLS + src)

# gradtrack has no float16/int8/... dtypes: those arrays are refused (TypeError, as torch
# refuses object arrays); the list of supported types in the message is gradtrack's own.
for name, src in {
    "from_numpy_object": 'out = lib.from_numpy(np.array([1, "a", None], dtype=object))',
    "tensor_object": 'out = lib.tensor(np.array([1, "a", None], dtype=object))',
    "as_tensor_object_numbers": "out = lib.as_tensor(np.array([1.0, 2.0], dtype=object))",
    "from_numpy_str": "out = lib.from_numpy(np.array(['a', 'b']))",
    "from_numpy_structured": "out = lib.from_numpy(np.zeros(3, dtype=[('x', 'f8')]))",
}.items():
    case(f"numpy_{name}", src, "own")

# Tensors aliasing unaligned NumPy memory (one byte past an aligned buffer): every kind of
# kernel reads and writes them (elementwise, copies, reductions, indexing, matmul, softmax,
# nll_loss, backward formulas, the fused SGD step, random fills, scalar reads). Besides
# matching torch, these are what the ASan+UBSan run checks for misaligned accesses.
UNAL = """
def unal(dtype, values):
    values = np.asarray(values)
    raw = np.zeros(values.size * np.dtype(dtype).itemsize + 1, dtype=np.uint8)
    arr = raw[1:].view(dtype).reshape(values.shape)
    arr[...] = values
    return arr
X = [[1.0, -2.0, 3.0, 0.0], [4.0, 5.0, -6.0, 2.0], [0.5, 1.0, 1.0, -1.0]]
"""
for name, src in {
    "reductions_f64": ("a = unal(np.float64, X); t = lib.from_numpy(a)\n"
                       "out = (t.sum(), t.sum(1), t.mean(0), t.max(), t.min(1), t.argmax(), t.amax(0),\n"
                       "       t.prod(1), t.all(), t.any(1), t.T.sum(0), t.max(0).indices)"),
    "reductions_f32": ("t = lib.from_numpy(unal(np.float32, X))\n"
                       "out = (t.sum(), t.sum(0), t.max(1), t.argmin(), t.prod())"),
    "int64": ("a = unal(np.int64, [[3, -1, 4], [1, 5, 9]]); i = lib.from_numpy(a)\n"
              "out = (i + 1, i.sum(), i // 2, i.max(), i[i > 0], i.tolist(), int(i[0, 0]),\n"
              "       i[1, 2].item(), float(i[0, 1]), lib.arange(i[0, 0]), i @ i.T)"),
    "elementwise_writes": ("a = unal(np.float64, X); t = lib.from_numpy(a)\n"
                           "t.add_(1); t.mul_(t); t.clamp_(0, 20); t[0] = 3; t[:, 1] = 4\n"
                           "t.masked_fill_(t > 10, -1.0); t.copy_(t.T.contiguous().T); b = t.clone()\n"
                           "t.fill_(2); t.zero_(); out = (b, t, a.tolist(), t._version)"),
    "indexing": ("a = unal(np.float64, X); t = lib.from_numpy(a)\n"
                 "k = lib.from_numpy(unal(np.int64, [2, 0, 2]))\n"
                 "r = (t[k], t[:, k], t[t > 0], t.index_select(1, k), t.gather(1, k.view(3, 1)),\n"
                 "     t.scatter_add(1, k.view(3, 1), lib.ones(3, 1, dtype=lib.float64)))\n"
                 "t[k[:2]] = 7.0; t.index_put_((k,), lib.ones(4, dtype=lib.float64), accumulate=True)\n"
                 "out = (r, t, a.tolist())"),
    "matmul_softmax": ("t = lib.from_numpy(unal(np.float64, X)); f = lib.from_numpy(unal(np.float32, X))\n"
                       "e = lib.from_numpy(unal(np.float64, [[2.0] * 4] * 3))\n"
                       "out = (t @ t.T, t @ lib.ones(4, dtype=lib.float64), f.T @ f, e.softmax(1))"),
    "backward": ("a = unal(np.float64, X); w = lib.from_numpy(a).requires_grad_()\n"
                 "g = lib.from_numpy(unal(np.float64, [[1.0, 2.0, 0.5, -1.0]] * 3))\n"
                 "((w * w).sum() + w.relu().sum() + w.prod(1).sum() + w.max()).backward()\n"
                 "y = w * 3; y.backward(g); z = (w * w).softmax(1); z.backward(e := lib.zeros(3, 4, dtype=lib.float64))\n"
                 "out = w.grad"),
    "nll_loss_sgd": ("lp = lib.from_numpy(unal(np.float64, X)).requires_grad_()\n"
                     "tg = lib.from_numpy(unal(np.int64, [0, 3, 1]))\n"
                     "wt = lib.from_numpy(unal(np.float64, [1.0, 2.0, 0.5, 4.0]))\n"
                     "loss = lib.nn.functional.nll_loss(lp, tg, weight=wt); loss.backward()\n"
                     "a = unal(np.float64, X); p = lib.nn.Parameter(lib.from_numpy(a))\n"
                     "opt = lib.optim.SGD([p], lr=0.5, momentum=0.5)\n"
                     "for _ in range(2):\n"
                     "    opt.zero_grad(); (p * p).sum().backward(); opt.step()\n"
                     "out = (loss, lp.grad, p, a.tolist())"),
    "random_fills": ("a = unal(np.float64, X); t = lib.from_numpy(a); t.uniform_()\n"
                     "u = bool(((t >= 0) & (t < 1)).all()); t.normal_(); f = bool((t == t).all())\n"
                     "out = (u, f, t.tolist() == a.tolist(), t._version)"),
}.items():
    case(f"numpy_unaligned_{name}", UNAL + src)


# ---- the tests -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(CASES))
def test_hostile_case(name, gradtrack_outcomes):
    check_case(torch, CASES[name], gradtrack_outcomes[name])


def test_tensor_of_read_only_array_copies_without_warning():
    # tensor() copies at once, so the "not writable" warning (which from_numpy and
    # as_tensor give, as torch's) does not apply; torch.tensor gives none either.
    a = np.arange(3.0)
    a.flags.writeable = False
    for lib in (torch, gradtrack):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert lib.tensor(a).tolist() == [0.0, 1.0, 2.0]


def test_float16_arrays_stay_float16(torch):
    # float16 is a storage dtype: tensor()/as_tensor() keep it and
    # from_numpy shares the array's memory, as torch's.
    a = np.array([1.0, 2.5], dtype=np.float16)
    for lib in (gradtrack, torch):
        assert str(lib.tensor(a).dtype).endswith("float16")
        assert lib.tensor(a).tolist() == [1.0, 2.5]
        assert lib.as_tensor(a).tolist() == [1.0, 2.5]
        shared = lib.from_numpy(a)
        shared[0] = 4.0
        assert a[0] == 4.0
        a[0] = 1.0
