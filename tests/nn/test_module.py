"""gradtrack.nn.Parameter and Module: registration and iteration, calling and hooks,
train/eval, zero_grad, apply, deepcopy and dtype moves, reprs, Sequential, and
state_dict / load_state_dict.

Tests taking the ``torch`` fixture compare with PyTorch 2.13 (skipped when it
is not installed); the others pin PyTorch's measured text and numbers, or check
against NumPy and closed forms.
"""

import copy
from collections import OrderedDict

import gradtrack as gt
from gradtrack import nn

from helpers import error_of, gradtrack_to_torch, to_np


# ---- Parameter -------------------------------------------------------------------------------

def test_parameter_is_leaf_requiring_grad_that_aliases_data():
    data = gt.ones(2, 3)
    p = nn.Parameter(data)
    assert isinstance(p, gt.Tensor) and type(p) is nn.Parameter
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    assert p.data_ptr() == data.data_ptr()
    assert not data.requires_grad


def test_parameter_shares_version_counter_with_data():
    data = gt.zeros(2)
    p = nn.Parameter(data)
    data.add_(1)
    assert p._version == 1
    assert to_np(p).tolist() == [1.0, 1.0]


def test_parameter_of_non_leaf_is_a_leaf():
    x = gt.ones(2, requires_grad=True)
    p = nn.Parameter(x * 2)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


def test_parameter_repr():
    assert repr(nn.Parameter(gt.tensor([1.0, 1.0]))) == (
        "Parameter containing:\ntensor([1., 1.], requires_grad=True)")
    assert repr(nn.Parameter(gt.tensor([1, 2]), requires_grad=False)) == (
        "Parameter containing:\ntensor([1, 2])")
    assert repr(nn.Parameter()) == "Parameter containing:\ntensor([], requires_grad=True)"


def test_parameter_of_integers_cannot_require_grad():
    assert error_of(lambda: nn.Parameter(gt.tensor([1, 2]))) == (
        "RuntimeError", "Only Tensors of floating point and complex dtype can require gradients")


def test_parameter_deepcopy_copies_values_not_grad():
    p = nn.Parameter(gt.tensor([1.0, 2.0]))
    p.grad = gt.ones(2)
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.requires_grad and q.is_leaf
    assert q.data_ptr() != p.data_ptr() and q.grad is None and q._version == 0
    assert to_np(q).tolist() == [1.0, 2.0]


def test_parameter_matches_torch(torch):
    def run(lib):
        data = lib.zeros(3)
        p = lib.nn.Parameter(data)
        data.add_(1)
        return p._version, p.is_leaf, copy.deepcopy(p)._version, repr(p)

    assert run(gt) == run(torch)


# ---- Module: registration and iteration ------------------------------------------------------

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(4, 2)
        self.register_buffer("running", gt.zeros(2))
        self.register_buffer("scratch", gt.zeros(1), persistent=False)
        self.scale = nn.Parameter(gt.ones(1))

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))) * self.scale


def test_attribute_assignment_registers_parameters_modules_buffers():
    net = Net()
    assert list(net._parameters) == ["scale"]
    assert list(net._modules) == ["fc1", "act", "fc2"]
    assert list(net._buffers) == ["running", "scratch"]
    assert net.fc1 is net._modules["fc1"] and net.running is net._buffers["running"]
    assert [n for n, _ in net.named_parameters()] == [
        "scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert len(list(net.parameters())) == 5
    assert [n for n, _ in net.named_buffers()] == ["running", "scratch"]
    assert [n for n, _ in net.named_children()] == ["fc1", "act", "fc2"]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "act", "fc2"]
    assert list(net.children()) == [net.fc1, net.act, net.fc2]
    assert next(iter(net.modules())) is net


def test_iteration_matches_torch(torch):
    def build(lib):
        mod = lib.nn
        shared = mod.Linear(2, 2)
        return mod.Sequential(shared, mod.ReLU(), mod.Sequential(mod.Linear(2, 3), shared))

    ours, theirs = build(gt), build(torch)
    for method in ("named_parameters", "named_modules", "named_children", "named_buffers"):
        assert [n for n, _ in getattr(ours, method)()] == [n for n, _ in getattr(theirs, method)()]
    assert len(list(ours.parameters())) == len(list(theirs.parameters())) == 4
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_shared_parameter_is_yielded_once():
    lin = nn.Linear(2, 2)
    model = nn.Sequential(lin, lin)
    assert len(list(model.parameters())) == 2
    assert [n for n, _ in model.named_parameters(remove_duplicate=False)] == [
        "0.weight", "0.bias", "1.weight", "1.bias"]


