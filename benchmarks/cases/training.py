"""Training steps and their parts: linear regression, an MLP with SGD (in float32, in
bfloat16 and under bfloat16 autocast; and the SGD step alone), a DataLoader epoch, the
random draws (rand, randn), the MLP with Adam, a small CNN and one Conv2d layer. The
random draws sit between the SGD and the Adam steps, where they were added: the list
order is the order of ``--list``, the run and the report.
"""

from .overhead import PROVENANCE_OFF, with_provenance
from .registry import Point, Variant, seed, timed_case

# gradtrack's silent-write detector (NOTE [Silent writes]): what watching every saved
# tensor costs a train step; goal in goals.py's VARIANT_GOALS.
SILENT_WRITES_ON = Variant("silent writes on", {"silent_writes": True}, libs=("gradtrack",),
                           isolated=True,
                           description="gradtrack.autograd.detect_silent_writes(): every tensor "
                                       "a node saves is watched")


def with_silent_writes(T, step, on):
    """``step``, or ``(step, cleanup)`` with the silent-write detector on until cleanup."""
    detector = getattr(T.autograd, "detect_silent_writes", None)
    if not on or detector is None:
        return step
    detector(True)
    return step, lambda: detector(False)


# --------------------------------------------------------------------------
# 6-8. training steps

GROUP_TRAIN = "training steps"


@timed_case("linreg_step", GROUP_TRAIN,
            "Linear(2,1) train step",
            (Point("10x2", 10, "batch 10x2, MSE, manual SGD update under no_grad"),))
def linreg_step(T, batch):
    net = T.nn.Linear(2, 1)
    x = T.randn(batch, 2)
    y = T.randn(batch, 1)
    no_grad = T.no_grad
    lr = 0.01

    def step():
        loss = ((net(x) - y) ** 2).mean()
        net.zero_grad()
        loss.backward()
        with no_grad():
            for p in net.parameters():
                p.sub_(p.grad, alpha=lr)

    return step


def build_mlp(T):
    """The 784-128-10 MLP of the MLP cases (also used by the peak-RSS probe)."""
    nn = T.nn
    return nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))


def classifier_step(T, model, opt, x, zero_grad=None):
    """step(): one train step of ``model`` on the batch ``x`` with random labels of 10
    classes: ``zero_grad()`` (``opt.zero_grad`` by default), cross-entropy loss,
    backward, ``opt.step()``."""
    crit = T.nn.CrossEntropyLoss()
    y = T.randint(0, 10, (x.shape[0],))
    if zero_grad is None:
        zero_grad = opt.zero_grad

    def step():
        zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()

    return step


MLP_POINT = (Point("b64", 64, "784-128-10, batch 64, CrossEntropyLoss, SGD momentum 0.9"),)
MLP_VARIANTS = (
    Variant("zero_grad(set_to_none=False)", {"set_to_none": False},
            description="grads zero-filled in place instead of freed"),
    PROVENANCE_OFF,
    SILENT_WRITES_ON,
)


@timed_case("mlp_step", GROUP_TRAIN,
            "MLP train step", MLP_POINT,
            variants=MLP_VARIANTS)
def mlp_step(T, batch, set_to_none=True, provenance=True, silent_writes=False):
    model = build_mlp(T)
    opt = T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = T.randn(batch, 784)
    if set_to_none:
        zero_grad = opt.zero_grad  # the default call, no keyword needed
    else:
        def zero_grad():
            opt.zero_grad(set_to_none=False)

    step = classifier_step(T, model, opt, x, zero_grad)
    if silent_writes:
        return with_silent_writes(T, step, True)
    return with_provenance(T, step, provenance)


@timed_case("mlp_bf16_step", GROUP_TRAIN, "MLP train step, bfloat16",
            (Point("b64", 64, "the MLP step's model and batch in bfloat16"),))
def mlp_bf16_step(T, batch):
    model = build_mlp(T).to(T.bfloat16)
    opt = T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return classifier_step(T, model, opt, T.randn(batch, 784).to(T.bfloat16))


