"""Matrix products: square float32 (with the FMA loop in turns as a variant), transposed
operands, the shapes an MLP's backward multiplies, bmm, float64, bfloat16, and the
machine's peak FLOP rate from a loop of fused multiply-adds; the
factorizations and decompositions of torch.linalg (solve, inv, cholesky, svd, qr).
"""

from .kernels import _bench_helpers, _pair
from .registry import Point, Variant, timed_case


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
                  for n in (64, 128, 256, 512, 1024, 2048, 4096)),
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


@timed_case("matmul_bf16", GROUP_MM, "a @ b (square bfloat16)",
            tuple(Point(str(n), n, f"{n}x{n} @ {n}x{n} bfloat16, float32 sums") for n in (256, 1024)))
def matmul_bf16(T, n):
    a, b = T.randn(n, n).to(T.bfloat16), T.randn(n, n).to(T.bfloat16)

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


# the factorizations of torch.linalg (LAPACK: OpenBLAS's against torch's MKL)

GROUP_LINALG = "linalg"


def _well_conditioned(T, n):
    return T.randn(n, n) + n * T.eye(n)


@timed_case("linalg_solve", GROUP_LINALG, "linalg.solve(A, B) (float32, B n x n)",
            (Point("256", 256, "256x256, 256 right-hand sides"),))
def linalg_solve(T, n):
    a, b = _well_conditioned(T, n), T.randn(n, n)

    def step():
        T.linalg.solve(a, b)

    return step


@timed_case("linalg_inv", GROUP_LINALG, "linalg.inv(A) (float32)",
            (Point("256", 256, "256x256"),))
def linalg_inv(T, n):
    a = _well_conditioned(T, n)

    def step():
        T.linalg.inv(a)

    return step


@timed_case("cholesky", GROUP_LINALG, "linalg.cholesky(A) (float32, A positive-definite)",
            (Point("512", 512, "512x512"),))
def cholesky(T, n):
    x = T.randn(n, n)
    a = x @ x.T + n * T.eye(n)

    def step():
        T.linalg.cholesky(a)

    return step


# the decompositions (LAPACK's gesdd and geqrf/orgqr)

@timed_case("linalg_svd", GROUP_LINALG, "linalg.svd(A, full_matrices=False) (float32)",
            (Point("256", 256, "256x256"),))
def linalg_svd(T, n):
    a = T.randn(n, n)

    def step():
        T.linalg.svd(a, full_matrices=False)

    return step


@timed_case("linalg_qr", GROUP_LINALG, "linalg.qr(A) (float32)", (Point("256", 256, "256x256"),))
def linalg_qr(T, n):
    a = T.randn(n, n)

    def step():
        T.linalg.qr(a)

    return step
