"""CPU autocast against torch 2.13: which ops run in bfloat16 (or float16) and which in
float32 inside an enabled ``autocast("cpu")`` region, their values, the graph the casts
leave (ToCopyBackward0, one cast per weight per region), gradients in the parameters'
dtype, nesting, threads, and ``custom_fwd``/``custom_bwd``. NOTE [Autocast on the CPU]."""

import threading

import numpy as np
import pytest

import gradtrack

from helpers import nexts

torch = pytest.importorskip("torch")


def _inputs(lib, low):
    """The same inputs for both libraries; ``low`` is the dtype of the loss inputs."""
    g = np.random.default_rng(0)

    def t(*shape, dtype=None, grad=False):
        x = lib.tensor(g.standard_normal(shape).astype(np.float32))
        if dtype is not None:
            x = x.to(dtype)
        return x.requires_grad_() if grad else x

    low = getattr(lib, low)
    return {
        "x": t(4, 8), "w": t(6, 8, grad=True), "b": t(6, grad=True), "img": t(2, 3, 8, 8),
        "cw": t(4, 3, 3, 3), "seq": t(2, 3, 10), "cw1": t(4, 3, 3),
        "lo": t(4, 6, dtype=low), "tg": t(4, 6, dtype=low),
        "cls": lib.tensor([0, 5, 2, 1]), "ones": lib.ones(4),
    }


# Ops torch's CPU autocast runs in the region's dtype, on float32 inputs.
LOWER = {
    "matmul": lambda lib, a: a["x"] @ a["w"].T,
    "rmatmul": lambda lib, a: a["w"].T.__rmatmul__(a["x"]),
    "matmul_fn": lambda lib, a: lib.matmul(a["x"], a["w"].T),
    "matmul_1d": lambda lib, a: a["x"][0] @ a["x"][1],
    "mm": lambda lib, a: lib.mm(a["x"], a["w"].T),
    "mm_method": lambda lib, a: a["x"].mm(a["w"].T),
    "bmm": lambda lib, a: lib.bmm(a["x"][None], a["w"].T[None]),
    "addmm": lambda lib, a: lib.addmm(a["b"], a["x"], a["w"].T),
    "baddbmm": lambda lib, a: lib.baddbmm(a["b"][None, None], a["x"][None], a["w"].T[None]),
    "addbmm": lambda lib, a: lib.addbmm(a["b"], a["x"][None], a["w"].T[None]),
    "linear": lambda lib, a: lib.nn.functional.linear(a["x"], a["w"], a["b"]),
    "linear_nobias": lambda lib, a: lib.nn.functional.linear(a["x"], a["w"]),
    "conv1d": lambda lib, a: lib.nn.functional.conv1d(a["seq"], a["cw1"]),
    "conv2d": lambda lib, a: lib.nn.functional.conv2d(a["img"], a["cw"], padding=1),
    "conv_transpose2d": lambda lib, a: lib.nn.functional.conv_transpose2d(
        a["img"], a["cw"].transpose(0, 1)),
    "einsum": lambda lib, a: lib.einsum("ij,kj->ik", a["x"], a["w"]),
    "tensordot": lambda lib, a: lib.tensordot(a["x"], a["w"], ([1], [1])),
    "prelu": lambda lib, a: lib.nn.functional.prelu(a["img"], lib.ones(3)),
    "sdpa": lambda lib, a: lib.nn.functional.scaled_dot_product_attention(
        a["x"][None], a["x"][None], a["x"][None]),
    # not on the list: the dtype of the inputs
    "mv": lambda lib, a: lib.mv(a["w"], a["x"][0]),
    "dot": lambda lib, a: lib.dot(a["x"][0], a["x"][1]),
    "outer": lambda lib, a: lib.outer(a["x"][0], a["x"][1]),
    "addmv": lambda lib, a: lib.addmv(a["b"], a["w"], a["x"][0]),
    "add": lambda lib, a: a["x"] + a["x"],
    "softmax": lambda lib, a: lib.softmax(a["x"], -1),
    "layer_norm": lambda lib, a: lib.nn.functional.layer_norm(a["x"], (8,)),
    "float64": lambda lib, a: lib.mm(a["x"].double(), a["w"].double().T),
    "int64": lambda lib, a: lib.mm(lib.ones(2, 2, dtype=lib.int64), lib.ones(2, 2, dtype=lib.int64)),
    "float16_operands": lambda lib, a: lib.mm(a["x"].half(), a["w"].T.half()),
    "mixed_operands": lambda lib, a: a["x"] @ a["w"].T.bfloat16(),
}

