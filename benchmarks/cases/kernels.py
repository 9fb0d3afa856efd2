"""The kernels on large tensors: elementwise ops and reductions on square float32 matrices
(with the bare read loop as a variant), scans and sorts on one long line, and a large
elementwise chain with backward (memory traffic plus autograd).
"""

from .registry import Point, Variant, seed, timed_case


# --------------------------------------------------------------------------
# 3. elementwise ops and reductions on square float32 matrices

def _square(side):
    labels = {32: "1K", 128: "16K", 256: "64K", 512: "256K", 1024: "1M", 2048: "4M",
              4096: "16M", 8192: "64M"}
    return Point(labels[side], side, f"{side}x{side} float32")


ELEMENT_POINTS = tuple(_square(side) for side in (32, 256, 4096))
# elementwise ops also at 1M: mid-size is where threading pays off or not
ELT_POINTS = tuple(_square(side) for side in (32, 256, 1024, 4096))
# a + b from 1K to 64M elements: the growth chart's elementwise curve, across the caches
GROWTH_POINTS = tuple(_square(side) for side in (32, 128, 256, 512, 1024, 2048, 4096, 8192))
GROUP_ELT = "elementwise"
GROUP_RED = "reductions"


def _pair(T, side):
    return T.randn(side, side), T.randn(side, side)


@timed_case("add", GROUP_ELT, "a + b (fresh output)", GROWTH_POINTS)
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


@timed_case("add_bf16", GROUP_ELT, "a + b (bfloat16, fresh output)",
            (Point("1M", 1024, "1024x1024 bfloat16, float32 arithmetic rounded once"),))
def add_bf16(T, side):
    a, b = (t.to(T.bfloat16) for t in _pair(T, side))

    def step():
        a + b

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


@timed_case("clamp", GROUP_ELT, "a.clamp(-0.5, 0.5)", ELT_POINTS)
def clamp(T, side):
    a, _ = _pair(T, side)

    def step():
        a.clamp(-0.5, 0.5)

    return step


@timed_case("leaky_relu", GROUP_ELT, "F.leaky_relu(a)", ELT_POINTS)
def leaky_relu(T, side):
    a, _ = _pair(T, side)

    def step():
        T.nn.functional.leaky_relu(a)

    return step


@timed_case("sigmoid", GROUP_ELT, "a.sigmoid()", ELT_POINTS)
def sigmoid(T, side):
    a, _ = _pair(T, side)

    def step():
        a.sigmoid()

    return step


@timed_case("tanh", GROUP_ELT, "a.tanh()", ELT_POINTS)
def tanh(T, side):
    a, _ = _pair(T, side)

    def step():
        a.tanh()

    return step


@timed_case("gelu", GROUP_ELT, "F.gelu(a)", ELT_POINTS)
def gelu(T, side):
    a, _ = _pair(T, side)

    def step():
        T.nn.functional.gelu(a)

    return step


@timed_case("gelu_backward", GROUP_ELT, "F.gelu(a).backward(g)", ELT_POINTS)
def gelu_backward(T, side):
    a, g = _pair(T, side)
    a.requires_grad_()

    def step():
        T.nn.functional.gelu(a).backward(g)
        a.grad = None

    return step


@timed_case("log", GROUP_ELT, "a.log() of positive a", ELT_POINTS)
def log(T, side):
    a = _pair(T, side)[0].abs() + 0.01

    def step():
        a.log()

    return step


@timed_case("sinh", GROUP_ELT, "a.sinh()", ELT_POINTS)
def sinh(T, side):
    a = _pair(T, side)[0]

    def step():
        a.sinh()

    return step


@timed_case("atan", GROUP_ELT, "a.atan()", ELT_POINTS)
def atan(T, side):
    a = _pair(T, side)[0]

    def step():
        a.atan()

    return step


@timed_case("softplus", GROUP_ELT, "F.softplus(a)", ELT_POINTS)
def softplus(T, side):
    a, _ = _pair(T, side)

    def step():
        T.nn.functional.softplus(a)

    return step


@timed_case("mish_backward", GROUP_ELT, "F.mish(a).backward(g)", ELT_POINTS)
def mish_backward(T, side):
    a, g = _pair(T, side)
    a.requires_grad_()

    def step():
        T.nn.functional.mish(a).backward(g)
        a.grad = None

    return step


@timed_case("softmax", GROUP_ELT, "a.softmax(-1)", ELT_POINTS)
def softmax(T, side):
    a, _ = _pair(T, side)

    def step():
        a.softmax(-1)

    return step


@timed_case("softmax_backward", GROUP_ELT, "a.softmax(-1).backward(g)", ELT_POINTS)
def softmax_backward(T, side):
    a, g = _pair(T, side)
    a.requires_grad_()

    def step():
        a.softmax(-1).backward(g)
        a.grad = None

    return step


@timed_case("transpose_copy", GROUP_ELT, "a.t().contiguous()", ELT_POINTS)
def transpose_copy(T, side):
    a, _ = _pair(T, side)

    def step():
        a.t().contiguous()

    return step


@timed_case("argmax", GROUP_ELT, "a.argmax(1)", ELT_POINTS)
def argmax(T, side):
    a, _ = _pair(T, side)

    def step():
        a.argmax(1)

    return step


@timed_case("norm", GROUP_ELT, "a.norm()", ELT_POINTS)
def norm(T, side):
    a, _ = _pair(T, side)

    def step():
        a.norm()

    return step


@timed_case("maximum", GROUP_ELT, "torch.maximum(a, b)", ELT_POINTS)
def maximum(T, side):
    a, b = _pair(T, side)

    def step():
        T.maximum(a, b)

    return step


@timed_case("where", GROUP_ELT, "torch.where(mask, a, b), a random mask", ELT_POINTS)
def where(T, side):
    a, b = _pair(T, side)
    mask = T.randn(side, side) > 0

    def step():
        T.where(mask, a, b)

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


def reduction_case(case_id, title):
    """Register a reduction of one square matrix ``a`` at ELEMENT_POINTS, with the bare
    read loop over ``a`` as its variant; the decorated ``reduce_step(a)`` gives the step."""

    def register(reduce_step):
        @timed_case(case_id, GROUP_RED, title, ELEMENT_POINTS, variants=RED_VARIANTS)
        def setup(T, side, read_loop=False):
            a, _ = _pair(T, side)
            return _read_loop(T, a) if read_loop else reduce_step(a)

        return setup

    return register


@reduction_case("sum", "a.sum()")
def sum_all(a):
    def step():
        a.sum()

    return step


@reduction_case("sum_dim", "a.sum(dim=1)")
def sum_dim(a):
    def step():
        a.sum(dim=1)  # along the contiguous axis, as in a row softmax

    return step


@reduction_case("mean", "a.mean()")
def mean(a):
    def step():
        a.mean()

    return step


@reduction_case("max", "a.max()")
def max_all(a):
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
