"""The benchmark cases, each written once against a library module ``T``.

``T`` is ``torch`` or ``gradtrack`` (they share one API), so every case runs
the exact same Python code in both libraries.

A *timed* case is a function ``setup(T, value, **options) -> step``:

* ``value`` comes from one of the case's points (a size, a flag, a shape);
* ``options`` are empty for the normal run and filled by a ``Variant``;
* ``step`` is a zero-argument callable that does one iteration.  Everything
  it needs is bound as closure variables in ``setup`` so that the measured
  loop pays for one Python frame per iteration and nothing else.
* ``setup`` may instead return ``(step, cleanup)``; ``cleanup()`` is called
  when the harness drops the case (use it to undo a process-global switch).

A *probe* case is measured in fresh interpreters instead (import time, RSS);
``probe`` names the experiment in ``benchmarks/worker.py`` and ``metric``
the number it reports.

This module must stay importable without torch or gradtrack: the parent
process reads it to list and schedule cases, and it must never load a
library's thread pool.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Point:
    """One size (or setting) a case runs at."""

    label: str  # shown in the "size" column, e.g. "16M"
    value: object = None  # handed to setup(); must be plain data
    detail: str = ""  # e.g. "4096x4096 float32", for the JSON


@dataclass
class Variant:
    """An extra configuration of a case, compared with the default one.

    The harness runs the variant next to the default configuration of each
    library listed in ``libs`` (all libraries when ``None``), in the same
    alternation, and reports its time relative to that default.

    ``options`` go to ``setup`` as keyword arguments.  A variant that needs
    process-wide state (an environment variable read at import, a global
    switch) sets ``isolated=True`` or ``env``: it then gets a worker process
    of its own, started with ``env`` added to the environment.
    """

    name: str
    options: dict = field(default_factory=dict)
    libs: tuple = None
    env: dict = field(default_factory=dict)
    isolated: bool = False
    description: str = ""
    points: tuple = None  # labels of the points it runs at; None: all

    def runs_at(self, point):
        return self.points is None or point.label in self.points

    @property
    def own_process(self):
        """True when this variant must not share its library's worker."""
        return self.isolated or bool(self.env)


@dataclass
class Case:
    """A benchmark: what it measures, at which points, and how."""

    id: str
    group: str
    title: str
    points: tuple
    setup: object = None  # timed cases: setup(T, value, **options)
    probe: str = None  # probe cases: "import" or "peak_rss"
    metric: str = None  # probe cases: which number of the probe
    unit: str = "s"  # "s" (per iteration) or "B" (bytes)
    variants: tuple = ()

    @property
    def timed(self):
        return self.setup is not None

    def point(self, label):
        for p in self.points:
            if p.label == label:
                return p
        raise KeyError(f"case {self.id!r} has no point {label!r}")


CASES = []


def timed_case(case_id, group, title, points, variants=()):
    """Register the decorated setup function as a timed case."""

    def register(setup):
        CASES.append(Case(case_id, group, title, tuple(points), setup=setup,
                          variants=tuple(variants)))
        return setup

    return register


def by_id(case_id):
    """The case called ``case_id`` (KeyError if there is none)."""
    for case in CASES:
        if case.id == case_id:
            return case
    raise KeyError(case_id)


def seed(T):
    """Seed the library's RNG so inputs are reproducible.

    Random values never change the timings of these cases, so a library that
    lacks ``manual_seed`` is simply left unseeded rather than failing.
    """
    manual_seed = getattr(T, "manual_seed", None)
    if manual_seed is not None:
        manual_seed(0)


# --------------------------------------------------------------------------
# 1. per-op overhead: one element, so the time is all dispatch and bookkeeping

GRAD_POINTS = (Point("no grad", False, "1 element, requires_grad=False"),
               Point("requires_grad", True, "1 element, requires_grad=True"))
GROUP_OP = "per-op overhead"


@timed_case("op_add", GROUP_OP, "a + b, 1 element", GRAD_POINTS)
def op_add(T, requires_grad):
    a = T.randn(1, requires_grad=requires_grad)
    b = T.randn(1, requires_grad=requires_grad)

    def step():
        a + b

    return step


@timed_case("op_mul", GROUP_OP, "a * b, 1 element", GRAD_POINTS)
def op_mul(T, requires_grad):
    a = T.randn(1, requires_grad=requires_grad)
    b = T.randn(1, requires_grad=requires_grad)

    def step():
        a * b

    return step


