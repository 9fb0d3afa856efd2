"""nn.utils.prune against torch on the same modules (weights loaded from the same numpy
values): masks, pruned tensors, parameter and buffer names and order, forward outputs,
gradients, seeded random choices, iterative pruning, remove(), errors and messages."""

import importlib
import re

import numpy as np
import pytest
from helpers import same

import gradtrack
import gradtrack.nn.utils.prune  # noqa: F401 - the submodule is imported as torch's is

ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _prune(lib):
    return importlib.import_module(lib.__name__ + ".nn.utils.prune")


def _values(shapes, seed):
    rng = np.random.default_rng(seed)
    return {name: rng.standard_normal(shape).astype(np.float32) for name, shape in shapes.items()}


def _load(lib, module, seed):
    """``module`` with weights drawn from numpy (the same in both libraries)."""
    shapes = {name: tuple(t.shape) for name, t in module.state_dict().items()}
    module.load_state_dict({name: lib.tensor(v) for name, v in _values(shapes, seed).items()})
    return module


def _linear(lib, seed=0, n_in=6, n_out=4):
    return _load(lib, lib.nn.Linear(n_in, n_out), seed)


def _conv(lib, seed=0):
    return _load(lib, lib.nn.Conv2d(3, 5, 3), seed)


def _layout(module):
    """Names of parameters, buffers and state_dict entries, in order, and the hooks."""
    return ([n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()],
            list(module.state_dict()),
            [type(h).__name__ for h in module._forward_pre_hooks.values()])


def _grads(module):
    return {n: p.grad for n, p in module.named_parameters()}


def test_prune_is_a_submodule_reached_as_torchs_is(torch):
    mine, theirs = _prune(gradtrack), _prune(torch)
    assert gradtrack.nn.utils.prune is mine and torch.nn.utils.prune is theirs
    names = {n for n in dir(theirs) if not n.startswith("_")}
    names -= {"ABC", "Iterable", "abstractmethod", "numbers", "torch"}
    assert names <= set(dir(mine)) and names == set(mine.__all__)


@pytest.mark.parametrize("amount", [0, 5, 0.3, 0.5, 1.0, 24])
def test_l1_unstructured_masks_outputs_and_gradients(amount):
    def scenario(lib):
        layer = _linear(lib)
        _prune(lib).l1_unstructured(layer, "weight", amount=amount)
        x = lib.tensor(_values({"x": (3, 6)}, 1)["x"])
        out = layer(x)
        out.pow(2).sum().backward()
        return (_layout(layer), layer.weight_mask, layer.weight, out, _grads(layer),
                layer.weight_mask.requires_grad, layer.weight_mask.grad)
    same(scenario)


def test_the_pruned_tensor_follows_its_original_and_mask_before_each_forward():
    def scenario(lib):
        layer = _conv(lib)
        _prune(lib).ln_structured(layer, "weight", amount=2, n=1, dim=0)
        with lib.no_grad():
            layer.weight_orig.mul_(2.0)
            layer.weight_mask[0].fill_(1.0)
        before = layer.weight.clone()
        out = layer(lib.tensor(_values({"x": (1, 3, 5, 5)}, 2)["x"]))
        return before, layer.weight, out
    same(scenario)


@pytest.mark.parametrize("amount", [1, 0.4, 0.0])
def test_random_unstructured_draws_as_torch_after_manual_seed(amount):
    def scenario(lib):
        lib.manual_seed(7)
        layer = _conv(lib)
        _prune(lib).random_unstructured(layer, "weight", amount=amount)
        return layer.weight_mask, layer.weight, lib.rand(3)  # the generator's next draws too
    same(scenario)


@pytest.mark.parametrize("dim", [0, 1, -1, 3])
@pytest.mark.parametrize("amount", [2, 0.5, 0])
def test_random_structured_draws_as_torch_after_manual_seed(dim, amount):
    def scenario(lib):
        lib.manual_seed(3)
        layer = _conv(lib)
        _prune(lib).random_structured(layer, "weight", amount=amount, dim=dim)
        return layer.weight_mask, _layout(layer), lib.rand(2)
    same(scenario)


@pytest.mark.parametrize("n", [1, 2, 3, float("inf"), float("-inf")])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_ln_structured_keeps_the_channels_of_largest_norm(n, dim):
    def scenario(lib):
        layer = _conv(lib, seed=4)
        _prune(lib).ln_structured(layer, "weight", amount=0.4, n=n, dim=dim)
        return layer.weight_mask, layer.weight
    same(scenario)


