"""Where pickle finds a Tensor method written in Python (NOTE [A function says its public
name] in _registry.py): ``gradtrack._tensor_methods.<name>`` is ``Tensor.<name>`` as the
class holds it. A method says this module and its bare name, as torch's C++ methods
name themselves in their errors (``new_full() got multiple values for argument``)."""


def __getattr__(name):
    from ._C import Tensor

    try:
        return vars(Tensor)[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
