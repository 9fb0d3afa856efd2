"""What the adaptive optimizers (Adam, AdamW, RMSprop, Adagrad, Adamax, NAdam,
RAdam) share: the step driver, state tensors, and PyTorch's checks of the
flags that only matter off the CPU (``capturable``, ``fused``, ``foreach``).

Each optimizer's own file holds its argument checks and its per-group step,
which calls one fused C++ update per parameter (``_C._optim.*_update``).
"""

from .. import _C

_Tensor = _C.Tensor
grad_of = _Tensor._grad.fget
_is_grad_enabled = _C.is_grad_enabled
_set_grad_enabled = _C._set_grad_enabled
_swap_label = _C._inplace.swap_write_label

# torch.optim's list on a build without an accelerator; the CPU is not on it.
CAPTURABLE_DEVICES = "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']"
CAPTURABLE_MESSAGE = ("If capturable=True, params and state_steps must be on supported "
                      f"devices: {CAPTURABLE_DEVICES}.")


def run_step(optimizer, closure, label, step_group):
    """``Optimizer.step``: ``closure()`` under grad mode, then ``step_group(group)``
    for every group under no_grad (grad mode follows ``differentiable``, as in
    PyTorch). Returns the closure's loss."""
    loss = None
    if closure is not None:
        previous = _is_grad_enabled()
        _set_grad_enabled(True)
        try:
            loss = closure()
        finally:
            _set_grad_enabled(previous)
    previous = _is_grad_enabled()
    differentiable = bool(optimizer.defaults.get("differentiable", False))
    _set_grad_enabled(differentiable)
    saved_label = _swap_label(label)
    try:
        for group in optimizer.param_groups:
            step_group(group)
    finally:
        _swap_label(saved_label)
        _set_grad_enabled(previous)
    return loss


def scalar_dtype(fused=None):
    """The dtype of ``state['step']``: float32, or float64 under a float64 default dtype."""
    if fused:
        return _C.float32
    from .. import get_default_dtype
    return _C.float64 if get_default_dtype() is _C.float64 else _C.float32


def new_step(fused=None):
    """A fresh ``state['step']``: a 0-dim zero."""
    return _C.tensor(0.0, dtype=scalar_dtype(fused))


def zeros_like(p):
    """A state tensor: zeros in ``p``'s dtype and memory layout."""
    return _C._like("zeros", p, None, False, None)


def as_float(value):
    """A hyper-parameter given as a 1-element tensor, read as a number."""
    return value.item() if isinstance(value, _Tensor) else value


def check_tensor_lr(lr, foreach=None, capturable=False):
    """PyTorch's checks of a tensor ``lr`` (shared by every optimizer)."""
    if isinstance(lr, _Tensor):
        if foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and "
                             "foreach=True")
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")


def check_fused(fused, foreach, differentiable):
    """PyTorch's constructor checks of ``fused=True``."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def check_fused_param(p):
    """``fused=True`` takes floating-point parameters only (all devices are the CPU here)."""
    if not p.is_floating_point():
        raise RuntimeError("`fused=True` requires all the params to be floating point Tensors "
                           "of supported devices: ['mps', 'cuda', 'xpu', 'hpu', 'cpu', 'mtia', "
                           f"'privateuseone'] but {p.dtype} and cpu")


def upgrade_steps(optimizer, fused_key=None):
    """``__setstate__``: a number ``step`` (an old state dict) becomes a 0-dim tensor."""
    for group in optimizer.param_groups:
        fused = group.get(fused_key) if fused_key else None
        for p in group["params"]:
            p_state = optimizer.state.get(p, {})
            if len(p_state) != 0 and not isinstance(p_state["step"], _Tensor):
                p_state["step"] = _C.tensor(float(p_state["step"]), dtype=scalar_dtype(fused))


def check_adam_args(lr, eps, betas, weight_decay):
    """PyTorch's checks, in its order, of the arguments the Adam family shares."""
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def fill_group_defaults(optimizer, defaults, *upgrade_args):
    """``__setstate__``'s work after the base class: a group saved before a key existed
    gets its default, and old ``step`` numbers become tensors."""
    for group in optimizer.param_groups:
        for key, value in defaults.items():
            group.setdefault(key, value)
    upgrade_steps(optimizer, *upgrade_args)


def new_state(optimizer, p, *names):
    """``p``'s state, created on first use: ``step``, then a zero tensor per name."""
    state = optimizer.state[p]
    if len(state) == 0:
        state["step"] = new_step()
        for name in names:
            state[name] = zeros_like(p)
    return state


def group_params(group, init_state):
    """The group's parameters that have a gradient, their states and the group's lr;
    ``capturable`` is refused (no supported device) once there is something to update."""
    params = [p for p in group["params"] if grad_of(p) is not None]
    states = [init_state(p) for p in params]
    if group["capturable"] and params:
        raise AssertionError(CAPTURABLE_MESSAGE)
    return params, states, as_float(group["lr"])
