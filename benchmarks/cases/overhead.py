"""Per-op overhead (one element, so the time is all dispatch and bookkeeping) and small
graphs forward + backward (graph building and engine overhead, a custom Function).
"""

from .registry import Point, Variant, timed_case


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