def test_reassigning_and_deleting_attributes():
    net = Net()
    net.fc1 = None
    assert net._modules["fc1"] is None and net.fc1 is None
    assert [n for n, _ in net.named_children()] == ["act", "fc2"]
    net.scale = None
    assert "scale" not in dict(net.named_parameters())
    del net.running
    assert "running" not in net._buffers
    net.plain = 3
    assert net.plain == 3 and "plain" in net.__dict__


def test_registration_errors_match_torch_text():
    net = Net()
    assert error_of(lambda: setattr(net, "scale", gt.ones(1))) == (
        "TypeError", "cannot assign 'gradtrack.FloatTensor' as parameter 'scale' "
        "(torch.nn.Parameter or None expected)")
    assert error_of(lambda: setattr(net, "fc1", 3)) == (
        "TypeError", "cannot assign 'int' as child module 'fc1' (torch.nn.Module or None expected)")
    assert error_of(lambda: net.register_buffer("a.b", gt.ones(1))) == (
        "KeyError", "'buffer name can\\'t contain \".\"'")
    assert error_of(lambda: net.register_buffer("fc1", gt.ones(1))) == (
        "KeyError", "\"attribute 'fc1' already exists\"")
    assert error_of(lambda: net.register_parameter("w", gt.ones(1))) == (
        "TypeError", "cannot assign 'gradtrack.FloatTensor' object to parameter 'w' "
        "(torch.nn.Parameter or None required)")
    assert error_of(lambda: net.missing) == (
        "AttributeError", "'Net' object has no attribute 'missing'")
    assert error_of(lambda: nn.Module().forward(1)) == (
        "NotImplementedError", 'Module [Module] is missing the required "forward" function')


def test_assignment_before_init_is_refused():
    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(gt.ones(1))

    assert error_of(Early) == (
        "AttributeError", "cannot assign parameters before Module.__init__() call")


def test_registration_errors_equal_torch(torch):
    def messages(lib):
        net = lib.nn.Linear(2, 2)
        out = []
        for fn in (lambda: setattr(net, "weight", lib.ones(1)),
                   lambda: net.register_buffer("", lib.ones(1)),
                   lambda: net.add_module("x.y", lib.nn.ReLU()),
                   lambda: net.register_parameter("p", lib.nn.Parameter(lib.ones(1)) * 2),
                   lambda: getattr(net, "nope")):
            out.append(error_of(fn))
        return out

    assert [(k, gradtrack_to_torch(m)) for k, m in messages(gt)] == messages(torch)


def test_call_runs_forward_and_hooks():
    lin = nn.Linear(2, 1)
    x = gt.ones(3, 2)
    assert gt.equal(lin(x), lin.forward(x))
    seen = []
    handle = lin.register_forward_hook(lambda mod, args, out: seen.append(out.shape))
    pre = lin.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    out = lin(x)
    assert seen == [gt.Size([3, 1])]
    assert gt.equal(out, lin.bias.detach().expand(3, 1))
    handle.remove()
    pre.remove()
    lin(x)
    assert len(seen) == 1 and not lin._has_hooks


def test_train_eval_propagate():
    net = Net()
    assert net.training and net.fc1.training
    assert net.eval() is net
    assert not net.training and not net.fc1.training and not net.act.training
    net.train()
    assert all(m.training for m in net.modules())
    assert error_of(lambda: net.train("yes")) == (
        "ValueError", "training mode is expected to be boolean")


def test_zero_grad_default_sets_none():
    lin = nn.Linear(2, 1)
    lin(gt.ones(1, 2)).sum().backward()
    assert lin.weight.grad is not None
    lin.zero_grad()
    assert lin.weight.grad is None and lin.bias.grad is None


def test_zero_grad_set_to_none_false_keeps_object_and_zeroes():
    lin = nn.Linear(2, 1)
    lin(gt.ones(1, 2)).sum().backward()
    grad = lin.weight.grad
    version = grad._version
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad is grad
    assert to_np(grad).tolist() == [[0.0, 0.0]]
    assert grad._version == version + 1 and not grad.requires_grad


def test_zero_grad_matches_torch(torch):
    def run(lib):
        lin = lib.nn.Linear(2, 1)
        lin(lib.ones(1, 2)).sum().backward()
        grad = lin.weight.grad
        v0 = grad._version
        lin.zero_grad(set_to_none=False)
        same = lin.weight.grad is grad
        out = (v0, grad._version, same, repr(lin.weight.grad))
        lin.zero_grad()
        return out + (lin.weight.grad,)

    assert run(gt) == run(torch)


