"""functional_call on modules with tied weights (one tensor under several names), against
torch 2.13: a given tensor replaces every tied name, different tensors for tied names are
refused with torch's ValueError (or its KeyError when a tied name is not given),
tie_weights=False replaces names one by one, and strict counts the tied names."""

import pytest

from helpers import same


def _tied(lib):
    class Tied(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Linear(2, 2, bias=False)
            self.b = lib.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight
            self.register_buffer("u", lib.ones(2))
            self.register_buffer("v", None)
            self.v = self.u

        def forward(self, x):
            return self.b(self.a(x)) + self.u + self.v
    return Tied()


def _tied3(lib):
    m = _tied(lib)
    m.c = lib.nn.Linear(2, 2, bias=False)
    m.c.weight = m.a.weight
    return m


def _call(lib, params, make=_tied, **kw):
    lib.manual_seed(0)
    return lib.func.functional_call(make(lib), params, (lib.ones(1, 2),), **kw)


def _eye(lib):
    return lib.eye(2)


SCENARIOS = {
    "conflicting_values": lambda lib: _call(lib, {"a.weight": _eye(lib),
                                                  "b.weight": lib.zeros(2, 2)}),
    "same_tensor_twice": lambda lib: (lambda e: _call(lib, {"a.weight": e, "b.weight": e}))(
        _eye(lib)),
    "equal_values_different_tensors": lambda lib: _call(
        lib, {"a.weight": _eye(lib), "b.weight": _eye(lib)}),
    "one_name_of_the_tie": lambda lib: _call(lib, {"b.weight": _eye(lib)}),
    "untied_conflicting": lambda lib: _call(lib, {"a.weight": _eye(lib),
                                                  "b.weight": lib.zeros(2, 2)}, tie_weights=False),
    "untied_one": lambda lib: _call(lib, {"b.weight": lib.zeros(2, 2)}, tie_weights=False),
    "tied_buffers_conflicting": lambda lib: _call(lib, {"u": lib.zeros(2), "v": lib.ones(2)}),
    "dicts_in_a_tuple": lambda lib: _call(lib, ({"a.weight": _eye(lib)},
                                                {"b.weight": lib.zeros(2, 2)})),
    "three_way_two_given": lambda lib: _call(lib, {"a.weight": _eye(lib),
                                                   "b.weight": lib.zeros(2, 2)}, _tied3),
    "three_way_all_given": lambda lib: _call(lib, {"c.weight": _eye(lib),
                                                   "b.weight": lib.zeros(2, 2),
                                                   "a.weight": _eye(lib) * 2}, _tied3),
    "strict_one_tied_name": lambda lib: _call(lib, {"a.weight": _eye(lib)}, strict=True),
    "strict_tied_names_filled": lambda lib: _call(lib, {"b.weight": _eye(lib),
                                                        "u": lib.zeros(2)}, strict=True),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_functional_call_with_tied_weights(name):
    same(SCENARIOS[name])
