"""Typed code using gradtrack as a torch user writes it; tests/typing/test_mypy.py checks it
with ``mypy --strict`` (and runs it: every line here is real)."""

from typing import Any

import gradtrack
from gradtrack import Tensor, nn, optim
from gradtrack.autograd import Function
from gradtrack.autograd.function import FunctionCtx
from gradtrack.utils.data import DataLoader, Dataset, TensorDataset


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


def main() -> None:
    print(tensor_methods(), train(), custom_function())


if __name__ == "__main__":
    main()
