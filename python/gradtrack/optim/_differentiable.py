"""The updates of ``differentiable=True``: for a parameter that is not a leaf (or a
gradient that has a graph), the step runs as a sequence of recorded tensor ops instead of
the fused C++ update, so the updated parameter and the state tensors carry a graph back to
what produced them, and a meta-gradient can flow through the step.

NOTE [Recorded optimizer steps]
torch's single-tensor path (``foreach=False``) is the reference: the same ops in the same
order, so the updated parameter's ``grad_fn`` (``AddcdivBackward0`` for Adam, Adagrad,
RMSprop, NAdam and Adamax, ``AddBackward0`` for RAdam and with RMSprop's momentum,
``AddcmulBackward0`` for Rprop), the state tensors' nodes and ``_version`` steps, and the
meta-gradients are torch's. The step counter (and NAdam's ``mu_product``) stays a plain
tensor; the bias corrections computed from it record nothing. Where torch's own in-place
writes invalidate what an earlier step saved (Adamax's ``exp_avg``, Rprop's
``step_size``), the backward through several steps raises torch's error here too.
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
    decayed_lr = lr / (1 + (step - 1) * lr_decay)
    state_sum.addcmul_(grad, grad, value=1)
    scale = state_sum.sqrt() + eps
    p.addcdiv_(grad, scale, value=-decayed_lr)


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
        rms = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
    else:
        rms = square_avg.sqrt()
    rms = rms.add(eps)
    if momentum > 0:
        velocity = state["momentum_buffer"]
        velocity.mul_(momentum).addcdiv_(grad, rms)
        p.add_(velocity, alpha=-lr)
    else:
        p.addcdiv_(grad, rms, value=-lr)


def _decayed(p, grad, lr, weight_decay, maximize, decoupled=False):
    """The gradient after ``maximize`` and L2 decay; decoupled decay scales ``p`` instead."""
    if maximize:
        grad = -grad
    if weight_decay != 0:
        if decoupled:
            p.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(p, alpha=weight_decay)
    return grad


def nadam(p, grad, state, lr, beta1, beta2, eps, weight_decay, momentum_decay, maximize,
          decoupled):
    """One recorded NAdam step of ``p``: NOTE [NAdam update] with the two coefficients
    multiplied into the gradient and the first moment (0-dim tensors of ``mu_product``'s
    dtype), so the graph has a node for each."""
    step_t, mu_product = state["step"], state["mu_product"]
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    step_t += 1
    step = step_t.item()
    grad = _decayed(p, grad, lr, weight_decay, maximize, decoupled)
    momentum_now = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
    momentum_ahead = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
    mu_product *= momentum_now
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    denom = exp_avg_sq.div(1 - beta2 ** step).sqrt().add(eps)
    product_ahead = mu_product * momentum_ahead
    p.addcdiv_(grad * (-lr * (1.0 - momentum_now) / (1.0 - mu_product)), denom)
    p.addcdiv_(exp_avg * (-lr * momentum_ahead / (1.0 - product_ahead)), denom)


def radam(p, grad, state, lr, beta1, beta2, eps, weight_decay, maximize, decoupled):
    """One recorded RAdam step of ``p``: NOTE [RAdam update], the adaptive factor taken as
    ``sqrt(1 - beta2**step) / (sqrt(exp_avg_sq) + eps)`` (a reciprocal node)."""
    step_t, exp_avg, exp_avg_sq = state["step"], state["exp_avg"], state["exp_avg_sq"]
    step_t += 1
    step = step_t.item()
    grad = _decayed(p, grad, lr, weight_decay, maximize, decoupled)
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    bias_correction2 = 1 - beta2 ** step
    update = exp_avg / (1 - beta1 ** step) * lr
    rho_limit = 2 / (1 - beta2) - 1
    rho_now = rho_limit - 2 * step * (beta2 ** step) / bias_correction2
    if rho_now > 5.0:
        rectifier = ((rho_now - 4) * (rho_now - 2) * rho_limit
                / ((rho_limit - 4) * (rho_limit - 2) * rho_now)) ** 0.5
        adaptive = bias_correction2 ** 0.5 / exp_avg_sq.sqrt().add(eps)
        update = update * adaptive * rectifier
    p.add_(update, alpha=-1.0)


def adamax(p, grad, state, lr, beta1, beta2, eps, weight_decay, maximize):
    """One recorded Adamax step of ``p``: the decayed maximum of NOTE [Adamax update] as
    the ``amax`` of the two candidates stacked, copied into ``exp_inf``."""
    step_t, exp_avg, exp_inf = state["step"], state["exp_avg"], state["exp_inf"]
    step_t += 1
    grad = _decayed(p, grad, lr, weight_decay, maximize)
    exp_avg.lerp_(grad, 1 - beta1)
    candidates = _C.cat([exp_inf.mul_(beta2).unsqueeze(0),
                         grad.abs().add_(eps).unsqueeze_(0)], 0)
    exp_inf.copy_(_C.amax(candidates, 0, False))
    p.addcdiv_(exp_avg, exp_inf, value=-(lr / (1 - beta1 ** step_t.item())))


def rprop(p, grad, state, etaminus, etaplus, step_size_min, step_size_max, maximize):
    """One recorded Rprop step of ``p``: NOTE [Rprop update] with the masks written in
    place (index_put) into the sign and into a copy of the gradient."""
    prev, step_size = state["prev"], state["step_size"]
    if maximize:
        grad = -grad
    state["step"] += 1
    factor = grad.mul(prev.clone()).sign()
    factor[factor.gt(0)] = etaplus
    factor[factor.lt(0)] = etaminus
    factor[factor.eq(0)] = 1
    step_size.mul_(factor).clamp_(step_size_min, step_size_max)
    grad = grad.clone()
    grad[factor.eq(etaminus)] = 0
    p.addcmul_(grad.sign(), step_size, value=-1)
    prev.copy_(grad)