F = "nn.functional."
# Ops torch's CPU autocast runs in float32, on bfloat16 inputs (and some that it does not).
FLOAT32 = {
    "mse_loss": lambda lib, a: lib.nn.functional.mse_loss(a["lo"], a["tg"]),
    "cross_entropy": lambda lib, a: lib.nn.functional.cross_entropy(a["lo"], a["cls"]),
    "nll_loss": lambda lib, a: lib.nn.functional.nll_loss(a["lo"], a["cls"]),
    "l1_loss": lambda lib, a: lib.nn.functional.l1_loss(a["lo"], a["tg"]),
    "smooth_l1_loss": lambda lib, a: lib.nn.functional.smooth_l1_loss(a["lo"], a["tg"]),
    "huber_loss": lambda lib, a: lib.nn.functional.huber_loss(a["lo"], a["tg"]),
    "binary_cross_entropy": lambda lib, a: lib.nn.functional.binary_cross_entropy(
        a["lo"].sigmoid(), a["tg"].sigmoid()),
    "bce_with_logits": lambda lib, a: lib.nn.functional.binary_cross_entropy_with_logits(
        a["lo"], a["tg"].sigmoid()),
    "kl_div": lambda lib, a: lib.nn.functional.kl_div(a["lo"], a["tg"], reduction="batchmean"),
    "soft_margin_loss": lambda lib, a: lib.nn.functional.soft_margin_loss(a["lo"], a["tg"]),
    "margin_ranking_loss": lambda lib, a: lib.nn.functional.margin_ranking_loss(
        a["lo"], a["tg"], a["tg"]),
    "hinge_embedding_loss": lambda lib, a: lib.nn.functional.hinge_embedding_loss(
        a["lo"], a["tg"]),
    "poisson_nll_loss": lambda lib, a: lib.nn.functional.poisson_nll_loss(a["lo"], a["tg"]),
    "cosine_embedding_loss": lambda lib, a: lib.nn.functional.cosine_embedding_loss(
        a["lo"], a["tg"], a["ones"]),
    "multi_margin_loss": lambda lib, a: lib.nn.functional.multi_margin_loss(a["lo"], a["cls"]),
    "multilabel_margin_loss": lambda lib, a: lib.nn.functional.multilabel_margin_loss(
        a["lo"], lib.tensor([[0, 5, -1, 2, 2, 2]] * 4)),
    "triplet_margin_loss": lambda lib, a: lib.nn.functional.triplet_margin_loss(
        a["lo"], a["tg"], a["tg"] * 2),
    "prod": lambda lib, a: a["lo"].prod(),
    "prod_dim": lambda lib, a: lib.prod(a["lo"], 1),
    "cdist": lambda lib, a: lib.cdist(a["lo"], a["tg"]),
    "trace": lambda lib, a: a["lo"].trace(),
    "reflect_pad": lambda lib, a: lib.nn.functional.pad(a["lo"][None], (1, 1), mode="reflect"),
    "replicate_pad": lambda lib, a: lib.nn.functional.pad(a["lo"][None], (1, 1),
                                                          mode="replicate"),
    "max_pool3d": lambda lib, a: lib.nn.functional.max_pool3d(a["lo"].reshape(1, 1, 2, 2, 6), 2),
    "avg_pool3d": lambda lib, a: lib.nn.functional.avg_pool3d(a["lo"].reshape(1, 1, 2, 2, 6), 2),
    "adaptive_avg_pool3d": lambda lib, a: lib.nn.functional.adaptive_avg_pool3d(
        a["lo"][None, None], 1),
    "adaptive_max_pool3d": lambda lib, a: lib.nn.functional.adaptive_max_pool3d(
        a["lo"][None, None], 1),
    "max_unpool2d": lambda lib, a: lib.nn.functional.max_unpool2d(
        *lib.nn.functional.max_pool2d(a["lo"][None], 2, return_indices=True), 2),
    "grid_sample": lambda lib, a: lib.nn.functional.grid_sample(
        a["lo"][None, None], a["tg"].reshape(1, 4, 3, 2).tanh(), align_corners=False),
    "ctc_loss": lambda lib, a: lib.nn.functional.ctc_loss(
        a["lo"].reshape(4, 1, 6).log_softmax(-1), lib.tensor([[1, 2]]), lib.tensor([4]),
        lib.tensor([2])),
    "linalg_inv": lambda lib, a: lib.linalg.inv(_spd(lib, a)),
    "inverse": lambda lib, a: lib.inverse(_spd(lib, a)),
    "linalg_solve": lambda lib, a: lib.linalg.solve(_spd(lib, a), _spd(lib, a)),
    "linalg_cholesky": lambda lib, a: lib.linalg.cholesky(_spd(lib, a)),
    "cholesky_solve": lambda lib, a: lib.cholesky_solve(_spd(lib, a), _spd(lib, a)),
    "quantile": lambda lib, a: lib.quantile(a["lo"].flatten(), 0.5),
    "nanquantile": lambda lib, a: lib.nanquantile(a["lo"].flatten(), 0.25),
    "svdvals": lambda lib, a: lib.linalg.svdvals(_spd(lib, a)),
    "linalg_svd": lambda lib, a: lib.linalg.svd(_spd(lib, a)).S,
    "linalg_qr": lambda lib, a: lib.linalg.qr(_spd(lib, a)).R,
    "linalg_eigvalsh": lambda lib, a: lib.linalg.eigvalsh(_spd(lib, a)),
    "linalg_cond": lambda lib, a: lib.linalg.cond(_spd(lib, a)),
    "pinverse": lambda lib, a: lib.pinverse(_spd(lib, a)),
    "lu_solve": lambda lib, a: lib.linalg.lu_solve(*lib.linalg.lu_factor(_spd(lib, a).float()),
                                                   _spd(lib, a).float()),
    # not on the list: bfloat16 stays
    "matrix_power": lambda lib, a: lib.linalg.matrix_power(_spd(lib, a), 2),
    "multi_dot": lambda lib, a: lib.linalg.multi_dot([_spd(lib, a), _spd(lib, a)]),
    "cumprod": lambda lib, a: a["lo"].cumprod(0),
    "renorm": lambda lib, a: a["lo"].renorm(2, 0, 1),
    "cov": lambda lib, a: lib.cov(a["lo"]),
    "constant_pad": lambda lib, a: lib.nn.functional.pad(a["lo"], (1, 1)),
    "multilabel_soft_margin_loss": lambda lib, a: lib.nn.functional.multilabel_soft_margin_loss(
        a["lo"], a["tg"]),
    "gaussian_nll_loss": lambda lib, a: lib.nn.functional.gaussian_nll_loss(
        a["lo"], a["tg"], a["tg"].abs() + 1),
    "log_softmax": lambda lib, a: lib.nn.functional.log_softmax(a["lo"], -1),
    "sum": lambda lib, a: a["lo"].sum(),
    "cumsum": lambda lib, a: a["lo"].cumsum(0),
    "exp": lambda lib, a: a["lo"].exp(),
    "max_pool2d": lambda lib, a: lib.nn.functional.max_pool2d(a["lo"][None], 2),
    "group_norm": lambda lib, a: lib.nn.functional.group_norm(a["lo"], 2),
    "gelu": lambda lib, a: lib.nn.functional.gelu(a["lo"]),
    "std": lambda lib, a: a["lo"].std(),
    "cat": lambda lib, a: lib.cat([a["lo"], a["tg"].float()]),
}


