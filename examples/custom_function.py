"""A custom autograd Function: a clamped exponential with a hand-written
backward, used inside an ordinary training loop, then checked against finite
differences with gradcheck.

Run: python examples/custom_function.py
"""

from typing import Any

import gradtrack
from gradtrack import Tensor
from gradtrack.autograd import Function


class SoftClampExp(Function):
    """exp(min(x, limit)): the gradient is exp(x) below the limit and 0 above."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, limit: float = 3.0) -> Tensor:
        y = x.clamp(max=limit).exp()
        # Save the output, not a copy: the version check catches a later
        # in-place write to it, exactly as for built-in ops.
        ctx.save_for_backward(x, y)
        ctx.limit = limit  # plain Python values go on ctx directly
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        x, y = ctx.saved_tensors
        below = (x < ctx.limit).to(grad.dtype)
        return grad * y * below, None  # no gradient for `limit`


def main() -> None:
    gradtrack.manual_seed(0)
    x = gradtrack.linspace(-1.0, 1.0, 32).unsqueeze(1)
    target = (0.7 * x).exp()
    w = gradtrack.zeros(1, 1, requires_grad=True)
    for step in range(200):
        pred = SoftClampExp.apply(x.mm(w))
        loss = ((pred - target) ** 2).mean()
        loss.backward()
        assert w.grad is not None  # backward() set it (and type checkers learn it is a Tensor)
        with gradtrack.no_grad():
            w -= 0.5 * w.grad
        w.grad = None
    print(f"grad_fn: {type(pred.grad_fn).__name__}")
    print(f"recovered rate = {w.item():.3f} (true 0.7)")

    xd = gradtrack.tensor([-0.5, 0.25, 1.5], dtype=gradtrack.float64, requires_grad=True)
    print("gradcheck:", gradtrack.autograd.gradcheck(lambda t: SoftClampExp.apply(t, 1.0), (xd,)))


if __name__ == "__main__":
    main()
