"""Docstrings of the factories, joins, indexing, matrix products, random numbers and
grad-mode switches of the ``gradtrack`` namespace."""

DOCS = {
    "Tensor": """An n-dimensional array of numbers that autograd can track.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> x.shape, x.dtype, x.requires_grad
    (gradtrack.Size([2, 2]), gradtrack.float32, True)
    """,
    "dtype": """The type of a tensor's elements (``gradtrack.float32``, ``gradtrack.int64``...).

    >>> gradtrack.float64.is_floating_point, gradtrack.float64.itemsize
    (True, 8)
    >>> gradtrack.tensor([1, 2]).dtype
    gradtrack.int64
    """,
    "Generator": """A random number generator with a state of its own (torch's mt19937).

    >>> g = gradtrack.Generator().manual_seed(42)
    >>> gradtrack.randint(0, 10, (5,), generator=g)
    tensor([2, 7, 6, 4, 6])
    """,
    "tensor": """A new tensor holding a copy of ``data`` (a number, nested lists, an array).

    >>> gradtrack.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> gradtrack.tensor(2.5, requires_grad=True)
    tensor(2.5000, requires_grad=True)
    """,
    "as_tensor": """
    >>> import numpy as np
    >>> a = np.array([1.0, 2.0])
    >>> t = gradtrack.as_tensor(a)
    >>> a[0] = 7
    >>> t
    tensor([7., 2.], dtype=gradtrack.float64)
    """,
    "from_numpy": """A tensor sharing the memory of a NumPy array.

    >>> import numpy as np
    >>> a = np.array([1, 2, 3])
    >>> t = gradtrack.from_numpy(a)
    >>> t[0] = 10
    >>> a
    array([10,  2,  3])
    """,
    "zeros": """A tensor of the given shape filled with 0.

    >>> gradtrack.zeros(2, 3)
    tensor([[0., 0., 0.],
            [0., 0., 0.]])
    """,
    "ones": """A tensor of the given shape filled with 1.

    >>> gradtrack.ones(2, dtype=gradtrack.int64)
    tensor([1, 1])
    """,
    "empty": """A tensor of the given shape whose elements are not initialised.

    >>> gradtrack.empty(2, 3).shape
    gradtrack.Size([2, 3])
    """,
    "full": """A tensor of the given shape filled with ``fill_value``.

    >>> gradtrack.full((2, 2), 7.0)
    tensor([[7., 7.],
            [7., 7.]])
    """,
    "zeros_like": """
    >>> gradtrack.zeros_like(gradtrack.ones(2, 2))
    tensor([[0., 0.],
            [0., 0.]])
    """,
    "ones_like": """
    >>> gradtrack.ones_like(gradtrack.tensor([1, 2, 3]))
    tensor([1, 1, 1])
    """,
    "empty_like": """
    >>> gradtrack.empty_like(gradtrack.ones(2, 3)).shape
    gradtrack.Size([2, 3])
    """,
    "full_like": """
    >>> gradtrack.full_like(gradtrack.zeros(3), 0.5)
    tensor([0.5000, 0.5000, 0.5000])
    """,
    "rand_like": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.rand_like(gradtrack.zeros(3))
    tensor([0.4963, 0.7682, 0.0885])
    """,
    "randn_like": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.randn_like(gradtrack.zeros(3))
    tensor([ 1.5410, -0.2934, -2.1788])
    """,
    "arange": """The numbers from ``start`` up to (not including) ``end`` in steps of ``step``.

    >>> gradtrack.arange(5)
    tensor([0, 1, 2, 3, 4])
    >>> gradtrack.arange(1, 2, 0.25)
    tensor([1.0000, 1.2500, 1.5000, 1.7500])
    """,
    "linspace": """``steps`` numbers evenly spaced from ``start`` to ``end`` (both included).

    >>> gradtrack.linspace(0, 1, steps=5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """,
    "eye": """An ``n`` by ``m`` (default ``n``) matrix with ones on the diagonal.

    >>> gradtrack.eye(2, 3)
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """,
    "rand": """Numbers drawn uniformly from [0, 1), in the given shape.

    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.rand(2, 2)
    tensor([[0.4963, 0.7682],
            [0.0885, 0.1320]])
    """,
    "randn": """Numbers drawn from the standard normal distribution, in the given shape.

    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.randn(3)
    tensor([ 1.5410, -0.2934, -2.1788])
    """,
    "randint": """Integers drawn uniformly from [``low``, ``high``), in the shape ``size``.

    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.randint(0, 10, (2, 3))
    tensor([[4, 9, 3],
            [0, 3, 9]])
    """,
    "randperm": """A random order of the integers 0 to ``n - 1``.

    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.randperm(5)
    tensor([4, 0, 1, 3, 2])
    """,
    "seed": """
    >>> s = gradtrack.seed()
    >>> gradtrack.initial_seed() == s
    True
    """,
    "initial_seed": """
    >>> _ = gradtrack.manual_seed(7)
    >>> gradtrack.initial_seed()
    7
    """,
    "get_rng_state": """
    >>> _ = gradtrack.manual_seed(0)
    >>> state = gradtrack.get_rng_state()
    >>> a = gradtrack.rand(2)
    >>> gradtrack.set_rng_state(state)
    >>> gradtrack.equal(gradtrack.rand(2), a)
    True
    """,
    "set_rng_state": """
    >>> state = gradtrack.get_rng_state()
    >>> a = gradtrack.randn(3)
    >>> gradtrack.set_rng_state(state)
    >>> gradtrack.equal(gradtrack.randn(3), a)
    True
    """,
    "cat": """Joins tensors along an existing dim ``dim``.

    >>> a, b = gradtrack.tensor([[1, 2]]), gradtrack.tensor([[3, 4]])
    >>> gradtrack.cat([a, b]), gradtrack.cat([a, b], dim=1)
    (tensor([[1, 2],
            [3, 4]]), tensor([[1, 2, 3, 4]]))
    """,
    "concat": """Alias of ``cat``: joins tensors along an existing dim.

    >>> gradtrack.concat([gradtrack.tensor([1, 2]), gradtrack.tensor([3])])
    tensor([1, 2, 3])
    """,
    "stack": """Joins tensors of equal shape along a new dim ``dim``.

    >>> gradtrack.stack([gradtrack.tensor([1, 2]), gradtrack.tensor([3, 4])], dim=1)
    tensor([[1, 3],
            [2, 4]])
    """,
    "split": """
    >>> gradtrack.split(gradtrack.arange(5), 2)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    >>> gradtrack.split(gradtrack.arange(5), [1, 4])
    (tensor([0]), tensor([1, 2, 3, 4]))
    """,
    "reshape": """The elements in a new shape: a view when the strides allow it, else a copy.
    One size may be -1 (inferred).

    >>> gradtrack.reshape(gradtrack.arange(6), (2, -1))
    tensor([[0, 1, 2],
            [3, 4, 5]])
    """,
    "permute": """A view with the dims in the order ``dims``.

    >>> gradtrack.permute(gradtrack.zeros(2, 3, 4), (2, 0, 1)).shape
    gradtrack.Size([4, 2, 3])
    """,
    "as_strided": """A view of the same memory with the given sizes, strides and offset.

    >>> gradtrack.as_strided(gradtrack.arange(6), (2, 2), (1, 2))
    tensor([[0, 2],
            [1, 3]])
    """,
    "gather": """The elements of ``input`` picked along ``dim`` at the positions in ``index``.

    >>> x = gradtrack.tensor([[1, 2], [3, 4]])
    >>> gradtrack.gather(x, 1, gradtrack.tensor([[0, 0], [1, 0]]))
    tensor([[1, 1],
            [4, 3]])
    """,
    "index_select": """The slices of ``dim`` listed in ``index`` (a 1-D integer tensor).

    >>> x = gradtrack.tensor([[1, 2], [3, 4], [5, 6]])
    >>> gradtrack.index_select(x, 0, gradtrack.tensor([2, 0]))
    tensor([[5, 6],
            [1, 2]])
    """,
    "scatter": """A copy of ``input`` with ``src`` (or ``value``) written at ``index`` along ``dim``.

    >>> x = gradtrack.zeros(2, 3)
    >>> gradtrack.scatter(x, 1, gradtrack.tensor([[2], [0]]), value=1.0)
    tensor([[0., 0., 1.],
            [1., 0., 0.]])
    """,
    "scatter_add": """A copy of ``input`` with ``src`` added at ``index`` along ``dim``.

    >>> x = gradtrack.zeros(4)
    >>> gradtrack.scatter_add(x, 0, gradtrack.tensor([0, 1, 0]), gradtrack.tensor([1.0, 2.0, 3.0]))
    tensor([4., 2., 0., 0.])
    """,
    "masked_fill": """A copy of ``input`` with ``value`` where ``mask`` is True.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.masked_fill(x, x > 1.5, 0.0)
    tensor([1., 0., 0.])
    """,
    "where": """Elements of ``input`` where ``condition`` is True, of ``other`` elsewhere.

    >>> x = gradtrack.tensor([-1.0, 2.0, -3.0])
    >>> gradtrack.where(x > 0, x, 0.0)
    tensor([0., 2., 0.])
    """,
    "max": """
    >>> x = gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]])
    >>> gradtrack.max(x)
    tensor(5.)
    >>> gradtrack.max(x, dim=1)
    gradtrack.return_types.max(
    values=tensor([5., 4.]),
    indices=tensor([1, 1]))
    """,
    "min": """
    >>> x = gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]])
    >>> gradtrack.min(x)
    tensor(1.)
    >>> gradtrack.min(x, dim=0)
    gradtrack.return_types.min(
    values=tensor([1., 4.]),
    indices=tensor([0, 1]))
    """,
    "std_mean": """
    >>> gradtrack.std_mean(gradtrack.tensor([1.0, 2.0, 6.0]))
    (tensor(2.6458), tensor(3.))
    """,
    "var_mean": """
    >>> gradtrack.var_mean(gradtrack.tensor([1.0, 2.0, 6.0]))
    (tensor(7.), tensor(3.))
    """,
    "matmul": """The matrix product, with NumPy's rules for 1-D operands and batches.

    >>> a = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.matmul(a, gradtrack.tensor([1.0, 1.0]))
    tensor([3., 7.])
    >>> gradtrack.matmul(a, a)
    tensor([[ 7., 10.],
            [15., 22.]])
    """,
    "mm": """The product of two matrices.

    >>> gradtrack.mm(gradtrack.tensor([[1.0, 2.0]]), gradtrack.tensor([[3.0], [4.0]]))
    tensor([[11.]])
    """,
    "mv": """The product of a matrix and a vector.

    >>> gradtrack.mv(gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]), gradtrack.tensor([1.0, -1.0]))
    tensor([-1., -1.])
    """,
    "bmm": """The matrix products of two batches of matrices.

    >>> gradtrack.bmm(gradtrack.ones(2, 1, 3), gradtrack.ones(2, 3, 2))
    tensor([[[3., 3.]],
    <BLANKLINE>
            [[3., 3.]]])
    """,
    "addmm": """``beta * input + alpha * (mat1 @ mat2)``.

    >>> m = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.addmm(gradtrack.ones(2, 2), m, m, beta=0.5)
    tensor([[ 7.5000, 10.5000],
            [15.5000, 22.5000]])
    """,
    "addmv": """
    >>> m = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.addmv(gradtrack.ones(2), m, gradtrack.tensor([1.0, 1.0]))
    tensor([4., 8.])
    """,
    "baddbmm": """
    >>> gradtrack.baddbmm(gradtrack.zeros(2, 1, 1), gradtrack.ones(2, 1, 3), gradtrack.ones(2, 3, 1))
    tensor([[[3.]],
    <BLANKLINE>
            [[3.]]])
    """,
    "tensordot": """
    >>> a, b = gradtrack.arange(6.).reshape(2, 3), gradtrack.arange(3.)
    >>> gradtrack.tensordot(a, b, dims=1)
    tensor([ 5., 14.])
    """,
    "cross": """
    >>> gradtrack.cross(gradtrack.tensor([1.0, 0.0, 0.0]), gradtrack.tensor([0.0, 1.0, 0.0]), dim=0)
    tensor([0., 0., 1.])
    """,
    "clip": """
    >>> gradtrack.clip(gradtrack.tensor([-2.0, 0.5, 3.0]), -1.0, 1.0)
    tensor([-1.0000,  0.5000,  1.0000])
    """,
    "numel": """
    >>> gradtrack.numel(gradtrack.zeros(2, 3))
    6
    """,
    "is_tensor": """
    >>> gradtrack.is_tensor(gradtrack.ones(1)), gradtrack.is_tensor([1.0])
    (True, False)
    """,
    "is_floating_point": """
    >>> gradtrack.is_floating_point(gradtrack.ones(1)), gradtrack.is_floating_point(gradtrack.arange(2))
    (True, False)
    """,
    "save": """
    >>> import io
    >>> buffer = io.BytesIO()
    >>> gradtrack.save({"w": gradtrack.tensor([1.0, 2.0])}, buffer)
    >>> _ = buffer.seek(0)
    >>> gradtrack.load(buffer)
    {'w': tensor([1., 2.])}
    """,
    "load": """
    >>> import io
    >>> buffer = io.BytesIO()
    >>> gradtrack.save([gradtrack.arange(3), 5], buffer)
    >>> _ = buffer.seek(0)
    >>> gradtrack.load(buffer)
    [tensor([0, 1, 2]), 5]
    """,
    "get_num_threads": """The number of threads the CPU kernels use.

    >>> gradtrack.get_num_threads() >= 1
    True
    """,
    "set_num_threads": """Sets the number of threads the CPU kernels use.

    >>> n = gradtrack.get_num_threads()
    >>> gradtrack.set_num_threads(1)
    >>> gradtrack.get_num_threads()
    1
    >>> gradtrack.set_num_threads(n)
    """,
    "is_grad_enabled": """True unless grad mode is off (inside ``no_grad``).

    >>> gradtrack.is_grad_enabled()
    True
    >>> with gradtrack.no_grad():
    ...     gradtrack.is_grad_enabled()
    False
    """,
    "enable_grad": """
    >>> x = gradtrack.ones(1, requires_grad=True)
    >>> with gradtrack.no_grad():
    ...     with gradtrack.enable_grad():
    ...         y = x * 2
    >>> y.requires_grad
    True
    """,
    "inference_mode": """
    >>> x = gradtrack.ones(1, requires_grad=True)
    >>> with gradtrack.inference_mode():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """,
    "is_inference_mode_enabled": """True inside an ``inference_mode`` block.

    >>> with gradtrack.inference_mode():
    ...     gradtrack.is_inference_mode_enabled()
    True
    """,
    "is_anomaly_enabled": """True while anomaly detection is on.

    >>> gradtrack.is_anomaly_enabled()
    False
    """,
    "is_anomaly_check_nan_enabled": """True if anomaly detection also checks backward outputs for NaN.

    >>> with gradtrack.autograd.detect_anomaly():
    ...     gradtrack.is_anomaly_check_nan_enabled()
    True
    """,
    "device": """
    >>> gradtrack.device("cpu"), gradtrack.device("cuda", 0).index
    (device(type='cpu'), 0)
    """,
    "get_default_device": """
    >>> gradtrack.get_default_device()
    device(type='cpu')
    """,
    "set_default_device": """
    >>> gradtrack.set_default_device("cpu")
    >>> gradtrack.get_default_device()
    device(type='cpu')
    """,
    "BoolTensor": """
    >>> x = gradtrack.BoolTensor([1, 0])
    >>> x.dtype, isinstance(gradtrack.ones(1, dtype=gradtrack.bool), gradtrack.BoolTensor)
    (gradtrack.bool, True)
    """,
    "ByteTensor": """
    >>> x = gradtrack.ByteTensor([1, 0])
    >>> x.dtype, isinstance(gradtrack.ones(1, dtype=gradtrack.uint8), gradtrack.ByteTensor)
    (gradtrack.uint8, True)
    """,
    "IntTensor": """
    >>> x = gradtrack.IntTensor([1, 0])
    >>> x.dtype, isinstance(gradtrack.ones(1, dtype=gradtrack.int32), gradtrack.IntTensor)
    (gradtrack.int32, True)
    """,
    "LongTensor": """
    >>> x = gradtrack.LongTensor([1, 0])
    >>> x.dtype, isinstance(gradtrack.ones(1, dtype=gradtrack.int64), gradtrack.LongTensor)
    (gradtrack.int64, True)
    """,
    "FloatTensor": """
    >>> x = gradtrack.FloatTensor([1, 0])
    >>> x.dtype, isinstance(gradtrack.ones(1, dtype=gradtrack.float32), gradtrack.FloatTensor)
    (gradtrack.float32, True)
    """,
    "DoubleTensor": """
    >>> x = gradtrack.DoubleTensor([1, 0])
    >>> x.dtype, isinstance(gradtrack.ones(1, dtype=gradtrack.float64), gradtrack.DoubleTensor)
    (gradtrack.float64, True)
    """,
}