def _spd(lib, a):
    """A symmetric positive definite 4x4 matrix in the loss inputs' dtype."""
    return (lib.eye(4) * 3 + lib.ones(4, 4) * 0.1).to(a["lo"].dtype)


def _run(lib, fn, low="bfloat16", dtype=None):
    with lib.autocast("cpu", dtype=dtype and getattr(lib, dtype)):
        out = fn(lib, _inputs(lib, low))
    return out


def _check(fn, low="bfloat16", dtype=None, rtol=2e-2):
    expected = _run(torch, fn, low, dtype)
    got = _run(gradtrack, fn, low, dtype)
    assert str(got.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    np.testing.assert_allclose(got.detach().float().numpy(), expected.detach().float().numpy(),
                               rtol=rtol, atol=rtol)


@pytest.mark.parametrize("case", sorted(LOWER))
def test_lower_precision_list_matches_torch(case):
    _check(LOWER[case])


@pytest.mark.parametrize("case", sorted(FLOAT32))
def test_float32_list_matches_torch(case):
    _check(FLOAT32[case])


@pytest.mark.parametrize("case", ["matmul", "conv2d", "linear", "mixed_operands"])
def test_float16_region_matches_torch(case):
    _check(LOWER[case], dtype="float16", rtol=5e-3)


def test_float16_inputs_to_a_loss_run_in_float32():
    _check(FLOAT32["mse_loss"], low="float16", dtype="float16")


def _mlp_step(lib):
    a = _inputs(lib, "bfloat16")
    w2 = lib.ones(3, 6).mul_(0.1).requires_grad_()
    with lib.autocast("cpu"):
        h = lib.relu(lib.nn.functional.linear(a["x"], a["w"], a["b"]))
        logits = lib.nn.functional.linear(h, w2)
        loss = lib.nn.functional.cross_entropy(logits, a["cls"] % 3)
    loss.backward()
    return loss, logits, [a["w"], a["b"], w2]


def test_backward_through_a_region_gives_float32_gradients_as_torch():
    t_loss, t_logits, t_params = _mlp_step(torch)
    g_loss, g_logits, g_params = _mlp_step(gradtrack)
    assert (str(g_logits.dtype), str(g_loss.dtype)) == ("gradtrack.bfloat16", "gradtrack.float32")
    assert (str(t_logits.dtype), str(t_loss.dtype)) == ("torch.bfloat16", "torch.float32")
    assert g_loss.item() == pytest.approx(t_loss.item(), rel=1e-2)
    for g, t in zip(g_params, t_params):
        assert str(g.grad.dtype) == "gradtrack.float32"
        np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), rtol=3e-2, atol=3e-3)
    assert type(g_logits.grad_fn).__name__ == type(t_logits.grad_fn).__name__ == "MmBackward0"
    assert nexts(g_logits.grad_fn) == nexts(t_logits.grad_fn)


