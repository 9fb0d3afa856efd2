"""torch's complex-number functions on real tensors (conj, real, imag, resolve_conj,
isreal & co.): identities, flags and errors against torch 2.13."""

import pytest

import gradtrack

from helpers import same


def _nonleaf(lib):
    return lib.tensor([1.0, -2.0], requires_grad=True) * 1


IDENTITIES = ("conj", "conj_physical", "resolve_conj", "resolve_neg", "real")


@pytest.mark.parametrize("name", IDENTITIES)
def test_identities_return_the_tensor_itself(name):
    def scenario(lib):
        y = _nonleaf(lib)
        as_function = getattr(lib, name)(y)
        as_attribute = getattr(y, name) if name == "real" else getattr(y, name)()
        return as_function is y, as_attribute is y, y._version, y

    same(scenario)
    y = _nonleaf(gradtrack)
    assert getattr(gradtrack, name)(y) is y


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_flags_and_isreal(dtype):
    same(lambda lib: (lambda t: (t.is_conj(), t.is_neg(), lib.is_conj(t), lib.is_neg(t),
                                 t.isreal(), lib.isreal(t)))(
        lib.tensor([1, 0, 3]).to(getattr(lib, dtype))))


ERRORS = {
    "imag_attribute": lambda lib: lib.ones(2).imag,
    "imag_function": lambda lib: lib.imag(lib.ones(2)),
    "imag_setter": lambda lib: setattr(lib.ones(2), "imag", lib.zeros(2)),
    "real_setter_on_leaf": lambda lib: setattr(lib.ones(2, requires_grad=True), "real",
                                               lib.zeros(2)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    same(ERRORS[case])


def test_setting_real_copies_into_the_tensor():
    def scenario(lib):
        z = lib.ones(3)
        view = z[1:]
        z.real = lib.tensor([4.0, 5.0, 6.0])
        return z, view, z._version

    same(scenario)