@timed_case("op_matmul", GROUP_OP, "a @ b, 1x1", GRAD_POINTS)
def op_matmul(T, requires_grad):
    a = T.randn(1, 1, requires_grad=requires_grad)
    b = T.randn(1, 1, requires_grad=requires_grad)

    def step():
        a @ b

    return step


# --------------------------------------------------------------------------
# 2. small graphs, forward + backward: graph building and engine overhead

GROUP_GRAPH = "small graphs (fwd+bwd)"
SHAPE_2x3 = (Point("2x3", (2, 3), "2x3 float32, requires_grad=True"),)

# gradtrack records the user's source line of every graph node and in-place
# write (NOTE [Write provenance]); this variant shows what that costs.  The
# switch is process-wide, so the variant needs a worker of its own.
PROVENANCE_OFF = Variant("provenance off", {"provenance": False}, libs=("gradtrack",),
                         isolated=True,
                         description="gradtrack.autograd.set_provenance(False): no source "
                                     "lines recorded for nodes and in-place writes")


def with_provenance(T, step, provenance):
    """``step``, or ``(step, cleanup)`` with provenance recording off until cleanup.

    A stand-in library (``GRADTRACK_BENCH_STANDIN``) has no such switch and
    runs as in the default configuration.
    """
    set_provenance = getattr(T.autograd, "set_provenance", None)
    if provenance or set_provenance is None:
        return step
    set_provenance(False)
    return step, lambda: set_provenance(True)


@timed_case("graph_sq_sum", GROUP_GRAPH, "(X**2).sum().backward()", SHAPE_2x3,
            variants=(PROVENANCE_OFF,))
def graph_sq_sum(T, shape, provenance=True):
    X = T.randn(*shape, requires_grad=True)

    def step():
        (X ** 2).sum().backward()
        X.grad = None  # keep grads from accumulating across iterations

    return with_provenance(T, step, provenance)


@timed_case("graph_mul_add_sum", GROUP_GRAPH, "(a*b+a).sum().backward()",
            SHAPE_2x3, variants=(PROVENANCE_OFF,))
def graph_mul_add_sum(T, shape, provenance=True):
    a = T.randn(*shape, requires_grad=True)
    b = T.randn(*shape, requires_grad=True)

    def step():
        (a * b + a).sum().backward()
        a.grad = None
        b.grad = None

    return with_provenance(T, step, provenance)