def autocast_step(T, model, opt, x):
    """step(): the classifier step with forward and loss in a bfloat16 CPU autocast
    region; backward and ``opt.step()`` outside it, as torch's AMP recipe has them."""
    crit = T.nn.CrossEntropyLoss()
    y = T.randint(0, 10, (x.shape[0],))
    autocast, low = T.autocast, T.bfloat16

    def step():
        opt.zero_grad()
        with autocast("cpu", dtype=low):
            loss = crit(model(x), y)
        loss.backward()
        opt.step()

    return step


@timed_case("mlp_autocast_step", GROUP_TRAIN, "MLP train step, bfloat16 autocast",
            (Point("b64", 64, "the MLP step's float32 model and batch, forward and loss "
                              "under autocast('cpu', dtype=bfloat16)"),))
def mlp_autocast_step(T, batch):
    model = build_mlp(T)
    opt = T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return autocast_step(T, model, opt, T.randn(batch, 784))


@timed_case("sgd_step", GROUP_TRAIN, "SGD momentum step alone",
            (Point("MLP", None, "the MLP's 101,770 parameters, fixed grads"),))
def sgd_step(T, _unused):
    model = build_mlp(T)
    opt = T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for p in model.parameters():
        p.grad = T.randn_like(p)

    def step():
        opt.step()

    return step


# DataLoader epoch (training toolkit)
@timed_case("dataloader_epoch", GROUP_TRAIN, "DataLoader epoch, shuffled TensorDataset",
            (Point("4096x16 b64", 64, "TensorDataset(4096x16 float32), batch 64, shuffle=True"),))
def dataloader_epoch(T, batch):
    seed(T)
    loader = T.utils.data.DataLoader(T.utils.data.TensorDataset(T.randn(4096, 16)),
                                     batch_size=batch, shuffle=True)

    def step():
        for _ in loader:
            pass

    return step


# --------------------------------------------------------------------------
# random draws: torch's mt19937 stream, equal numbers (a fresh output each time)

GROUP_RNG = "random"
RNG_POINTS = (Point("16M", 1 << 24, "16M float32 draws"),)


@timed_case("rand", GROUP_RNG, "T.rand(n)", RNG_POINTS)
def rand(T, n):
    def step():
        T.rand(n)

    return step


@timed_case("randn", GROUP_RNG, "T.randn(n)", RNG_POINTS)
def randn(T, n):
    def step():
        T.randn(n)

    return step


# the adaptive optimizers: the MLP step trained with Adam
@timed_case("adam_mlp", GROUP_TRAIN, "MLP train step, Adam",
            (Point("b64", 64, "784-128-10, batch 64, CrossEntropyLoss, Adam lr 1e-3"),))
def adam_mlp(T, batch):
    model = build_mlp(T)
    opt = T.optim.Adam(model.parameters(), lr=1e-3)
    return classifier_step(T, model, opt, T.randn(batch, 784))


# --------------------------------------------------------------------------
# convolution: a small CNN's train step, and one Conv2d layer fwd+bwd

def build_cnn(T):
    """Conv 1->16 3x3, ReLU, MaxPool, Conv 16->32 3x3, ReLU, MaxPool, Linear (28x28 in)."""
    nn = T.nn
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 7 * 7, 10))


@timed_case("cnn_step", GROUP_TRAIN, "CNN train step",
            (Point("b32", 32, "2 conv + 2 maxpool + linear, batch 32 of 1x28x28, SGD momentum"),),
            variants=(SILENT_WRITES_ON,))
def cnn_step(T, batch, silent_writes=False):
    seed(T)
    model = build_cnn(T)
    opt = T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    step = classifier_step(T, model, opt, T.randn(batch, 1, 28, 28))
    return with_silent_writes(T, step, silent_writes)


@timed_case("conv2d_fwd_bwd", GROUP_TRAIN, "Conv2d 64->64 3x3 fwd+bwd",
            tuple(Point(f"b{b}", b, f"batch {b} of 64x32x32, padding 1, grads of input and weight")
                  for b in (1, 4, 16, 64)))
def conv2d_fwd_bwd(T, batch):
    seed(T)
    conv = T.nn.Conv2d(64, 64, 3, padding=1)
    x = T.randn(batch, 64, 32, 32, requires_grad=True)

    def step():
        conv.zero_grad()
        x.grad = None
        conv(x).sum().backward()

    return step
