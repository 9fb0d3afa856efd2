"""Docstrings of the Tensor class and its core: the autograd fields (``grad``,
``requires_grad``, ``_version``...), shape and storage properties, conversions and
copies (``to``, ``item``, ``numpy``, the dtype methods); and ``gradtrack.Tensor``,
``is_tensor``, ``numel``. The Python side of the class is ``_tensor.py``.

``FUNCTIONS`` documents ``gradtrack.NAME``, ``METHODS`` ``Tensor.NAME``.
"""

FUNCTIONS = {
    "Tensor": """An n-dimensional array of numbers that autograd can track.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> x.shape, x.dtype, x.requires_grad
    (gradtrack.Size([2, 2]), gradtrack.float32, True)
    """,
    "numel": """
    >>> gradtrack.numel(gradtrack.zeros(2, 3))
    6
    """,
    "is_tensor": """
    >>> gradtrack.is_tensor(gradtrack.ones(1)), gradtrack.is_tensor([1.0])
    (True, False)
    """,
}

METHODS = {
    "data": """The same values as a tensor outside autograd, with a version counter of its own.

    Writes through ``.data`` are invisible to autograd: a saved tensor changed
    this way gives a silently wrong gradient. Prefer ``detach()``, whose writes
    backward notices.

    >>> w = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> y = (w * w).sum()
    >>> w.data.mul_(10)
    tensor([10., 20.])
    >>> w._version, w.data.requires_grad
    (0, False)
    >>> y.backward()
    >>> w.grad
    tensor([20., 40.])
    """,
    "grad": """The gradient accumulated into this leaf by ``backward()`` (None before).

    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> x.grad is None
    True
    >>> (x * 3).sum().backward()
    >>> x.grad
    tensor([3., 3.])
    >>> (x * 3).sum().backward()
    >>> x.grad
    tensor([6., 6.])
    """,
    "grad_fn": """The graph node that made this tensor (None for leaves and for
    tensors made without grad).

    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> print(x.grad_fn)
    None
    >>> y = x.exp().sum()
    >>> y.grad_fn.name()
    'SumBackward0'
    >>> y.grad_fn.next_functions[0][0].name()
    'ExpBackward0'
    """,
    "is_leaf": """True for a tensor autograd did not compute: made by the user, or
    made without grad. ``backward()`` fills ``.grad`` of leaves only.

    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> x.is_leaf, (x * 2).is_leaf, (x * 2).detach().is_leaf
    (True, False, True)
    """,
    "requires_grad": """True if autograd records operations on this tensor.

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> x.requires_grad
    False
    >>> x.requires_grad = True
    >>> (x * 2).requires_grad
    True
    """,
    "retains_grad": """True if this non-leaf keeps its ``.grad`` (see ``retain_grad()``).

    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> y = x * 2
    >>> y.retains_grad
    False
    >>> y.retain_grad()
    >>> y.retains_grad
    True
    """,
    "_version": """How many in-place writes this tensor's memory has had.

    Views and ``detach()`` share the counter of their base; backward compares
    it with the version each saved tensor had, to refuse a stale one.

    >>> x = gradtrack.zeros(3)
    >>> v = x[1:]
    >>> x._version, v._version
    (0, 0)
    >>> v.add_(1)
    tensor([1., 1.])
    >>> x._version, v._version
    (1, 1)
    """,
    "_base": """The tensor this view looks into (None when it is not a view).

    >>> x = gradtrack.arange(4.)
    >>> x[1:]._base is x, x._base is None
    (True, True)
    """,
    "output_nr": """Which output of its ``grad_fn`` this tensor is (0 for most ops).

    >>> a, b = gradtrack.ones(4, requires_grad=True).split(2)
    >>> a.output_nr, b.output_nr
    (0, 1)
    """,
    "detach": """A new tensor sharing memory and version counter with this one, outside
    the graph. An in-place write to it bumps the version backward checks.

    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> d = x.detach()
    >>> d.requires_grad, d.is_leaf
    (False, True)
    >>> d.add_(1)
    tensor([2., 3.])
    >>> x
    tensor([2., 3.], requires_grad=True)
    >>> x._version
    1
    """,
    "detach_": """Detaches this tensor from its graph in place: it becomes a leaf.

    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> y = x * 2
    >>> y.detach_()
    tensor([2., 4.])
    >>> y.grad_fn is None, y.is_leaf
    (True, True)
    """,
    "requires_grad_": """Sets ``requires_grad`` of a leaf (True by default); returns ``self``.

    >>> x = gradtrack.ones(2).requires_grad_()
    >>> x.requires_grad
    True
    """,
    "retain_grad": """Makes this non-leaf keep its ``.grad`` after backward.

    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> y = x * 3
    >>> y.retain_grad()
    >>> (y * y).sum().backward()
    >>> y.grad
    tensor([ 6., 12.])
    """,
    "backward": """Computes the gradient of this tensor with respect to the graph's leaves
    and accumulates it into their ``.grad``. A non-scalar needs ``gradient``.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> (x ** 2).sum().backward()
    >>> x.grad
    tensor([2., 4., 6.])
    >>> x.grad = None
    >>> (x * 2).backward(gradient=gradtrack.tensor([1.0, 0.0, 1.0]))
    >>> x.grad
    tensor([2., 0., 2.])
    """,
    "register_hook": """Calls ``hook(grad)`` when this tensor's gradient is computed; the hook
    may return a replacement. Returns a handle whose ``remove()`` unregisters it.

    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> handle = x.register_hook(lambda g: g * 10)
    >>> x.sum().backward()
    >>> x.grad
    tensor([10., 10.])
    >>> handle.remove()
    """,
    "register_post_accumulate_grad_hook": """Calls ``hook(tensor)`` after a leaf's ``.grad`` was accumulated.

    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> seen = []
    >>> handle = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
    >>> (x * 2).sum().backward()
    >>> seen
    [tensor([2., 2.])]
    """,
    "shape": """The size of each dim, as a ``Size`` (a tuple).

    >>> gradtrack.zeros(2, 3).shape
    gradtrack.Size([2, 3])
    """,
    "dtype": """The element type.

    >>> gradtrack.tensor([1, 2]).dtype, gradtrack.tensor([1.0]).dtype
    (gradtrack.int64, gradtrack.float32)
    """,
    "device": """Where the memory lives; always the CPU in gradtrack.

    >>> gradtrack.ones(2).device
    device(type='cpu')
    """,
    "is_cuda": """False: gradtrack tensors live on the CPU.

    >>> gradtrack.ones(2).is_cuda
    False
    """,
    "ndim": """The number of dims.

    >>> gradtrack.zeros(2, 3).ndim
    2
    """,
    "T": """The tensor with its dims in reverse order (the transpose of a matrix).

    >>> gradtrack.tensor([[1, 2, 3], [4, 5, 6]]).T
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """,
    "mT": """The transpose of the last two dims (batches of matrices).

    >>> gradtrack.arange(6).reshape(1, 2, 3).mT.shape
    gradtrack.Size([1, 3, 2])
    """,
    "itemsize": """The size of one element in bytes.

    >>> gradtrack.zeros(3).itemsize, gradtrack.zeros(3, dtype=gradtrack.float64).itemsize
    (4, 8)
    """,
    "nbytes": """The size of the elements in bytes (``numel() * itemsize``).

    >>> gradtrack.zeros(2, 3).nbytes
    24
    """,
    "size": """The shape as a ``Size``, or the size of one dim.

    >>> x = gradtrack.zeros(2, 3)
    >>> x.size(), x.size(1), x.size(-1)
    (gradtrack.Size([2, 3]), 3, 3)
    """,
    "stride": """How many elements to step in memory per step along each dim.

    >>> x = gradtrack.zeros(2, 3)
    >>> x.stride(), x.t().stride()
    ((3, 1), (1, 3))
    """,
    "storage_offset": """The index of this tensor's first element in its memory.

    >>> gradtrack.arange(5)[2:].storage_offset()
    2
    """,
    "dim": """The number of dims.

    >>> gradtrack.zeros(2, 3).dim()
    2
    """,
    "ndimension": """Alias of ``dim()``: the number of dims.

    >>> gradtrack.zeros(2, 3).ndimension()
    2
    """,
    "numel": """The number of elements.

    >>> gradtrack.zeros(2, 3).numel()
    6
    """,
    "nelement": """Alias of ``numel()``: the number of elements.

    >>> gradtrack.zeros(2, 3).nelement()
    6
    """,
    "element_size": """The size of one element in bytes.

    >>> gradtrack.zeros(1, dtype=gradtrack.float64).element_size()
    8
    """,
    "is_contiguous": """True if the elements lie in memory in row-major order without gaps.

    >>> x = gradtrack.zeros(2, 3)
    >>> x.is_contiguous(), x.t().is_contiguous()
    (True, False)
    """,
    "contiguous": """This tensor if it is contiguous, else a contiguous copy.

    >>> x = gradtrack.arange(6).reshape(2, 3).t()
    >>> x.contiguous().is_contiguous(), x.contiguous().stride()
    (True, (2, 1))
    """,
    "is_floating_point": """True if the dtype is a floating-point type.

    >>> gradtrack.tensor([1.0]).is_floating_point(), gradtrack.tensor([1]).is_floating_point()
    (True, False)
    """,
    "is_complex": """True if the dtype is complex (never, in gradtrack).

    >>> gradtrack.tensor([1.0]).is_complex()
    False
    """,
    "is_inference": """True if the tensor was made in ``inference_mode``.

    >>> gradtrack.ones(2).is_inference()
    False
    """,
    "item": """The value of a one-element tensor as a Python number.

    >>> gradtrack.tensor([2.5]).item(), gradtrack.tensor(3).item()
    (2.5, 3)
    """,
    "tolist": """The elements as (nested) Python lists of numbers.

    >>> gradtrack.tensor([[1, 2], [3, 4]]).tolist()
    [[1, 2], [3, 4]]
    """,
    "numpy": """A NumPy array sharing this tensor's memory (refused when it requires grad,
    unless ``force=True``, which copies a detached tensor).

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> a = x.numpy()
    >>> a[0] = 5
    >>> x
    tensor([5., 2.])
    """,
    "data_ptr": """The address of the first element (an integer).

    >>> x = gradtrack.zeros(4)
    >>> x[1:].data_ptr() - x.data_ptr() == x.element_size()
    True
    """,
    "untyped_storage_ptr": """The address of the start of this tensor's memory block.

    >>> x = gradtrack.zeros(4)
    >>> x[1:].untyped_storage_ptr() == x.untyped_storage_ptr()
    True
    """,
    "__dlpack__": """A DLPack capsule sharing this tensor's memory (see ``gradtrack.from_dlpack``).

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> y = gradtrack.from_dlpack(x)
    >>> y.add_(1)
    tensor([2., 3.])
    >>> x
    tensor([2., 3.])
    """,
    "cpu": """This tensor (it already is on the CPU); a copy only if asked to move.

    >>> x = gradtrack.ones(2)
    >>> x.cpu() is x
    True
    """,
    "cuda": """Raises: gradtrack has no CUDA, as a CPU-only torch build.

    >>> gradtrack.ones(2).cuda()
    Traceback (most recent call last):
        ...
    AssertionError: Torch not compiled with CUDA enabled
    """,
    "to": """The tensor converted to a dtype (or to ``other``'s dtype); itself when nothing
    changes.

    >>> x = gradtrack.tensor([1.5, 2.5])
    >>> x.to(gradtrack.int64), x.to(gradtrack.float32) is x
    (tensor([1, 2]), True)
    """,
    "type": """The legacy type name, or a copy converted to the given type.

    >>> x = gradtrack.tensor([1.5])
    >>> x.type(), x.type(gradtrack.float64).dtype
    ('gradtrack.FloatTensor', gradtrack.float64)
    """,
    "type_as": """A copy converted to ``other``'s dtype (itself when they match).

    >>> gradtrack.tensor([1.7]).type_as(gradtrack.tensor([1]))
    tensor([1])
    """,
    "bool": """The tensor converted to ``bool``.

    >>> gradtrack.tensor([0.0, 2.0]).bool()
    tensor([False,  True])
    """,
    "byte": """The tensor converted to ``uint8``.

    >>> gradtrack.tensor([1.7, 2.0]).byte()
    tensor([1, 2], dtype=gradtrack.uint8)
    """,
    "int": """The tensor converted to ``int32``.

    >>> gradtrack.tensor([1.7, -2.5]).int()
    tensor([ 1, -2], dtype=gradtrack.int32)
    """,
    "long": """The tensor converted to ``int64``.

    >>> gradtrack.tensor([1.7, -2.5]).long()
    tensor([ 1, -2])
    """,
    "float": """The tensor converted to ``float32``.

    >>> gradtrack.tensor([1, 2]).float()
    tensor([1., 2.])
    """,
    "double": """The tensor converted to ``float64``.

    >>> gradtrack.tensor([1, 2]).double()
    tensor([1., 2.], dtype=gradtrack.float64)
    """,
    "bfloat16": """A copy in bfloat16 (the tensor itself if it already is).

    >>> gradtrack.tensor([1.0, 2.5]).bfloat16()
    tensor([1.0000, 2.5000], dtype=gradtrack.bfloat16)
    """,
    "half": """A copy in float16 (the tensor itself if it already is).

    >>> gradtrack.tensor([1.0, 2.5]).half()
    tensor([1.0000, 2.5000], dtype=gradtrack.float16)
    """,
    "char": """A copy in int8.

    >>> gradtrack.tensor([1, 2]).char()
    tensor([1, 2], dtype=gradtrack.int8)
    """,
    "short": """A copy in int16.

    >>> gradtrack.tensor([1, 2]).short()
    tensor([1, 2], dtype=gradtrack.int16)
    """,
}
