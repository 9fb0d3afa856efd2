"""Module API corners against PyTorch 2.13: ``load_state_dict(strict=False)``'s
named tuple, state-dict pre/post hooks and load hooks, extra state,
non-persistent buffers, ``get_submodule``/``get_parameter``/``get_buffer``/
``set_submodule``, ``named_modules(remove_duplicate=False)``, ``to_empty``,
``half``/``bfloat16`` and ``share_memory``."""

import pickle

import pytest

import gradtrack

from helpers import same


def _net(lib):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3), lib.nn.Linear(3, 1))
    net.register_buffer("scratch", lib.ones(1), persistent=False)
    return net


def test_state_dict_keys_skip_non_persistent_buffers():
    same(lambda lib: list(_net(lib).state_dict()))


def test_load_state_dict_strict_false_named_tuple():
    def scenario(lib):
        net = _net(lib)
        state = net.state_dict()
        del state["0.bias"]
        state["extra.weight"] = lib.zeros(1)
        state["2.unknown"] = lib.zeros(1)
        result = net.load_state_dict(state, strict=False)
        return (type(result).__name__, result.missing_keys, result.unexpected_keys, repr(result),
                result._fields)

    same(scenario)


def test_load_state_dict_strict_message():
    def scenario(lib):
        net = _net(lib)
        state = net.state_dict()
        del state["0.bias"]
        state["2.unknown"] = lib.zeros(1)
        state["1.weight"] = lib.zeros(4)
        net.load_state_dict(state)

    same(scenario)


def test_all_keys_matched_repr():
    same(lambda lib: repr(_net(lib).load_state_dict(_net(lib).state_dict())))


def test_state_dict_pre_and_post_hooks():
    def scenario(lib):
        net = _net(lib)
        calls = []
        net[0].register_state_dict_pre_hook(lambda m, prefix, keep: calls.append(("pre", prefix)))

        def post(m, sd, prefix, meta):
            calls.append(("post", prefix, dict(meta)))
            sd[prefix + "added"] = lib.zeros(1)

        net[2].register_state_dict_post_hook(post)
        return calls, list(net.state_dict(prefix="model."))

    same(scenario)


def test_state_dict_post_hook_must_return_none():
    def scenario(lib):
        m = lib.nn.Linear(1, 1)
        m.register_state_dict_post_hook(lambda m, sd, prefix, meta: sd)
        m.state_dict()

    same(scenario)


def test_private_state_dict_hook_may_replace_the_dict():
    def scenario(lib):
        m = lib.nn.Linear(1, 1)
        m._register_state_dict_hook(lambda m, sd, prefix, meta: {"only": 1})
        return m.state_dict()

    same(scenario)


def test_load_state_dict_pre_and_post_hooks():
    def scenario(lib):
        net = _net(lib)
        calls = []

        def pre(module, sd, prefix, meta, strict, missing, unexpected, errors):
            calls.append(("pre", type(module).__name__, prefix, dict(meta), strict))

        def post(module, keys):
            calls.append(("post", type(module).__name__, list(keys.missing_keys)))
            keys.unexpected_keys.clear()

        net[0].register_load_state_dict_pre_hook(pre)
        net.register_load_state_dict_post_hook(post)
        state = net.state_dict()
        state["junk"] = lib.zeros(1)
        result = net.load_state_dict(state)
        return calls, repr(result)

    same(scenario)


def test_load_state_dict_post_hook_returning_value_is_refused():
    def scenario(lib):
        m = lib.nn.Linear(1, 1)
        m.register_load_state_dict_post_hook(lambda m, keys: keys)
        m.load_state_dict(m.state_dict())

    same(scenario)