def _cube_function(T):
    """A user-written op: x**3 with a hand-written backward (autograd.Function)."""

    class Cube(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x * x * grad

    return Cube


@timed_case("custom_cube", GROUP_GRAPH, "Cube.apply(x).sum().backward()",
            (Point("8", 8, "8 float32 elements, a custom autograd.Function"),))
def custom_cube(T, n):
    cube = _cube_function(T)
    x = T.randn(n, requires_grad=True)

    def step():
        cube.apply(x).sum().backward()
        x.grad = None

    return step


# --------------------------------------------------------------------------
# 3. elementwise ops and reductions on square float32 matrices

def _square(side):
    return Point({32: "1K", 256: "64K", 1024: "1M", 4096: "16M"}[side], side,
                 f"{side}x{side} float32")


ELEMENT_POINTS = tuple(_square(side) for side in (32, 256, 4096))
# elementwise ops also at 1M: mid-size is where threading pays off or not
ELT_POINTS = tuple(_square(side) for side in (32, 256, 1024, 4096))
GROUP_ELT = "elementwise"
GROUP_RED = "reductions"


def _pair(T, side):
    return T.randn(side, side), T.randn(side, side)


@timed_case("add", GROUP_ELT, "a + b (fresh output)", ELT_POINTS)
def add(T, side):
    a, b = _pair(T, side)

    def step():
        a + b  # the result is dropped: every iteration allocates anew

    return step


@timed_case("mul", GROUP_ELT, "a * b (fresh output)", ELT_POINTS)
def mul(T, side):
    a, b = _pair(T, side)

    def step():
        a * b

    return step


@timed_case("exp", GROUP_ELT, "a.exp()", ELT_POINTS)
def exp(T, side):
    a, _ = _pair(T, side)

    def step():
        a.exp()

    return step


@timed_case("relu", GROUP_ELT, "a.relu()", ELT_POINTS)
def relu(T, side):
    a, _ = _pair(T, side)

    def step():
        a.relu()

    return step


# The 16M reductions' floor goal divides each by the bare read
# loop.  Timed as a case of its own, the loop ran minutes apart from the
# reduction and the ratio swung by 15% between runs on an idle machine; as a
# variant it reads the very same tensor in the same rounds, taking turns with
# the reduction, so both see the same machine.
READ_LOOP = Variant("bare read loop", {"read_loop": True}, points=("16M",),
                    description="gradtrack._C._bench.read_floor over the same tensor, "
                                "timed in turns with the reduction")
RED_VARIANTS = (READ_LOOP,)


def _read_loop(T, a):
    """step() running the bare read loop over ``a``'s memory."""
    gt, bench = _bench_helpers(T)
    flat = a.reshape(-1)
    if T is not gt:  # the other library's tensor, its memory seen by gradtrack
        flat = gt.from_numpy(flat.numpy())

    def step():
        bench.read_floor(flat)

    return step


@timed_case("sum", GROUP_RED, "a.sum()", ELEMENT_POINTS, variants=RED_VARIANTS)
def sum_all(T, side, read_loop=False):
    a, _ = _pair(T, side)
    if read_loop:
        return _read_loop(T, a)

    def step():
        a.sum()

    return step


@timed_case("sum_dim", GROUP_RED, "a.sum(dim=1)", ELEMENT_POINTS, variants=RED_VARIANTS)
def sum_dim(T, side, read_loop=False):
    a, _ = _pair(T, side)
    if read_loop:
        return _read_loop(T, a)

    def step():
        a.sum(dim=1)  # along the contiguous axis, as in a row softmax

    return step


@timed_case("mean", GROUP_RED, "a.mean()", ELEMENT_POINTS, variants=RED_VARIANTS)
def mean(T, side, read_loop=False):
    a, _ = _pair(T, side)
    if read_loop:
        return _read_loop(T, a)

    def step():
        a.mean()

    return step


@timed_case("max", GROUP_RED, "a.max()", ELEMENT_POINTS, variants=RED_VARIANTS)
def max_all(T, side, read_loop=False):
    a, _ = _pair(T, side)
    if read_loop:
        return _read_loop(T, a)

    def step():
        a.max()

    return step


def _bench_helpers(T):
    """gradtrack's private reference loops (``_C._bench``), in any worker.

    The same C++ loop runs in both libraries' workers, so its two columns
    show the machine, not a library; gradtrack's column is the floor.
    """
    import importlib

    gt = importlib.import_module("gradtrack")
    threads = getattr(T, "get_num_threads", None)
    if threads is not None and T is not gt:
        gt.set_num_threads(threads())  # the worker's thread setting
    return gt, gt._C._bench


@timed_case("read_floor", GROUP_RED, "bare read loop (C++ reference)",
            (Point("16M", 1 << 24, "16M float32 read once over all threads, "
                                   "gradtrack._C._bench.read_floor"),))
def read_floor(T, n):
    gt, bench = _bench_helpers(T)
    a = gt.randn(n)

    def step():
        bench.read_floor(a)

    return step


# scans and sorts at 1M elements

LINE_POINTS = (Point("1M", 1 << 20, "1M float32, one line"),)
GROUP_SORT = "scans and sorts"


@timed_case("sort", GROUP_SORT, "a.sort()", LINE_POINTS)
def sort(T, n):
    seed(T)
    a = T.randn(n)

    def step():
        a.sort()

    return step


@timed_case("topk", GROUP_SORT, "a.topk(10)", LINE_POINTS)
def topk(T, n):
    seed(T)
    a = T.randn(n)

    def step():
        a.topk(10)

    return step


@timed_case("cumsum", GROUP_SORT, "a.cumsum(0)", LINE_POINTS)
def cumsum(T, n):
    seed(T)
    a = T.randn(n)

    def step():
        a.cumsum(0)

    return step


# --------------------------------------------------------------------------
# 4. a large fused-looking chain with backward: memory traffic plus autograd

@timed_case("mul_relu_sum_backward", "large graph (fwd+bwd)",
            "(x*w).relu().sum().backward()",
            (Point("4M", 2048, "2048x2048 float32, w requires_grad"),))
def mul_relu_sum_backward(T, side):
    x = T.randn(side, side)
    w = T.randn(side, side, requires_grad=True)

    def step():
        (x * w).relu().sum().backward()
        w.grad = None

    return step


# --------------------------------------------------------------------------
# 5. matmul, float32 square

# The peak goal divides the 1024^2 product's rate by the FMA loop's.  Timed as
# separate cases the two ran a minute apart, and on a host with busy
# neighbours the fraction swung from 65% to 98% between two runs of the same
# code; as a variant the loop does the product's FLOPs in the same rounds,
# taking turns with it.
FMA_IN_TURNS = Variant("FMA loop, same FLOPs", {"fma_loop": True}, points=("1024",),
                       description="gradtrack._C._bench.fma_peak doing the product's "
                                   "2 n^3 FLOPs, timed in turns with the product")


@timed_case("matmul", "matmul", "a @ b (square float32)",
            tuple(Point(str(n), n, f"{n}x{n} @ {n}x{n}")
                  for n in (64, 128, 256, 512, 1024, 2048)),
            variants=(FMA_IN_TURNS,))
def matmul(T, n, fma_loop=False):
    if fma_loop:
        _, bench = _bench_helpers(T)
        flops = 2.0 * n ** 3
        return lambda: bench.fma_peak(flops)
    a, b = _pair(T, n)

    def step():
        a @ b

    return step


# the products backward computes, batched and float64 products,
# and the machine's peak FLOP rate from a loop of fused multiply-adds

GROUP_MM = "matmul"


@timed_case("matmul_tn", GROUP_MM, "a.T @ b (square float32)",
            tuple(Point(str(n), n, f"({n}x{n}).T @ {n}x{n}") for n in (256, 1024)))
def matmul_tn(T, n):
    a, b = _pair(T, n)

    def step():
        a.T @ b  # as in the weight gradient of a @ b

    return step


@timed_case("matmul_nt", GROUP_MM, "a @ b.T (square float32)",
            tuple(Point(str(n), n, f"{n}x{n} @ ({n}x{n}).T") for n in (256, 1024)))
def matmul_nt(T, n):
    a, b = _pair(T, n)

    def step():
        a @ b.T  # as in the input gradient of a @ b, and in nn.Linear

    return step


MLP_MM_POINTS = (
    Point("fwd", ((64, 784), (784, 128), ""), "64x784 @ 784x128"),
    Point("back", ((64, 128), (128, 784), ""), "64x128 @ 128x784"),
    Point("grad_w", ((784, 64), (64, 128), "T"), "(64x784).T @ 64x128"),
)


@timed_case("matmul_mlp", GROUP_MM, "MLP shapes (float32)", MLP_MM_POINTS)
def matmul_mlp(T, shapes):
    sa, sb, how = shapes
    a = T.randn(*reversed(sa)).T if how == "T" else T.randn(*sa)
    b = T.randn(*sb)

    def step():
        a @ b

    return step


@timed_case("bmm", GROUP_MM, "T.bmm(a, b) (float32)",
            (Point("16x128", (16, 128), "16 x (128x128 @ 128x128)"),
             Point("4x512", (4, 512), "4 x (512x512 @ 512x512)")))
def bmm(T, shape):
    batch, n = shape
    a, b = T.randn(batch, n, n), T.randn(batch, n, n)

    def step():
        T.bmm(a, b)

    return step


@timed_case("matmul_f64", GROUP_MM, "a @ b (square float64)",
            tuple(Point(str(n), n, f"{n}x{n} @ {n}x{n} float64") for n in (256, 1024)))
def matmul_f64(T, n):
    a, b = T.randn(n, n, dtype=T.float64), T.randn(n, n, dtype=T.float64)

    def step():
        a @ b

    return step


FMA_FLOPS = 4e8  # per step, over all threads: a few ms


@timed_case("fma_peak", GROUP_MM, "FMA loop: peak FLOP rate (C++ reference)",
            (Point("peak", FMA_FLOPS, "fused multiply-adds in registers on every thread, "
                                      "gradtrack._C._bench.fma_peak"),))
def fma_peak(T, flops):
    _, bench = _bench_helpers(T)

    def step():
        bench.fma_peak(flops)

    return step


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


MLP_POINT = (Point("b64", 64, "784-128-10, batch 64, CrossEntropyLoss, SGD momentum 0.9"),)
MLP_VARIANTS = (
    Variant("zero_grad(set_to_none=False)", {"set_to_none": False},
            description="grads zero-filled in place instead of freed"),
    PROVENANCE_OFF,
)


@timed_case("mlp_step", GROUP_TRAIN,
            "MLP train step", MLP_POINT,
            variants=MLP_VARIANTS)
def mlp_step(T, batch, set_to_none=True, provenance=True):
    model = build_mlp(T)
    crit = T.nn.CrossEntropyLoss()
    opt = T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = T.randn(batch, 784)
    y = T.randint(0, 10, (batch,))
    if set_to_none:
        zero_grad = opt.zero_grad  # the default call, no keyword needed
    else:
        def zero_grad():
            opt.zero_grad(set_to_none=False)

    def step():
        zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()

    return with_provenance(T, step, provenance)


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
    crit = T.nn.CrossEntropyLoss()
    opt = T.optim.Adam(model.parameters(), lr=1e-3)
    x = T.randn(batch, 784)
    y = T.randint(0, 10, (batch,))

    def step():
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()

    return step


# --------------------------------------------------------------------------
# convolution: a small CNN's train step, and one Conv2d layer fwd+bwd

def build_cnn(T):
    """Conv 1->16 3x3, ReLU, MaxPool, Conv 16->32 3x3, ReLU, MaxPool, Linear (28x28 in)."""
    nn = T.nn
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 7 * 7, 10))