@pytest.mark.parametrize("dim", [0, -1])
def test_ln_structured_with_a_named_norm_of_a_matrix(dim):
    # (torch refuses "fro" over three dims or more, gradtrack.norm does not yet)
    def scenario(lib):
        layer = _linear(lib, seed=4)
        _prune(lib).ln_structured(layer, "weight", amount=2, n="fro", dim=dim)
        return layer.weight_mask
    same(scenario)


def test_importance_scores_choose_the_entries():
    def scenario(lib):
        prune = _prune(lib)
        layer = _conv(lib)
        scores = lib.tensor(_values({"s": (5, 3, 3, 3)}, 9)["s"])
        prune.l1_unstructured(layer, "weight", amount=20, importance_scores=scores)
        prune.ln_structured(layer, "weight", amount=1, n=2, dim=0, importance_scores=scores)
        prune.l1_unstructured(layer, "bias", amount=2, importance_scores=-layer.bias)
        return layer.weight_mask, layer.bias_mask, _layout(layer)
    same(scenario)


def test_importance_scores_of_another_shape_are_refused():
    def scenario(lib):
        layer = _linear(lib)
        try:
            _prune(lib).l1_unstructured(layer, "weight", 2, importance_scores=lib.ones(3))
        except AssertionError as e:
            return str(e), _layout(layer)
    same(scenario)


def test_iterative_pruning_works_on_what_the_mask_still_keeps():
    def scenario(lib):
        prune = _prune(lib)
        lib.manual_seed(11)
        layer = _conv(lib)
        prune.l1_unstructured(layer, "weight", amount=0.3)
        masks = [layer.weight_mask.clone()]
        prune.random_unstructured(layer, "weight", amount=10)
        masks.append(layer.weight_mask.clone())
        prune.ln_structured(layer, "weight", amount=1, n=2, dim=0)
        masks.append(layer.weight_mask.clone())
        prune.random_structured(layer, "weight", amount=0.5, dim=1)
        masks.append(layer.weight_mask.clone())
        prune.ln_structured(layer, "weight", amount=0.5, n=1, dim=-1)
        masks.append(layer.weight_mask.clone())
        (hook,) = layer._forward_pre_hooks.values()
        out = layer(lib.ones(1, 3, 4, 4))
        out.sum().backward()
        return (masks, [type(m).__name__ for m in hook], len(hook), type(hook[1]).__name__,
                [m._tensor_name for m in hook], _layout(layer), _grads(layer), lib.rand(2))
    same(scenario)


def test_container_compute_mask_combines_by_pruning_type():
    def scenario(lib):
        prune = _prune(lib)
        t = lib.tensor(_values({"t": (4, 5)}, 5)["t"])
        mask = lib.ones(4, 5)
        mask[1] = 0
        mask[2, 3] = 0
        results = []
        for method in (prune.L1Unstructured(3), prune.LnStructured(1, n=2, dim=1),
                       prune.LnStructured(2, n=1, dim=-2),
                       prune.CustomFromMask(lib.tensor(_values({"m": (4, 5)}, 6)["m"] > 0)),
                       prune.Identity()):
            method._tensor_name = "w"
            container = prune.PruningContainer(method)
            given = mask.clone()
            results.append((container.compute_mask(t, given), given))  # written in place
        return results
    same(scenario)


def test_two_methods_in_a_row_become_one_container_hook():
    def scenario(lib):
        prune = _prune(lib)
        layer = _linear(lib)
        first = prune.L1Unstructured.apply(layer, "weight", amount=3)
        second = prune.LnStructured.apply(layer, "weight", amount=1, n=2, dim=0)
        third = prune.L1Unstructured.apply(layer, "weight", amount=0.1)
        return (type(second).__name__, second is third, second[0] is first, len(third),
                _layout(layer), layer.weight_mask)
    same(scenario)


def test_custom_from_mask_and_identity():
    def scenario(lib):
        prune = _prune(lib)
        layer = _linear(lib)
        mask = lib.tensor(_values({"m": (4, 6)}, 3)["m"] > 0)
        prune.custom_from_mask(layer, "weight", mask)
        prune.identity(layer, "bias")
        prune.custom_from_mask(layer, "bias", mask=lib.tensor([1, 0, 1, 0]))
        return layer.weight_mask, layer.weight, layer.bias_mask, layer.bias, _layout(layer)
    same(scenario)


