"""The updates of ``differentiable=True``: for a parameter that is not a leaf (or a
gradient that has a graph), the step runs as a sequence of recorded tensor ops instead of
the fused C++ update, so the updated parameter and the state tensors carry a graph back to
what produced them, and a meta-gradient can flow through the step.

NOTE [Recorded optimizer steps]
torch's single-tensor path (``foreach=False``) is the reference: the same ops in the same
order, so the updated parameter's ``grad_fn`` (``AddcdivBackward0`` for Adam, Adagrad and
RMSprop, ``AddBackward0`` with RMSprop's momentum), the state tensors' nodes and
``_version`` steps, and the meta-gradients are torch's. The step counter stays a plain
tensor; the bias corrections computed from it record nothing.
"""

from .. import _C


def records_graph(p, grad):
    """Whether a ``differentiable=True`` step of ``p`` runs as recorded ops. A leaf that
    requires grad cannot be updated in place under grad mode: torch's error."""
    if p.requires_grad and p.is_leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    return p.requires_grad or grad.requires_grad


def adam(p, grad, state, lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled):
    """One recorded Adam (or AdamW) step of ``p``: NOTE [Adam update] as recorded ops."""
    step_t = state["step"]
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    if maximize:
        grad = -grad
    step_t += 1
    if weight_decay != 0:
        if decoupled:
            p.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(p, alpha=weight_decay)
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    bias_correction1 = 1 - beta1 ** step_t
    bias_correction2 = 1 - beta2 ** step_t
    step_size_neg = (lr / bias_correction1).neg()
    scale = bias_correction2.sqrt() * step_size_neg
    if amsgrad:
        max_exp_avg_sq = state["max_exp_avg_sq"]
        max_exp_avg_sq.copy_(_C.maximum(max_exp_avg_sq.clone(), exp_avg_sq))
        second = max_exp_avg_sq
    else:
        second = exp_avg_sq
    denom = (second.sqrt() / scale).add_(eps / step_size_neg)
    p.addcdiv_(exp_avg.clone(), denom)


def adagrad(p, grad, state, lr, lr_decay, eps, weight_decay, maximize):
    """One recorded Adagrad step of ``p``."""
    step_t, state_sum = state["step"], state["sum"]
    step_t += 1
    step = step_t.item()
    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = grad.add(p, alpha=weight_decay)
    clr = lr / (1 + (step - 1) * lr_decay)
    state_sum.addcmul_(grad, grad, value=1)
    std = state_sum.sqrt() + eps
    p.addcdiv_(grad, std, value=-clr)


def rmsprop(p, grad, state, lr, alpha, eps, weight_decay, momentum, centered, maximize):
    """One recorded RMSprop step of ``p``."""
    step_t, square_avg = state["step"], state["square_avg"]
    step_t += 1
    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = grad.add(p, alpha=weight_decay)
    square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
    if centered:
        grad_avg = state["grad_avg"]
        grad_avg.lerp_(grad, 1 - alpha)
        avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
    else:
        avg = square_avg.sqrt()
    avg = avg.add(eps)
    if momentum > 0:
        buf = state["momentum_buffer"]
        buf.mul_(momentum).addcdiv_(grad, avg)
        p.add_(buf, alpha=-lr)
    else:
        p.addcdiv_(grad, avg, value=-lr)
