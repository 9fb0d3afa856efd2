"""lerp with a tensor weight of another dtype, against torch 2.13: a 0-dim weight of any
dtype is taken in the start's dtype (three 0-dim tensors compute in their promoted
dtype); a weight with dims must have the start's dtype."""

import pytest

from helpers import same

WEIGHTS = [("long", 1), ("long", 2), ("float64", 0.1), ("float16", 0.3), ("bool", True),
           ("float32", 0.25)]


def _start_end(lib):
    return lib.tensor([0.0, 1.0, -3.0]), lib.tensor([1.0, 7.0, 2.5])


@pytest.mark.parametrize("dtype, value", WEIGHTS)
@pytest.mark.parametrize("form", ["function", "method", "inplace", "out"])
def test_lerp_takes_a_0dim_weight_of_another_dtype(form, dtype, value):
    def scenario(lib):
        a, b = _start_end(lib)
        w = lib.tensor(value, dtype=getattr(lib, dtype))
        if form == "function":
            return lib.lerp(a, b, w)
        if form == "method":
            return a.lerp(b, w)
        if form == "inplace":
            return a.lerp_(b, w)
        return lib.lerp(a, b, w, out=lib.empty(3))
    same(scenario)


@pytest.mark.parametrize("dtype, value", WEIGHTS[:3])
def test_lerp_0dim_weight_of_another_dtype_records_lerp_backward1(dtype, value):
    def scenario(lib):
        a, b = _start_end(lib)
        a.requires_grad_()
        out = lib.lerp(a, b, lib.tensor(value, dtype=getattr(lib, dtype)))
        out.sum().backward()
        return out, a.grad
    same(scenario)


def test_lerp_floating_0dim_weight_gets_its_gradient_in_its_dtype():
    def scenario(lib):
        a, b = _start_end(lib)
        w = lib.tensor(0.1, dtype=lib.float64, requires_grad=True)
        out = lib.lerp(a, b, w)
        out.sum().backward()
        return out, w.grad
    same(scenario)


@pytest.mark.parametrize("weight", [([0.5], "float64"), ([1], "long")])
def test_lerp_weight_with_dims_must_have_the_start_s_dtype(weight):
    same(lambda lib: lib.lerp(*_start_end(lib), lib.tensor(weight[0],
                                                           dtype=getattr(lib, weight[1]))))


@pytest.mark.parametrize("case", ["f64 weight", "int weight", "f16 start", "0-dim start only",
                                  "end of another dtype", "requires grad"])
def test_lerp_of_0dim_tensors_promotes(case):
    def scenario(lib):
        s, e, w = lib.tensor(0.0), lib.tensor(1.0), lib.tensor(0.1, dtype=lib.float64)
        if case == "int weight":
            w = lib.tensor(1)
        elif case == "f16 start":
            s, e, w = s.half(), e.half(), lib.tensor(0.1)
        elif case == "0-dim start only":
            e = lib.ones(2)
        elif case == "end of another dtype":
            e = e.double()
        elif case == "requires grad":
            s.requires_grad_()
        return lib.lerp(s, e, w)
    same(scenario)


def test_lerp_0dim_weight_of_another_dtype_is_an_input_of_the_lerp_node():
    def scenario(lib):
        a, b = _start_end(lib)
        w = lib.tensor(0.1, dtype=lib.float64, requires_grad=True)
        return [n.name().split("::")[-1] for n, _ in lib.lerp(a, b, w).grad_fn.next_functions
                if n is not None]
    same(scenario)