def test_global_unstructured_compares_entries_across_modules():
    def scenario(lib):
        prune = _prune(lib)
        model = lib.nn.Sequential(_conv(lib, 1), lib.nn.Flatten(), _linear(lib, 2, 45, 4))
        prune.l1_unstructured(model[2], "weight", amount=30)  # an existing mask is kept
        pairs = [(model[0], "weight"), (model[0], "bias"), (model[2], "weight")]
        scores = {(model[0], "bias"): lib.full((5,), 100.0)}
        prune.global_unstructured(pairs, pruning_method=prune.L1Unstructured,
                                  importance_scores=scores, amount=0.35)
        out = model(lib.ones(1, 3, 5, 5))
        out.sum().backward()
        return ([m for _, m in model.named_buffers()], list(model.state_dict()),
                [type(h).__name__ for h in model[2]._forward_pre_hooks.values()],
                _grads(model), prune.is_pruned(model))
    same(scenario)


def test_global_unstructured_with_random_method_is_seeded_as_torch():
    def scenario(lib):
        prune = _prune(lib)
        lib.manual_seed(5)
        a, b = _linear(lib, 1), _linear(lib, 2)
        prune.global_unstructured([(a, "weight"), (b, "weight")],
                                  pruning_method=prune.RandomUnstructured, amount=17)
        return a.weight_mask, b.weight_mask, lib.rand(2)
    same(scenario)


@pytest.mark.parametrize("case", ["not_iterable", "scores_not_dict", "structured"])
def test_global_unstructured_errors(case):
    def scenario(lib):
        prune = _prune(lib)
        layer = _linear(lib)
        if case == "not_iterable":
            prune.global_unstructured(3, prune.L1Unstructured, amount=1)
        elif case == "scores_not_dict":
            prune.global_unstructured([(layer, "weight")], prune.L1Unstructured,
                                      importance_scores=[1], amount=1)
        else:
            prune.global_unstructured([(layer, "weight")], prune.RandomStructured, amount=1)
    same(scenario)


def test_remove_makes_the_pruning_permanent():
    def scenario(lib):
        prune = _prune(lib)
        layer = _conv(lib)
        original = layer.weight
        prune.l1_unstructured(layer, "weight", amount=0.5)
        prune.l1_unstructured(layer, "bias", amount=2)
        pruned = layer.weight.detach().clone()
        before = prune.is_pruned(layer)
        assert prune.remove(layer, "weight") is layer
        kept = layer.weight is original  # the same Parameter object, with the pruned data
        layout = _layout(layer)
        prune.remove(layer, "bias")
        return (before, kept, pruned, layer.weight, layer.bias, layout, _layout(layer),
                prune.is_pruned(layer), layer._has_hooks if lib is gradtrack else False)
    same(scenario)


def test_remove_errors_and_is_pruned_of_submodules():
    def scenario(lib):
        prune = _prune(lib)
        model = lib.nn.Sequential(lib.nn.Sequential(_linear(lib)), lib.nn.ReLU())
        found = [prune.is_pruned(model)]
        prune.random_unstructured(model[0][0], "bias", amount=1)
        found.append(prune.is_pruned(model))
        try:
            prune.remove(model[0][0], "weight")
        except ValueError as e:
            return found, str(e)
    same(scenario)


def test_the_method_remove_keeps_the_hook():
    def scenario(lib):
        prune = _prune(lib)
        layer = _linear(lib)
        method = prune.L1Unstructured.apply(layer, "weight", amount=4)
        method.remove(layer)
        return _layout(layer), layer.weight
    same(scenario)


def test_prune_of_a_tensor_without_a_module():
    def scenario(lib):
        prune = _prune(lib)
        t = lib.tensor(_values({"t": (3, 4)}, 8)["t"])
        lib.manual_seed(2)
        return (prune.L1Unstructured(0.5).prune(t),
                prune.LnStructured(1, n=2, dim=0).prune(t, default_mask=lib.ones(3, 4) * 2),
                prune.RandomUnstructured(3).prune(t, importance_scores=t.abs()),
                prune.RandomStructured(1, dim=1).prune(t), prune.Identity().prune(t))
    same(scenario)