def test_apply_and_requires_grad():
    net = Net()
    visited = []
    assert net.apply(lambda m: visited.append(type(m).__name__)) is net
    assert visited == ["Linear", "ReLU", "Linear", "Net"]
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    net.requires_grad_()
    assert all(p.requires_grad for p in net.parameters())


def test_apply_for_custom_init_bumps_versions_like_torch():
    def init_weights(m):
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight)
            nn.init.zeros_(m.bias)

    net = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1)).apply(init_weights)
    assert [p._version for p in net.parameters()] == [2, 2, 2, 2]
    assert to_np(net[0].bias).tolist() == [0.0, 0.0, 0.0]


def test_deepcopy_module_is_independent():
    net = Net()
    twin = copy.deepcopy(net)
    assert twin.fc1.weight is not net.fc1.weight
    assert gt.equal(twin.fc1.weight, net.fc1.weight)
    with gt.no_grad():
        twin.fc1.weight.add_(1)
    assert not gt.equal(twin.fc1.weight, net.fc1.weight)
    assert [n for n, _ in twin.named_parameters()] == [n for n, _ in net.named_parameters()]


def test_double_keeps_parameter_objects():
    lin = nn.Linear(2, 1)
    weight = lin.weight
    assert lin.double() is lin
    assert lin.weight is weight and lin.weight.dtype is gt.float64 and lin.weight.is_leaf
    out = lin(gt.ones(1, 2, dtype=gt.float64))
    assert out.dtype is gt.float64
    lin.float()
    assert lin.weight.dtype is gt.float32


def test_get_submodule_and_parameter():
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 1)))
    assert net.get_submodule("1.0") is net[1][0]
    assert net.get_parameter("1.0.bias") is net[1][0].bias
    assert error_of(lambda: net.get_submodule("1.x")) == (
        "AttributeError", "Sequential has no attribute `x`")


# ---- reprs ---------------------------------------------------------------------------------------

def _zoo(lib):
    mod = lib.nn
    return mod.Sequential(
        mod.Linear(2, 3), mod.ReLU(), mod.Sequential(mod.Flatten(), mod.Tanh()),
        mod.Softmax(dim=1), mod.LogSoftmax(1), mod.Identity(), mod.MSELoss(),
        mod.CrossEntropyLoss(), mod.NLLLoss(), mod.Sigmoid(), mod.ReLU(inplace=True),
        mod.Linear(3, 1, bias=False), mod.Softmax(), mod.Flatten(0, 2))


ZOO_REPR = """Sequential(
  (0): Linear(in_features=2, out_features=3, bias=True)
  (1): ReLU()
  (2): Sequential(
    (0): Flatten(start_dim=1, end_dim=-1)
    (1): Tanh()
  )
  (3): Softmax(dim=1)
  (4): LogSoftmax(dim=1)
  (5): Identity()
  (6): MSELoss()
  (7): CrossEntropyLoss()
  (8): NLLLoss()
  (9): Sigmoid()
  (10): ReLU(inplace=True)
  (11): Linear(in_features=3, out_features=1, bias=False)
  (12): Softmax(dim=None)
  (13): Flatten(start_dim=0, end_dim=2)
)"""


def test_module_reprs():
    assert repr(nn.Linear(2, 1)) == "Linear(in_features=2, out_features=1, bias=True)"
    assert repr(_zoo(gt)) == ZOO_REPR
    assert repr(Net()) == (
        "Net(\n  (fc1): Linear(in_features=3, out_features=4, bias=True)\n  (act): ReLU()\n"
        "  (fc2): Linear(in_features=4, out_features=2, bias=True)\n)")


def test_module_reprs_equal_torch(torch):
    assert repr(_zoo(gt)) == repr(_zoo(torch))
    for lib_ours, lib_theirs in ((nn, torch.nn),):
        ml_ours = lib_ours.ModuleList([lib_ours.Linear(2, 2) for _ in range(3)] + [lib_ours.ReLU()])
        ml_theirs = lib_theirs.ModuleList(
            [lib_theirs.Linear(2, 2) for _ in range(3)] + [lib_theirs.ReLU()])
        assert repr(ml_ours) == repr(ml_theirs)
        assert repr(lib_ours.ModuleList()) == repr(lib_theirs.ModuleList())


# ---- Sequential --------------------------------------------------------------------------------