def _module_mlp_steps(lib, steps=3):
    """The autocast training step of the benchmarks: nn.Sequential(Linear, ReLU,
    Linear), float32 parameters, forward and CrossEntropyLoss in a bfloat16 region,
    backward and an SGD momentum step outside it; the same weights in both libraries."""
    g = np.random.default_rng(1)

    def t(*shape):
        return lib.tensor(g.standard_normal(shape).astype(np.float32))

    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(t(*p.shape) * 0.05)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    crit = nn.CrossEntropyLoss()
    x, y = t(64, 784), lib.tensor(g.integers(0, 10, 64))
    seen = []
    for _ in range(steps):
        opt.zero_grad()
        with lib.autocast("cpu", dtype=lib.bfloat16):
            logits = model(x)
            loss = crit(logits, y)
        loss.backward()
        opt.step()
        seen.append((str(logits.dtype).split(".")[1], str(loss.dtype).split(".")[1],
                     type(logits.grad_fn).__name__, loss.item()))
    grads = [(str(p.grad.dtype).split(".")[1], p.grad.numpy()) for p in model.parameters()]
    params = [(str(p.dtype).split(".")[1], p.detach().numpy()) for p in model.parameters()]
    return seen, grads, params


def test_module_mlp_training_under_autocast_matches_torch():
    g_seen, g_grads, g_params = _module_mlp_steps(gradtrack)
    t_seen, t_grads, t_params = _module_mlp_steps(torch)
    assert [s[:3] for s in g_seen] == [s[:3] for s in t_seen]
    assert t_seen[0][:3] == ("bfloat16", "float32", "AddmmBackward0")
    np.testing.assert_allclose([s[3] for s in g_seen], [s[3] for s in t_seen], rtol=1e-2)
    for (g_dtype, g), (t_dtype, t) in zip(g_grads, t_grads):
        assert g_dtype == t_dtype == "float32"
        np.testing.assert_allclose(g, t, rtol=5e-2, atol=2e-3)
    for (g_dtype, g), (t_dtype, t) in zip(g_params, t_params):
        assert g_dtype == t_dtype == "float32"
        np.testing.assert_allclose(g, t, rtol=1e-2, atol=1e-4)


