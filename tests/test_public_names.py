"""Every Python function under a public name says that name (NOTE [A function says its
public name] in gradtrack/_registry.py): in the errors of a call whose arguments do not
bind, and to pickle, which finds a function by its module and qualified name."""

import inspect
import pickle
import types

import pytest

import gradtrack
from helpers import same


def _python_functions(owner, names):
    for name in names:
        if name.startswith("_"):
            continue
        value = inspect.getattr_static(owner, name, None)  # a lazy submodule: None
        if isinstance(value, types.FunctionType) and value.__module__.startswith("gradtrack"):
            yield name, value


def test_module_functions_say_their_name():
    wrong = [(name, fn.__name__, fn.__qualname__, fn.__module__)
             for name, fn in _python_functions(gradtrack, dir(gradtrack))
             if (fn.__name__, fn.__qualname__, fn.__module__) != (name, name, "gradtrack")]
    assert not wrong


# torch's Tensor methods written in Python, which print "Tensor.<name>()"; the C++ ones
# print "<name>()".
TORCH_PYTHON_METHODS = {"backward", "is_shared", "lu", "norm", "register_hook",
                        "register_post_accumulate_grad_hook", "share_memory_", "split",
                        "storage", "unflatten", "unique", "unique_consecutive"}


def test_tensor_methods_say_their_name():
    wrong = []
    for name, fn in _python_functions(gradtrack.Tensor, vars(gradtrack.Tensor)):
        want = f"Tensor.{name}" if name in TORCH_PYTHON_METHODS else name
        if (fn.__name__, fn.__qualname__) != (name, want):
            wrong.append((name, fn.__name__, fn.__qualname__))
    assert not wrong


def test_torch_s_python_methods_are_the_list(torch):
    import types
    written = {name for name, value in vars(torch.Tensor).items()
               if isinstance(value, types.FunctionType) and not name.startswith("_")}
    assert written & set(dir(gradtrack.Tensor)) == TORCH_PYTHON_METHODS


def test_an_alias_is_its_own_function():
    assert gradtrack.Tensor.arcsin_ is not gradtrack.Tensor.asin_
    assert gradtrack.Tensor.arcsin_.__name__ == "arcsin_"
    assert gradtrack.Tensor.asin_.__name__ == "asin_"
    x = gradtrack.tensor([0.5])
    assert x.clone().arcsin_().tolist() == x.clone().asin_().tolist()


def _public_callables():
    for name in dir(gradtrack):
        value = getattr(gradtrack, name)
        if (not name.startswith("_") and callable(value) and not isinstance(value, type)
                and getattr(value, "__module__", "").startswith("gradtrack")):
            yield f"gradtrack.{name}", value
    for name in dir(gradtrack.Tensor):
        value = inspect.getattr_static(gradtrack.Tensor, name)
        if (not name.startswith("_") and callable(value) and not isinstance(value, property)
                and type(value).__name__ != "instancemethod"):  # C++ methods pickle by torch's rules
            yield f"Tensor.{name}", getattr(gradtrack.Tensor, name)


def test_public_functions_pickle_by_name():
    wrong = []
    for label, fn in _public_callables():
        try:
            if pickle.loads(pickle.dumps(fn)) is not fn:
                wrong.append(label)
        except (pickle.PicklingError, AttributeError, TypeError) as e:
            wrong.append(f"{label}: {e}")
    assert not wrong


ERRORS = {
    "split_without_size": lambda lib: lib.ones(4).split(),
    "norm_unknown_keyword": lambda lib: lib.ones(4).norm(foo=1),
    "unique_unknown_keyword": lambda lib: lib.ones(4).unique(foo=1),
}


@pytest.mark.parametrize("name", ERRORS)
def test_python_methods_name_themselves_as_torch_s(name):
    """torch's own Python methods print "Tensor.<name>()" when their arguments do not
    bind; gradtrack's print the same."""
    same(ERRORS[name])


def test_a_method_made_in_a_loop_names_itself():
    with pytest.raises(TypeError, match=r"^abs_\(\) got an unexpected keyword argument"):
        gradtrack.ones(2).abs_(foo=1)