@timed_case("cnn_step", GROUP_TRAIN, "CNN train step",
            (Point("b32", 32, "2 conv + 2 maxpool + linear, batch 32 of 1x28x28, SGD momentum"),))
def cnn_step(T, batch):
    seed(T)
    model = build_cnn(T)
    crit = T.nn.CrossEntropyLoss()
    opt = T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = T.randn(batch, 1, 28, 28)
    y = T.randint(0, 10, (batch,))

    def step():
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()

    return step


@timed_case("conv2d_fwd_bwd", GROUP_TRAIN, "Conv2d 64->64 3x3 fwd+bwd",
            (Point("b16", 16, "batch 16 of 64x32x32, padding 1, grads of input and weight"),))
def conv2d_fwd_bwd(T, batch):
    seed(T)
    conv = T.nn.Conv2d(64, 64, 3, padding=1)
    x = T.randn(batch, 64, 32, 32, requires_grad=True)

    def step():
        conv.zero_grad()
        x.grad = None
        conv(x).sum().backward()

    return step


# --------------------------------------------------------------------------
# 9-10. process-level numbers, each from fresh interpreters

GROUP_PROC = "import & memory"
PEAK_RSS_STEPS = 100  # enough steps for every buffer and cache to exist

CASES.extend([
    Case("import_time", GROUP_PROC, "import T",
         (Point("", None, "wall time around `import T` in a fresh interpreter"),),
         probe="import", metric="seconds", unit="s"),
    Case("import_rss", GROUP_PROC, "RSS right after import",
         (Point("", None, "VmRSS after `import T`"),),
         probe="import", metric="rss_bytes", unit="B"),
    Case("peak_rss_mlp", GROUP_PROC, "peak RSS, MLP training",
         (Point(f"{PEAK_RSS_STEPS} steps", PEAK_RSS_STEPS,
                "VmHWM after N mlp_step iterations"),),
         probe="peak_rss", metric="peak_bytes", unit="B"),
])


