"""The PyTorch "Neural Networks" tutorial (LeNet) runs unchanged with
``import gradtrack as torch``: same outputs, loss, gradients and updates as torch
when both start from the same weights and the same random draws."""

import contextlib
import io
import sys
import types

import numpy as np

import gradtrack

# The tutorial's code, verbatim except that its imports come from the test.
NET = '''
class Net(nn.Module):

    def __init__(self):
        super(Net, self).__init__()
        # 1 input image channel, 6 output channels, 5x5 square convolution
        # kernel
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        # an affine operation: y = Wx + b
        self.fc1 = nn.Linear(16 * 5 * 5, 120)  # 5*5 from image dimension
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        # Convolution layer C1: 1 input image channel, 6 output channels,
        # 5x5 square convolution, it uses RELU activation function, and
        # outputs a Tensor with size (N, 6, 28, 28), where N is the size of the batch
        c1 = F.relu(self.conv1(input))
        # Subsampling layer S2: 2x2 grid, purely functional,
        # this layer does not have any parameter, and outputs a (N, 6, 14, 14) Tensor
        s2 = F.max_pool2d(c1, (2, 2))
        # Convolution layer C3: 6 input channels, 16 output channels,
        # 5x5 square convolution, it uses RELU activation function, and
        # outputs a (N, 16, 10, 10) Tensor
        c3 = F.relu(self.conv2(s2))
        # Subsampling layer S4: 2x2 grid, purely functional,
        # this layer does not have any parameter, and outputs a (N, 16, 5, 5) Tensor
        s4 = F.max_pool2d(c3, 2)
        # Flatten operation: purely functional, outputs a (N, 400) Tensor
        s4 = torch.flatten(s4, 1)
        # Fully connected layer F5: (N, 400) Tensor input,
        # and outputs a (N, 120) Tensor, it uses RELU activation function
        f5 = F.relu(self.fc1(s4))
        # Fully connected layer F6: (N, 120) Tensor input,
        # and outputs a (N, 84) Tensor, it uses RELU activation function
        f6 = F.relu(self.fc2(f5))
        # Gaussian layer OUTPUT: (N, 84) Tensor input, and
        # outputs a (N, 10) Tensor
        output = self.fc3(f6)
        return output


net = Net()
print(net)
'''

REST = '''
params = list(net.parameters())
print(len(params))
print(params[0].size())  # conv1's .weight

input = torch.randn(1, 1, 32, 32)
out = net(input)
print(out)

net.zero_grad()
out.backward(torch.randn(1, 10))

output = net(input)
target = torch.randn(10)  # a dummy target, for example
target = target.view(1, -1)  # make it the same shape as output
criterion = nn.MSELoss()

loss = criterion(output, target)
print(loss)

print(loss.grad_fn)  # MSELoss
print(loss.grad_fn.next_functions[0][0])  # Linear
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])  # ReLU

net.zero_grad()     # zeroes the gradient buffers of all parameters

print('conv1.bias.grad before backward')
print(net.conv1.bias.grad)

loss.backward()

print('conv1.bias.grad after backward')
print(net.conv1.bias.grad)
conv1_bias_grad = net.conv1.bias.grad.clone()

learning_rate = 0.01
for f in net.parameters():
    f.data.sub_(f.grad.data * learning_rate)

import torch.optim as optim

# create your optimizer
optimizer = optim.SGD(net.parameters(), lr=0.01)

# in your training loop:
optimizer.zero_grad()   # zero the gradient buffers
output = net(input)
loss = criterion(output, target)
loss.backward()
optimizer.step()    # Does the update
'''


class _Library(types.ModuleType):
    """``lib`` as a module named torch, whose randn records or replays its draws."""

    def __init__(self, lib, draws):
        super().__init__("torch")
        self.__dict__.update({k: getattr(lib, k) for k in dir(lib)
                              if not k.startswith("__") and k != "randn"})
        self._lib, self._draws, self.recorded = lib, draws, []

    def randn(self, *shape):
        if self._draws is not None:
            value = self._draws[len(self.recorded)]
            self.recorded.append(value)
            return self._lib.tensor(value.copy())
        t = self._lib.randn(*shape)
        self.recorded.append(t.numpy().copy())
        return t


@contextlib.contextmanager
def _as_torch(fake):
    """`import torch.optim as optim` inside the tutorial finds ``fake``'s optim."""
    saved = {k: sys.modules.get(k) for k in ("torch", "torch.optim")}
    sys.modules["torch"], sys.modules["torch.optim"] = fake, fake.optim
    try:
        yield
    finally:
        for key, mod in saved.items():
            if mod is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = mod


def _run(lib, weights, draws=None):
    """The tutorial with ``lib`` as torch, from ``weights``; returns its namespace,
    what it printed, and its random draws."""
    fake = _Library(lib, draws)
    env = {"torch": fake, "nn": lib.nn, "F": lib.nn.functional}
    stdout = io.StringIO()
    swap = _as_torch(fake) if lib is gradtrack else contextlib.nullcontext()
    with contextlib.redirect_stdout(stdout), swap:
        exec(NET, env)
        with lib.no_grad():
            for name, p in env["net"].named_parameters():
                p.copy_(lib.tensor(weights[name]))
        exec(REST, env)
    return env, stdout.getvalue(), fake.recorded


def test_lenet_tutorial_runs_unchanged_and_matches_torch(torch):
    init_env = {"torch": torch, "nn": torch.nn, "F": torch.nn.functional}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(NET, init_env)
    weights = {n: p.detach().numpy().copy() for n, p in init_env["net"].named_parameters()}
    t_env, t_out, draws = _run(torch, weights)
    g_env, g_out, _ = _run(gradtrack, weights, draws)
    for key in ("out", "loss", "conv1_bias_grad"):
        np.testing.assert_allclose(g_env[key].detach().numpy(), t_env[key].detach().numpy(),
                                   rtol=1e-4, atol=1e-6)
    for (name, p), (tname, tp) in zip(g_env["net"].named_parameters(),
                                      t_env["net"].named_parameters()):
        assert name == tname
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-5)
    # The printed network, parameter count and size, and grad_fn names are torch's.
    g_lines, t_lines = g_out.splitlines(), t_out.splitlines()
    net_end = t_lines.index(")") + 1
    assert g_lines[:net_end + 2] == [line.replace("torch", "gradtrack")
                                     for line in t_lines[:net_end + 2]]
    names = [line.split(" object")[0] for line in g_lines if line.startswith("<")]
    assert names == [line.split(" object")[0] for line in t_lines if line.startswith("<")]
    assert names == ["<MseLossBackward0", "<AddmmBackward0", "<AccumulateGrad"]
