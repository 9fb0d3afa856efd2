"""``parameters_to_vector`` / ``vector_to_parameters`` (PyTorch's, CPU only)."""

from ... import _C
from ..modules.module import typename

_Tensor = _C.Tensor


def parameters_to_vector(parameters):
    """Concatenates the parameters, flattened, into one 1-D tensor.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import parameters_to_vector
    >>> parameters_to_vector([gradtrack.ones(2, 2), gradtrack.zeros(1)])
    tensor([1., 1., 1., 1., 0.])
    """
    return _C.cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of ``vec`` into the parameters (their ``.data``).

    >>> import gradtrack
    >>> from gradtrack.nn.utils import vector_to_parameters
    >>> a, b = gradtrack.zeros(2), gradtrack.zeros(1, 1)
    >>> vector_to_parameters(gradtrack.tensor([1.0, 2.0, 3.0]), [a, b])
    >>> a, b
    (tensor([1., 2.]), tensor([[3.]]))
    """
    if not isinstance(vec, _Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        count = param.numel()
        param.data = vec[pointer:pointer + count].view_as(param).data
        pointer += count
