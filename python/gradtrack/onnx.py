"""``torch.onnx``: importable, so that scripts importing it at the top run on gradtrack;
gradtrack cannot export ONNX, and ``export`` says so.

>>> import gradtrack
>>> gradtrack.onnx.is_in_onnx_export()
False
"""


def export(model, args=(), f=None, **kwargs):
    """Raises NotImplementedError: gradtrack cannot export ONNX (no graph capture).

    >>> import gradtrack
    >>> gradtrack.onnx.export(gradtrack.nn.Linear(2, 2), (gradtrack.ones(2),), "m.onnx")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    NotImplementedError: gradtrack cannot export ONNX: ...
    """
    raise NotImplementedError(
        "gradtrack cannot export ONNX: it runs models eagerly and has no graph capture; export "
        "the model with PyTorch instead.")


def is_in_onnx_export() -> bool:
    """False: gradtrack never exports.

    >>> import gradtrack
    >>> gradtrack.onnx.is_in_onnx_export()
    False
    """
    return False
