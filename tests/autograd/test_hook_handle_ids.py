"""Hook handles: one class, ``utils.hooks.RemovableHandle``, for tensor, node, module and
global module hooks, with ids from one counter shared by all of them (as torch's)."""

import pickle
from collections import OrderedDict

import pytest

import gradtrack
from gradtrack.utils.hooks import RemovableHandle
from helpers import run_as_script_in_both

pytestmark = pytest.mark.timeout(120)


def _same_in_fresh_processes(source, tmp_path):
    """The stdout of ``source`` run with torch and with gradtrack.as_torch, each in a fresh
    interpreter."""
    return [out for out, _ in run_as_script_in_both(source, tmp_path)]


def test_tensor_node_and_module_hooks_share_one_id_sequence(torch, tmp_path):
    expected, got = _same_in_fresh_processes("""
        import torch
        from torch import nn
        from torch.nn.modules.module import register_module_forward_hook
        from torch.utils.hooks import RemovableHandle
        x = torch.randn(3, requires_grad=True)
        y = x * 2
        m = nn.Linear(2, 2)
        handles = [x.register_hook(lambda g: g), m.register_forward_hook(lambda *a: None),
                   y.grad_fn.register_hook(lambda gi, go: None),
                   y.grad_fn.register_prehook(lambda go: None),
                   x.register_post_accumulate_grad_hook(lambda t: None),
                   register_module_forward_hook(lambda *a: None),
                   m.register_full_backward_hook(lambda *a: None),
                   m.register_state_dict_pre_hook(lambda *a: None)]
        print([h.id for h in handles], RemovableHandle.next_id)
        print({type(h).__name__ for h in handles}, all(isinstance(h, RemovableHandle) for h in handles))
        print([sorted(vars(h)) for h in handles[:2]])
        for h in handles:
            h.remove()
    """, tmp_path)
    assert got == expected


def test_handle_points_at_its_hook_table(torch):
    def check(lib):
        x = lib.ones(2, requires_grad=True)

        def hook(grad):
            return grad * 2

        handle = x.register_hook(hook)
        table = handle.hooks_dict_ref()
        seen = (dict(table) == {handle.id: hook}, handle.extra_dict_ref)
        (x * 1).sum().backward()
        handle.remove()
        handle.remove()
        (x * 1).sum().backward()
        return seen, x.grad.tolist()

    assert check(gradtrack) == check(torch)


def test_replacing_the_table_entry_replaces_the_hook(torch):
    def check(lib):
        x = lib.ones(2, requires_grad=True)
        handle = x.register_hook(lambda g: g * 2)
        handle.hooks_dict_ref()[handle.id] = lambda g: g * 5
        (x * 1).sum().backward()
        return x.grad.tolist()

    assert check(gradtrack) == check(torch)


def test_module_handle_removes_from_extra_dicts_and_keeps_calls_working(torch):
    def check(lib):
        m = lib.nn.Linear(2, 2)
        calls = []
        handle = m.register_forward_hook(lambda mod, args, kwargs, out: calls.append(1),
                                         with_kwargs=True, always_call=True)
        extra = [len(ref()) for ref in handle.extra_dict_ref]
        m(lib.ones(2))
        handle.remove()
        m(lib.ones(2))
        return extra, [len(ref()) for ref in handle.extra_dict_ref], calls

    assert check(gradtrack) == check(torch)


def _double(*args):
    return None


def test_handles_pickle_and_keep_the_counter_ahead(torch):
    def check(lib, handle_cls):
        x = lib.ones(2, requires_grad=True)
        m = lib.nn.Linear(2, 2)
        handles = [x.register_hook(_double),
                   m.register_forward_hook(_double, with_kwargs=True)]
        states = []
        for h in handles:
            state = h.__getstate__()
            states.append((dict(state[0]) == {h.id: _double}, len(state), len(state[2])))
            copy = pickle.loads(pickle.dumps(h))
            states.append((type(copy).__name__, copy.id == h.id, copy.hooks_dict_ref()))
        fresh = handle_cls(OrderedDict())
        fresh.__setstate__((None, fresh.id + 50))
        states.append((handle_cls.next_id - fresh.id, fresh.hooks_dict_ref(),
                       fresh.extra_dict_ref))
        for h in handles:
            h.remove()
        return states

    from torch.utils.hooks import RemovableHandle as TorchHandle
    assert check(gradtrack, RemovableHandle) == check(torch, TorchHandle)


def test_handle_is_a_context_manager(torch):
    def check(lib):
        x = lib.ones(2, requires_grad=True)
        with x.register_hook(lambda g: g * 0) as handle:
            (x * 3).sum().backward()
        (x * 3).sum().backward()
        return type(handle).__name__, x.grad.tolist()

    assert check(gradtrack) == check(torch)


def test_removed_module_hooks_give_back_the_plain_call():
    m = gradtrack.nn.Linear(2, 2)
    handles = [m.register_forward_pre_hook(lambda *a: None),
               m.register_full_backward_hook(lambda *a: None)]
    for handle in handles:
        handle.remove()
    out = m(gradtrack.ones(1, 2, requires_grad=True))
    assert type(out.grad_fn).__name__ == "AddmmBackward0"
    assert "_has_hooks" not in m.__dict__


def test_optimizer_hooks_take_ids_from_the_shared_counter(lib):
    x = lib.ones(2, requires_grad=True)
    opt = lib.optim.SGD([x], lr=0.1)
    first = x.register_hook(lambda g: g)
    step = opt.register_step_pre_hook(lambda *a: None)
    state = opt.register_state_dict_post_hook(lambda *a: None, prepend=True)
    assert (step.id - first.id, state.id - step.id) == (1, 1)
    assert type(step).__name__ == "RemovableHandle"
    step.remove()
    assert step.id not in opt._optimizer_step_pre_hooks