# --------------------------------------------------------------------------
# nn layers: normalization at 4M elements, forward + backward

GROUP_NORM = "nn layers (fwd+bwd)"


@timed_case("layer_norm", GROUP_NORM, "LayerNorm(1024)(x).sum().backward()",
            (Point("4M", (4096, 1024), "4096x1024 float32, x requires_grad"),))
def layer_norm(T, shape):
    x = T.randn(*shape, requires_grad=True)
    ln = T.nn.LayerNorm(shape[-1])

    def step():
        ln(x).sum().backward()
        x.grad = ln.weight.grad = ln.bias.grad = None

    return step


@timed_case("batch_norm", GROUP_NORM, "BatchNorm2d(64)(x).sum().backward(), training",
            (Point("4M", (32, 64, 32, 64), "32x64x32x64 float32, x requires_grad"),))
def batch_norm(T, shape):
    x = T.randn(*shape, requires_grad=True)
    bn = T.nn.BatchNorm2d(shape[1])

    def step():
        bn(x).sum().backward()
        x.grad = bn.weight.grad = bn.bias.grad = None

    return step


# --------------------------------------------------------------------------
# recurrent layers: a small LSTM language-model layer, fwd+bwd


@timed_case("lstm_fwd_bwd", GROUP_NORM, "LSTM(32, 128) fwd+bwd",
            (Point("s35b20", (35, 20), "seq 35, batch 20, input 32, hidden 128 float32"),))
def lstm_fwd_bwd(T, shape):
    seed(T)
    lstm = T.nn.LSTM(32, 128)
    x = T.randn(*shape, 32, requires_grad=True)

    def step():
        lstm.zero_grad()
        x.grad = None
        output, _ = lstm(x)
        output.sum().backward()

    return step