def _cache_graph(lib, cache_enabled=None):
    w = lib.ones(3, 3).requires_grad_()
    x = lib.ones(2, 3)
    with lib.autocast("cpu", cache_enabled=cache_enabled):
        y1 = lib.mm(x, w)
        y2 = lib.mm(x, w)
        shared = y1.grad_fn.next_functions[1][0] is y2.grad_fn.next_functions[1][0]
    with lib.autocast("cpu", cache_enabled=cache_enabled):
        y3 = lib.mm(x, w)
        across = y1.grad_fn.next_functions[1][0] is y3.grad_fn.next_functions[1][0]
    plain = lib.ones(3, 3, requires_grad=True) * 1  # not a leaf: never cached
    with lib.autocast("cpu", cache_enabled=cache_enabled):
        p1, p2 = lib.mm(x, plain), lib.mm(x, plain)
        non_leaf = p1.grad_fn.next_functions[1][0] is p2.grad_fn.next_functions[1][0]
    return shared, across, non_leaf, type(y1.grad_fn.next_functions[1][0]).__name__


@pytest.mark.parametrize("cache_enabled", [None, False])
def test_weight_casts_are_cached_per_region_as_torch(cache_enabled):
    assert _cache_graph(gradtrack, cache_enabled) == _cache_graph(torch, cache_enabled)


def _nesting(lib):
    x = lib.ones(2, 2)
    seen = []
    with lib.autocast("cpu"):
        seen.append((lib.is_autocast_enabled("cpu"), str((x @ x).dtype).split(".")[1]))
        with lib.autocast("cpu", enabled=False):
            seen.append((lib.is_autocast_enabled("cpu"), str((x @ x).dtype).split(".")[1]))
        with lib.autocast("cpu", dtype=lib.float16):
            seen.append((str(lib.get_autocast_dtype("cpu")).split(".")[1],
                         str((x @ x).dtype).split(".")[1]))
        seen.append((lib.is_autocast_enabled("cpu"), str((x @ x).dtype).split(".")[1]))
    seen.append((lib.is_autocast_enabled("cpu"), str((x @ x).dtype).split(".")[1]))

    @lib.autocast("cpu")
    def decorated():
        return str((x @ x).dtype).split(".")[1]
    seen.append(decorated())
    try:
        with lib.autocast("cpu"):
            raise KeyError("inside")
    except KeyError:
        seen.append(lib.is_autocast_enabled("cpu"))
    return seen


def test_nested_regions_decorators_and_exceptions_as_torch():
    assert _nesting(gradtrack) == _nesting(torch)


def _other_thread(lib):
    seen = []
    x = lib.ones(2, 2)
    with lib.autocast("cpu"):
        th = threading.Thread(target=lambda: seen.append(
            (lib.is_autocast_enabled("cpu"), str((x @ x).dtype).split(".")[1])))
        th.start()
        th.join(30)
    return seen


def test_regions_are_per_thread_as_torch():
    assert _other_thread(gradtrack) == _other_thread(torch) == [(False, "float32")]


def _custom(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x @ w, lib.is_autocast_enabled("cpu")

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g, _):
            x, w = ctx.saved_tensors
            return g @ w.T, x.T @ g

    class Plain(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu")
        def forward(ctx, x):
            return x @ x, lib.is_autocast_enabled("cpu")

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g, _):
            return g * 0 + float(lib.is_autocast_enabled("cpu"))

    x = lib.ones(2, 2, dtype=lib.bfloat16).requires_grad_()
    w = lib.ones(2, 2).requires_grad_()
    with lib.autocast("cpu"):
        y, inside = Scale.apply(x, w)
        p, p_inside = Plain.apply(lib.ones(2, 2, requires_grad=True))
    y.sum().backward()
    return (str(y.dtype).split(".")[1], inside, str(x.grad.dtype).split(".")[1],
            x.grad.float().tolist(), w.grad.tolist(), str(p.dtype).split(".")[1], p_inside)


def test_custom_fwd_and_bwd_as_torch():
    assert _custom(gradtrack) == _custom(torch)
