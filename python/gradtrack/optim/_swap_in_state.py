"""``optim.swap_in_optimizer_params_and_state``: run an optimizer, for a while, on other
parameter tensors and another ``state_dict()``-shaped state, then put the live ones back."""

import contextlib
from collections import defaultdict
from typing import Any

from .. import _C

_Tensor = _C.Tensor
_NAME = "swap_in_optimizer_params_and_state"


def _checked_state(state: Any) -> dict:
    """``swapin_optim_state['state']``: a dict from packed ids to per-parameter dicts."""
    if not isinstance(state, dict):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping packed "
            f"parameter ids to per-param state dicts, got {type(state).__name__}.")
    if any(isinstance(key, _Tensor) for key in state):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style state keyed by "
                           "packed parameter ids.")
    for key, entry in state.items():
        if isinstance(key, int) and not isinstance(entry, dict):
            raise RuntimeError(f"{_NAME} requires per-parameter optimizer state entries to "
                               "be dictionaries.")
    return state


def _checked_groups(optimizer: Any, groups: Any) -> list:
    """``swapin_optim_state['param_groups']``: one dict per live group."""
    if not isinstance(groups, list):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['param_groups'] to be a list of "
            f"param-group dicts, got {type(groups).__name__}.")
    if len(groups) != len(optimizer.param_groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups "
                           "than the live optimizer.")
    return groups


def _packed_ids(index: int, live: dict, group: Any) -> list:
    """The packed ids of one supplied group, after checking it mirrors the live group."""
    if not isinstance(group, dict):
        raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = group.get("params")
    if not isinstance(ids, list) or any(not isinstance(i, int) for i in ids):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style "
                           "param_groups[*]['params'] entries keyed by packed parameter ids.")
    if len(ids) != len(live["params"]):
        raise RuntimeError(f"swapin_optim_state param group {index} has a different number "
                           "of params than the live optimizer param group.")
    only_supplied = [key for key in group if key not in live]
    only_live = [key for key in live if key not in group]
    if only_supplied or only_live:
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style param group keys to exactly "
            f"match the live optimizer group keys for group {index}. Keys only in swap-in: "
            f"{only_supplied}. Keys only in live: {only_live}.")
    return ids


def _plan(optimizer: Any, parameters: dict, optim_state: Any) -> tuple:
    """Check the arguments; return the state by packed id and, per group, its supplied
    group dict and the tensors that stand for its parameters."""
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _checked_state(optim_state.get("state"))
    groups = _checked_groups(optimizer, optim_state.get("param_groups"))
    tensors = list(parameters.values())
    used = 0
    known_ids = set()
    plan = []
    for index, (live, group) in enumerate(zip(optimizer.param_groups, groups)):
        ids = _packed_ids(index, live, group)
        known_ids.update(ids)
        if used + len(ids) > len(tensors):
            raise RuntimeError(f"{_NAME} requires the explicit parameter state to match "
                               "optimizer.param_groups ordering.")
        plan.append((group, tensors[used:used + len(ids)]))
        used += len(ids)
    unknown = [key for key in state if key not in known_ids]
    if unknown:
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be keyed only by packed "
            f"parameter ids from param_groups[*]['params']; got extra keys {unknown!r}.")
    return state, plan


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer: Any, swapin_parameters: dict[str, Any],
                                       swapin_optim_state: dict[str, Any]):
    """Temporarily run ``optimizer`` on the supplied parameters and state; restore the
    live ones on exit.

    ``swapin_parameters`` maps names to tensors, in the order of the optimizer's
    parameters across its groups (usually ``model.named_parameters()`` order).
    ``swapin_optim_state`` has the shape of ``optimizer.state_dict()``: ``"state"`` keyed by
    packed parameter ids and ``"param_groups"`` with the live groups' keys (their
    hyper-parameters are used inside the block). Inside the block ``optimizer.step()`` and
    every other optimizer method see the supplied tensors; in-place updates of the state's
    tensors reach ``swapin_optim_state``, while entries added or replaced stay inside the
    block. On exit the live ``param_groups`` (the same dicts and ``params`` lists) and
    ``state`` are back as they were. The optimizer's state must already be initialized
    (one step taken), else ``RuntimeError``.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> opt = optim.SGD([w], lr=0.5, momentum=0.9)
    >>> w.grad = gradtrack.ones(2)
    >>> opt.step()
    >>> other = gradtrack.zeros(2, requires_grad=True)
    >>> other.grad = gradtrack.ones(2)
    >>> saved = opt.state_dict()
    >>> with optim.swap_in_optimizer_params_and_state(opt, {"w": other}, saved):
    ...     opt.step()
    >>> other
    tensor([-0.9500, -0.9500], requires_grad=True)
    >>> w
    tensor([0.5000, 1.5000], requires_grad=True)
    """
    state, plan = _plan(optimizer, swapin_parameters, swapin_optim_state)
    live_state = optimizer.state
    # Shallow copies keep the live group dicts and their ``params`` lists themselves: the
    # restored groups are the very objects callers may hold.
    live_groups = [dict(group) for group in optimizer.param_groups]
    try:
        swapped = defaultdict(dict)
        for (group, tensors), live in zip(plan, optimizer.param_groups):
            live["params"] = tensors
            live.update((key, value) for key, value in group.items() if key != "params")
            for tensor, packed_id in zip(tensors, group["params"]):
                # A copy of the per-parameter dict: its tensors are shared (in-place
                # updates reach the caller) but new or replaced entries stay here.
                swapped[tensor] = dict(state.get(packed_id, {}))
        optimizer.state = swapped
        yield
    finally:
        for live, saved in zip(optimizer.param_groups, live_groups):
            live.clear()
            live.update(saved)
        optimizer.state = live_state