@pytest.mark.parametrize("amount", [-1, 1.5, -0.1, "0.5", None, 25])
def test_amount_checks_and_messages(amount):
    def scenario(lib):
        layer = _linear(lib)
        try:
            _prune(lib).l1_unstructured(layer, "weight", amount=amount)
        finally:
            # a refused amount (when checked by the method) leaves the module unpruned,
            # its parameter re-registered last
            names = _layout(layer)
        return names
    same(scenario)


@pytest.mark.parametrize("case", ["one_dim", "dim_too_large", "dim_too_small", "too_many",
                                  "unknown_type", "no_dim"])
def test_structured_errors(case):
    def scenario(lib):
        prune = _prune(lib)
        layer = _linear(lib)
        if case == "one_dim":
            prune.ln_structured(layer, "bias", amount=1, n=2, dim=0)
        elif case == "dim_too_large":
            prune.random_structured(layer, "weight", amount=1, dim=2)
        elif case == "dim_too_small":
            prune.ln_structured(layer, "weight", amount=1, n=2, dim=-3)
        elif case == "too_many":
            prune.ln_structured(layer, "weight", amount=7, n=2, dim=1)
        else:
            prune.l1_unstructured(layer, "weight", amount=1)
            method = prune.Identity()
            method._tensor_name = "weight"
            if case == "unknown_type":
                method.PRUNING_TYPE = "partial"
            else:
                method.PRUNING_TYPE = "structured"
            (hook,) = layer._forward_pre_hooks.values()
            prune.PruningContainer(hook, method).compute_mask(layer.weight, layer.weight_mask)
    same(scenario)


def test_container_refusals_name_the_container(torch):
    def scenario(lib):
        prune = _prune(lib)
        container = prune.PruningContainer()
        container._tensor_name = "weight"
        method = prune.Identity()
        method._tensor_name = "bias"
        messages = []
        for bad in (3, method):
            try:
                container.add_pruning_method(bad)
            except (TypeError, ValueError) as e:
                messages.append((type(e).__name__, ADDRESS.sub("", str(e))))
        try:
            prune.PruningContainer(prune.Identity(), prune.Identity())
        except AttributeError as e:
            messages.append(str(e))
        container.add_pruning_method(None)
        messages.append(len(container))
        return messages

    mine, theirs = scenario(gradtrack), scenario(torch)
    assert repr(mine) == repr(theirs).replace("torch", "gradtrack")
    assert mine[0] == ("TypeError", "<class 'int'> is not a BasePruningMethod subclass")


def test_a_second_hook_on_the_same_tensor_is_refused():
    def scenario(lib):
        prune = _prune(lib)
        layer = _linear(lib)
        prune.identity(layer, "weight")
        extra = prune.Identity()
        extra._tensor_name = "weight"
        layer.register_forward_pre_hook(extra)
        prune.l1_unstructured(layer, "weight", amount=1)
    same(scenario)


def test_a_method_never_applied_has_no_tensor_name():
    def scenario(lib):
        _prune(lib).L1Unstructured(1).apply_mask(_linear(lib))
    same(scenario)


def test_base_pruning_method_is_abstract_and_subclassable():
    def scenario(lib):
        prune = _prune(lib)

        class EveryOther(prune.BasePruningMethod):
            PRUNING_TYPE = "unstructured"

            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask.view(-1)[::2] = 0
                return mask

        layer = _linear(lib)
        EveryOther.apply(layer, "weight")
        prune.l1_unstructured(layer, "weight", amount=4)
        try:
            prune.BasePruningMethod()
        except TypeError as e:
            error = str(e)
        return layer.weight_mask, _layout(layer), error
    same(scenario)


def test_pruned_state_dict_loads_into_a_pruned_model():
    def scenario(lib):
        prune = _prune(lib)
        source = _conv(lib, 1)
        prune.l1_unstructured(source, "weight", amount=0.5)
        target = _conv(lib, 2)
        prune.identity(target, "weight")
        result = target.load_state_dict(source.state_dict())
        out = target(lib.ones(1, 3, 4, 4))
        return list(result.missing_keys), target.weight_mask, out
    same(scenario)


def test_structured_pruning_again_skips_channels_already_pruned():
    # The container's structured case must skip channels already all zero: pruning
    # two channels after one is gone prunes two more, not one more.
    prune = gradtrack.nn.utils.prune
    layer = _linear(gradtrack)
    prune.ln_structured(layer, "weight", amount=1, n=2, dim=0)
    prune.ln_structured(layer, "weight", amount=2, n=2, dim=0)
    assert int((layer.weight_mask.sum(1) == 0).sum()) == 3