def test_extra_state_saved_and_loaded():
    def scenario(lib):
        class Counter(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.count = 0
                self.lin = lib.nn.Linear(1, 1)

            def get_extra_state(self):
                return {"count": self.count}

            def set_extra_state(self, state):
                self.count = state["count"]

        a = Counter()
        a.count = 7
        b = Counter()
        b.load_state_dict(a.state_dict())
        keys = list(a.state_dict())
        missing = Counter().load_state_dict({k: v for k, v in a.state_dict().items()
                                             if k != "_extra_state"}, strict=False)
        unexpected = lib.nn.Linear(1, 1).load_state_dict(
            {"_extra_state": 1, **lib.nn.Linear(1, 1).state_dict()}, strict=False)
        return keys, b.count, missing.missing_keys, unexpected.unexpected_keys

    same(scenario)


@pytest.mark.parametrize("target", ["0", "1.running_mean", "2.weight", "0.nope", "1.weight",
                                    "0.weight.x", "", "1.num_batches_tracked"])
def test_get_submodule_parameter_buffer(target):
    def scenario(lib):
        net = _net(lib)
        out = []
        for getter in ("get_submodule", "get_parameter", "get_buffer"):
            try:
                value = getattr(net, getter)(target)
                out.append(type(value).__name__)
            except AttributeError as e:
                out.append(str(e))
        return out

    same(scenario)


@pytest.mark.parametrize("target,strict", [("0", False), ("1", True), ("5", False), ("5", True),
                                           ("", False), ("0.weight", False)])
def test_set_submodule(target, strict):
    def scenario(lib):
        net = _net(lib)
        net.set_submodule(target, lib.nn.ReLU(), strict=strict)
        return repr(net)

    same(scenario)


def test_named_modules_remove_duplicate_false():
    def scenario(lib):
        shared = lib.nn.ReLU()
        net = lib.nn.Sequential(shared, lib.nn.Sequential(shared), shared)
        return ([name for name, _ in net.named_modules()],
                [name for name, _ in net.named_modules(remove_duplicate=False)],
                len(list(net.modules(remove_duplicate=False))))

    same(scenario)


def test_to_empty_keeps_shapes_dtypes_and_parameters():
    def scenario(lib):
        net = _net(lib).double()
        weight = net[0].weight
        out = net.to_empty(device="cpu")
        return (out is net, net[0].weight is weight,
                [(name, tuple(t.shape), str(t.dtype)) for name, t in net.state_dict().items()],
                net[0].weight.requires_grad)

    same(scenario)


def test_to_empty_without_recurse():
    def scenario(lib):
        net = _net(lib)
        before = net[0].weight.detach().clone()
        net.to_empty(device="cpu", recurse=False)
        return lib.equal(before, net[0].weight.detach())

    same(scenario)


@pytest.mark.parametrize("method", ["half", "bfloat16"])
def test_half_and_bfloat16(method):
    def scenario(lib):
        net = _net(lib)
        getattr(net, method)()
        out = net.eval()(lib.ones(2, 2).to(net[0].weight.dtype))
        return ([(name, str(t.dtype)) for name, t in net.state_dict().items()], str(out.dtype),
                out)

    same(scenario)


def test_share_memory_shares_every_tensor_as_torch(torch):
    shared = []
    for lib in (torch, gradtrack):
        net = _net(lib)
        assert net.share_memory() is net
        shared.append([t.is_shared() for t in list(net.parameters()) + list(net.buffers())])
    assert shared[0] == shared[1] and all(shared[1])


def test_pickled_module_keeps_hook_dicts():
    m = gradtrack.nn.Linear(2, 2)
    state = m.__dict__.copy()
    for key in ("_backward_pre_hooks", "_forward_hooks_with_kwargs", "_state_dict_pre_hooks"):
        del state[key]
    fresh = gradtrack.nn.Linear.__new__(gradtrack.nn.Linear)
    fresh.__setstate__(state)
    assert fresh._backward_pre_hooks == {} and fresh._state_dict_pre_hooks == {}
    clone = pickle.loads(pickle.dumps(m))
    assert clone(gradtrack.ones(1, 2)).shape == (1, 2)
