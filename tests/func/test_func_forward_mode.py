"""gradtrack.func's forward-mode transforms (jvp, jacfwd) and functional_call against
torch.func 2.13: values, structure, errors word for word."""

import pytest

from helpers import same


def _x(lib):
    return lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)


def _lin(lib):
    lib.manual_seed(0)
    return lib.nn.Linear(3, 2)


SCENARIOS = {
    "jvp": lambda lib: lib.func.jvp(lambda x: x.sin() * x, (_x(lib),), (lib.ones(3, dtype=lib.float64),)),
    "jvp_two_primals": lambda lib: lib.func.jvp(lambda a, b: (a * b).exp(), (_x(lib), _x(lib) + 1),
                                                (_x(lib), lib.ones(3, dtype=lib.float64))),
    "jvp_tuple_output": lambda lib: lib.func.jvp(lambda x: (x * 2, x.sum()), (_x(lib),), (_x(lib),)),
    "jvp_independent_output": lambda lib: lib.func.jvp(lambda x: lib.ones(2), (_x(lib),), (_x(lib),)),
    "jvp_has_aux": lambda lib: lib.func.jvp(lambda x: (x ** 2, x * 3), (_x(lib),), (_x(lib),),
                                            has_aux=True),
    "jvp_matmul": lambda lib: lib.func.jvp(lambda m: m @ m, (lib.tensor([[1.0, 2.0], [3.0, 4.0]]),),
                                           (lib.eye(2),)),
    "jacfwd": lambda lib: lib.func.jacfwd(lambda x: x.sin() * x.sum())(_x(lib)),
    "jacfwd_tuple": lambda lib: lib.func.jacfwd(lambda x, y: (x * y, x.sum()), argnums=(0, 1))(
        _x(lib), _x(lib) + 1),
    "jacfwd_aux": lambda lib: lib.func.jacfwd(lambda x: (x.exp(), x.cos()), has_aux=True)(_x(lib)),
    "jacfwd_matrix": lambda lib: lib.func.jacfwd(lambda m: m.t() @ m)(lib.tensor([[1.0, 2.0]])),
    "jacfwd_dict": lambda lib: lib.func.jacfwd(lambda d: d["a"] * d["b"])({"a": _x(lib), "b": _x(lib)}),
    "jacfwd_randomness_same": lambda lib: _seeded(lib, lambda: lib.func.jacfwd(
        lambda x: x * lib.rand(3, dtype=lib.float64), randomness="same")(_x(lib))),
    "functional_call": lambda lib: lib.func.functional_call(
        _lin(lib), {"weight": lib.ones(2, 3)}, (lib.ones(3),)),
    "functional_call_tuple_of_dicts": lambda lib: lib.func.functional_call(
        _lin(lib), ({"weight": lib.ones(2, 3)}, {"bias": lib.zeros(2)}), lib.ones(3)),
    "functional_call_kwargs": lambda lib: lib.func.functional_call(
        lib.nn.Identity(), {}, (), {"input": lib.ones(2)}),
    "jacrev_of_functional_call": lambda lib: lib.func.jacrev(
        lambda p: lib.func.functional_call(_lin(lib), p, (lib.ones(3),)))(
        {"weight": lib.ones(2, 3), "bias": lib.zeros(2)}),
    # errors
    "jvp_primals_not_tuple": lambda lib: lib.func.jvp(lambda x: x, _x(lib), _x(lib)),
    "jvp_structures_differ": lambda lib: lib.func.jvp(lambda x: x, (_x(lib),), (_x(lib), _x(lib))),
    "jvp_tangent_shape": lambda lib: lib.func.jvp(lambda x: x, (_x(lib),),
                                                  (lib.ones(4, dtype=lib.float64),)),
    "jvp_float_primal": lambda lib: lib.func.jvp(lambda x: x, (2.0,), (_x(lib),)),
    "jvp_no_primals": lambda lib: lib.func.jvp(lambda: lib.ones(1), (), ()),
    "jvp_returns_float": lambda lib: lib.func.jvp(lambda x: 2.0, (_x(lib),), (_x(lib),)),
    "jvp_strict_independent": lambda lib: lib.func.jvp(lambda x: lib.ones(2), (_x(lib),),
                                                       (_x(lib),), strict=True),
    "jvp_has_aux_not_pair": lambda lib: lib.func.jvp(lambda x: x, (_x(lib),), (_x(lib),),
                                                     has_aux=True),
    "jacfwd_random_in_error_mode": lambda lib: lib.func.jacfwd(lambda x: x * lib.rand(3))(
        lib.ones(3)),
    "jacfwd_randomness_unknown": lambda lib: lib.func.jacfwd(lambda x: x, randomness="x")(_x(lib)),
    "functional_call_repeated_names": lambda lib: lib.func.functional_call(
        _lin(lib), ({"weight": lib.ones(2, 3)}, {"weight": lib.ones(2, 3)}), (lib.ones(3),)),
    "functional_call_list_of_non_dicts": lambda lib: lib.func.functional_call(
        _lin(lib), [1], (lib.ones(3),)),
    "functional_call_not_a_dict": lambda lib: lib.func.functional_call(_lin(lib), 3, (lib.ones(3),)),
    "functional_call_strict": lambda lib: lib.func.functional_call(
        _lin(lib), {"weight": lib.ones(2, 3)}, (lib.ones(3),), strict=True),
    "stack_module_state_empty": lambda lib: lib.func.stack_module_state([]),
    "stack_module_state_mixed_classes": lambda lib: lib.func.stack_module_state(
        [lib.nn.Linear(1, 1), lib.nn.Identity()]),
}


def _seeded(lib, fn):
    lib.manual_seed(0)
    return fn()


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_matches_torch(name):
    same(SCENARIOS[name])
