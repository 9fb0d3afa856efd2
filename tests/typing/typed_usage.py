"""Typed code using gradtrack as a torch user writes it; tests/typing/test_mypy.py checks it
with ``mypy --strict`` (and runs it: every line here is real)."""

from typing import Any

import gradtrack
from gradtrack import Tensor, nn, optim
from gradtrack.autograd import Function
from gradtrack.autograd.function import FunctionCtx, once_differentiable
from gradtrack.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence
from gradtrack.utils.data import (DataLoader, Dataset, RandomSampler, Subset, TensorDataset,
                                  random_split)


class TwoLayer(nn.Module):
    def __init__(self, n_in: int, n_hidden: int, n_out: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(n_hidden, n_out)

    def forward(self, x: Tensor) -> Tensor:
        hidden: Tensor = self.act(self.fc1(x))
        out: Tensor = self.fc2(hidden)
        return out


class Cube(Function):
    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        result: Tensor = 3 * x ** 2 * grad
        return result


class Squares(Dataset[tuple[Tensor, Tensor]]):
    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> tuple[Tensor, Tensor]:
        x = gradtrack.tensor([float(index)])
        return x, x * x


def tensor_methods() -> float:
    x = gradtrack.randn(3, 4, requires_grad=True)
    y = x.exp().sum(dim=1, keepdim=True).log().mean()
    y.backward()
    grad = x.grad
    assert grad is not None and x.is_leaf and y.grad_fn is not None
    shape: gradtrack.Size = x.shape
    with gradtrack.no_grad():
        x.mul_(2).add_(1, alpha=0.5)
    version: int = x._version
    z = x.detach().clone().reshape(-1).to(gradtrack.float64)
    values: list[Any] = z.tolist()
    return float(grad.norm().item()) + len(shape) + version + len(values)


def train() -> float:
    gradtrack.manual_seed(0)
    model = TwoLayer(1, 8, 1)
    opt = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    loss_fn = nn.MSELoss()
    loader = DataLoader(Squares(), batch_size=4, shuffle=True)
    total = 0.0
    for _ in range(3):
        for xb, yb in loader:
            opt.zero_grad()
            loss: Tensor = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item()
        sched.step()
    pairs = DataLoader(TensorDataset(gradtrack.ones(4, 2), gradtrack.zeros(4)), batch_size=2)
    for a, b in pairs:
        total += float(a.sum().item() + b.sum().item())
    return total


def custom_function() -> Tensor:
    x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    out: Tensor = Cube.apply(x)
    out.sum().backward()
    assert x.grad is not None
    return x.grad


class ScaledClamp(Function):
    """A Function with a non-tensor argument, needs_input_grad and mark_non_differentiable."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, scale: float) -> tuple[Tensor, Tensor]:
        ctx.save_for_backward(x, gradtrack.tensor(scale))
        mask = x > 0
        ctx.mark_non_differentiable(mask)
        return x.clamp(min=0) * scale, mask

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad: Tensor, _mask_grad: Tensor | None) -> tuple[Tensor | None, None]:
        x, scale = ctx.saved_tensors
        if not ctx.needs_input_grad[0]:
            return None, None
        result: Tensor = grad * (x > 0).to(grad.dtype) * scale
        return result, None


def autograd_api() -> float:
    x = gradtrack.tensor([-1.0, 2.0, 3.0], requires_grad=True)
    out, mask = ScaledClamp.apply(x, 2.0)
    (gx,) = gradtrack.autograd.grad(out.sum(), [x], create_graph=False)
    hooked: list[Tensor] = []
    y = x * x
    handle = y.register_hook(lambda g: hooked.append(g))
    y.sum().backward()
    handle.remove()
    with gradtrack.enable_grad(), gradtrack.autograd.set_detect_anomaly(False):
        z = (x * 3).sum()
    with gradtrack.inference_mode():
        w = x * 2
    return float(gx.sum().item() + z.item() + w.sum().item()) + len(hooked) + int(mask.sum())


def optimizers() -> float:
    gradtrack.manual_seed(0)
    model = TwoLayer(2, 4, 1)
    opt = optim.AdamW([{"params": model.fc1.parameters()},
                       {"params": model.fc2.parameters(), "lr": 1e-2}], lr=1e-3, weight_decay=0.1)
    plateau = optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=0)
    sgd = optim.SGD(model.parameters(), lr=0.1)
    cosine = optim.lr_scheduler.CosineAnnealingLR(sgd, T_max=4)
    others: list[optim.Optimizer] = [optim.Adam(model.parameters(), lr=1e-3, amsgrad=True),
                                     optim.RMSprop(model.parameters()),
                                     optim.Adagrad(model.parameters())]
    x = gradtrack.randn(8, 2)

    def closure() -> Tensor:
        opt.zero_grad()
        loss: Tensor = model(x).pow(2).mean()
        loss.backward()
        return loss

    losses = []
    for _ in range(3):
        loss = closure()
        total_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        opt.step()
        sgd.step()
        plateau.step(loss.item())
        cosine.step()
        for other in others:
            other.step()
        losses.append(loss.item() + float(total_norm))
    state = opt.state_dict()
    opt.load_state_dict(state)
    lrs: list[float] = cosine.get_last_lr()
    return sum(losses) + len(others) + len(opt.param_groups) + len(lrs)


def data_pipeline() -> int:
    data = TensorDataset(gradtrack.arange(10.0).reshape(10, 1), gradtrack.arange(10))
    train_set, val_set = random_split(data, [8, 2], generator=gradtrack.Generator().manual_seed(0))
    first_half = Subset(data, [0, 1, 2, 3, 4])
    loader = DataLoader(train_set, batch_size=3, sampler=RandomSampler(train_set),
                        drop_last=True, collate_fn=None)
    seen = 0
    for xb, yb in loader:
        seen += xb.shape[0] + int(yb.numel())
    return seen + len(val_set) + len(first_half) + len(loader)


def sequences() -> float:
    gradtrack.manual_seed(0)
    lstm = nn.LSTM(3, 4, batch_first=True)
    padded = gradtrack.randn(2, 5, 3)
    packed: PackedSequence = pack_padded_sequence(padded, [5, 2], batch_first=True)
    out, (h, c) = lstm.forward(gradtrack.randn(2, 5, 3))
    packed_out, _ = lstm.forward(packed)
    unpacked, lengths = pad_packed_sequence(packed_out, batch_first=True)
    cell = nn.GRUCell(3, 4)
    h1: Tensor = cell.forward(gradtrack.randn(2, 3))
    mha = nn.MultiheadAttention(4, 2, batch_first=True)
    q = gradtrack.randn(2, 5, 4)
    attended, weights = mha.forward(q, q, q, need_weights=True)
    assert weights is not None
    sdpa = nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    return float(out.sum() + h.sum() + c.sum() + unpacked.sum() + lengths.sum() + h1.sum()
                 + attended.sum() + weights.sum() + sdpa.sum())


def main() -> None:
    print(tensor_methods(), train(), custom_function(), autograd_api(), optimizers(),
          data_pipeline(), sequences())


if __name__ == "__main__":
    main()