def test_sequential_indexing_len_iteration():
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    seq = nn.Sequential(a, b, c)
    assert len(seq) == 3 and list(seq) == [a, b, c]
    assert seq[0] is a and seq[-1] is c
    sub = seq[1:]
    assert type(sub) is nn.Sequential and list(sub) == [b, c]
    assert list(sub._modules) == ["1", "2"]
    assert error_of(lambda: seq[3]) == ("IndexError", "index 3 is out of range")
    out = seq(gt.ones(4, 2))
    assert out.shape == gt.Size([4, 1])
    del seq[0]
    assert list(seq._modules) == ["0", "1"] and seq[0] is b
    seq.append(nn.Tanh())
    assert len(seq) == 3


def test_sequential_from_ordered_dict():
    seq = nn.Sequential(OrderedDict([("hidden", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert [n for n, _ in seq.named_parameters()] == ["hidden.weight", "hidden.bias"]
    assert seq.hidden is seq[0]
    assert repr(seq) == ("Sequential(\n  (hidden): Linear(in_features=2, out_features=2, "
                         "bias=True)\n  (act): ReLU()\n)")


# ---- state_dict / load_state_dict ----------------------------------------------------------

def test_state_dict_is_ordered_detached_alias():
    lin = nn.Linear(2, 1)
    sd = lin.state_dict()
    assert type(sd) is OrderedDict and list(sd) == ["weight", "bias"]
    assert sd._metadata == OrderedDict([("", {"version": 1})])
    assert not sd["weight"].requires_grad and sd["weight"].data_ptr() == lin.weight.data_ptr()
    sd["weight"].add_(1)  # a detach() alias shares the version counter
    assert lin.weight._version == 2
    kept = lin.state_dict(keep_vars=True)
    assert kept["weight"] is lin.weight


def test_state_dict_skips_non_persistent_buffers():
    assert list(Net().state_dict()) == [
        "scale", "running", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


def test_load_state_dict_copies_in_place():
    src, dst = nn.Linear(3, 2), nn.Linear(3, 2)
    weight = dst.weight
    result = dst.load_state_dict(src.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert dst.weight is weight and dst.weight._version == 2
    assert gt.equal(dst.weight, src.weight) and gt.equal(dst.bias, src.bias)


def test_load_state_dict_error_texts():
    lin = nn.Linear(2, 1)
    sd = lin.state_dict()
    del sd["bias"]
    assert error_of(lambda: lin.load_state_dict(sd)) == (
        "RuntimeError",
        'Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". ')
    sd = lin.state_dict()
    sd["extra"] = gt.ones(1)
    sd["sub.x"] = gt.ones(1)
    sd["weight"] = gt.ones(3, 2)
    del sd["bias"]
    assert error_of(lambda: lin.load_state_dict(sd)) == (
        "RuntimeError",
        'Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". '
        '\n\tUnexpected key(s) in state_dict: "extra", "sub.x". \n\tsize mismatch for weight: '
        "copying a param with shape gradtrack.Size([3, 2]) from checkpoint, the shape in "
        "current model is gradtrack.Size([1, 2]).")
    assert error_of(lambda: lin.load_state_dict([1])) == (
        "TypeError", "Expected state_dict to be dict-like, got <class 'list'>.")


def test_load_state_dict_non_strict_returns_keys():
    lin = nn.Linear(2, 1)
    sd = lin.state_dict()
    sd["extra"] = gt.ones(1)
    del sd["bias"]
    result = lin.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["extra"]
    assert repr(result) == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=['extra'])"
    assert lin.weight._version == 2


def test_load_state_dict_matches_torch(torch):
    def run(lib):
        def fresh():
            return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1))

        model = fresh()
        out = []
        cases = [
            lambda sd: sd.pop("0.bias"),
            lambda sd: sd.update({"1.weight": lib.ones(1), "9.x": lib.ones(1)}),
            lambda sd: sd.update({"2.weight": lib.ones(1, 4)}),
            lambda sd: sd.update({"2.bias": 3}),
            lambda sd: sd.update({"2.bias": lib.ones(1, dtype=lib.float64)}),
            lambda sd: None,
        ]
        for case in cases:
            for strict in (True, False):
                sd = fresh().state_dict()
                case(sd)
                try:
                    out.append(("ok", repr(model.load_state_dict(sd, strict=strict))))
                except Exception as e:
                    out.append((type(e).__name__, str(e)))
        out.append([p._version for p in model.parameters()])
        return out

    ours = run(gt)
    theirs = run(torch)
    assert [gradtrack_to_torch(x) if isinstance(x, str) else x for x in _flatten(ours)] == \
        _flatten(theirs)


def _flatten(items):
    out = []
    for item in items:
        out.extend(item if isinstance(item, (tuple, list)) else [item])
    return out
