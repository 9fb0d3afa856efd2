"""torch's top-level autocast state functions (``set_autocast_enabled`` & co.), the
native layer functions with their saved statistics (``native_layer_norm``,
``native_batch_norm``, ``native_group_norm``, ``native_dropout``), ``feature_dropout``,
the norms torch keeps for the JIT (``norm_except_dim``, ``frobenius_norm``,
``nuclear_norm``), ``as_strided_``/``as_strided_scatter``, ``empty_permuted`` and
``nonzero_static``: compared with torch 2.13 (values, shapes, dtypes, grad_fn names,
errors) and checked on known values without it."""

import warnings

import pytest
from helpers import same

import gradtrack


@pytest.fixture(autouse=True)
def _restore_autocast_state():
    """Every test leaves both libraries' global autocast state as it found it."""
    libs = [gradtrack]
    try:
        import torch
        libs.append(torch)
    except ImportError:
        pass
    saved = [(lib, lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu"),
              lib.is_autocast_enabled("cuda"), lib.get_autocast_dtype("cuda"),
              lib.is_autocast_cache_enabled()) for lib in libs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
    for lib, cpu_on, cpu_dtype, cuda_on, cuda_dtype, cache in saved:
        lib.set_autocast_enabled("cpu", cpu_on)
        lib.set_autocast_dtype("cpu", cpu_dtype)
        lib.set_autocast_enabled("cuda", cuda_on)
        lib.set_autocast_dtype("cuda", cuda_dtype)
        lib.set_autocast_cache_enabled(cache)


def _x(lib):
    return lib.arange(24.0).reshape(2, 3, 4).sin().requires_grad_()


def _weighted_sum(outs, lib):
    outs = outs if isinstance(outs, tuple) else (outs,)
    return sum((o * lib.arange(float(o.numel())).reshape(o.shape).cos()).sum()
               for o in outs if o.requires_grad)


# ---- autocast state -------------------------------------------------------------------------

AUTOCAST_SCENARIOS = {
    "enable_cpu": lambda lib: (lib.set_autocast_enabled("cpu", True),
                               lib.is_autocast_enabled("cpu"),
                               str((lib.ones(2, 2) @ lib.ones(2, 2)).dtype)),
    "cuda_by_bool": lambda lib: (lib.set_autocast_enabled(True), lib.is_autocast_enabled(),
                                 lib.is_autocast_enabled("cpu")),
    "cuda_by_keyword": lambda lib: (lib.set_autocast_enabled(enabled=True),
                                    lib.is_autocast_enabled("cuda")),
    "xla_flag": lambda lib: (lib.set_autocast_enabled("xla", True), lib.is_autocast_enabled("xla")),
    "unknown_device": lambda lib: lib.set_autocast_enabled("foo", True),
    "device_without_flag": lambda lib: lib.set_autocast_enabled("meta", True),
    "enabled_not_bool": lambda lib: lib.set_autocast_enabled("cpu", 1),
    "one_int": lambda lib: lib.set_autocast_enabled(1),
    "one_str": lambda lib: lib.set_autocast_enabled("cpu"),
    "no_arguments": lambda lib: lib.set_autocast_enabled(),
    "bool_device_with_keyword": lambda lib: lib.set_autocast_enabled(True, enabled=True),
    "set_dtype": lambda lib: (lib.set_autocast_dtype("cpu", lib.float16),
                              str(lib.get_autocast_dtype("cpu"))),
    "set_any_dtype": lambda lib: (lib.set_autocast_dtype("cpu", lib.int64),
                                  str(lib.get_autocast_dtype("cpu"))),
    "set_dtype_meta": lambda lib: (lib.set_autocast_dtype("meta", lib.float16),),
    "set_dtype_bad_device": lambda lib: lib.set_autocast_dtype(1, lib.float16),
    "set_dtype_none": lambda lib: lib.set_autocast_dtype("cpu", None),
    "set_dtype_unknown": lambda lib: lib.set_autocast_dtype("foo", lib.float16),
    "gpu_dtype": lambda lib: (str(lib.get_autocast_gpu_dtype()),
                              lib.set_autocast_dtype("cuda", lib.bfloat16),
                              str(lib.get_autocast_gpu_dtype())),
    "gpu_dtype_argument": lambda lib: lib.get_autocast_gpu_dtype(1),
    "cpu_enabled": lambda lib: (lib.set_autocast_cpu_enabled(True),
                                lib.is_autocast_enabled("cpu")),
    "cpu_enabled_int": lambda lib: lib.set_autocast_cpu_enabled(1),
    "cpu_enabled_none": lambda lib: lib.set_autocast_cpu_enabled(),
    "cpu_enabled_keyword": lambda lib: lib.set_autocast_cpu_enabled(enabled=True),
    "cpu_dtype": lambda lib: (lib.set_autocast_cpu_dtype(lib.float16),
                              str(lib.get_autocast_dtype("cpu"))),
    "cpu_dtype_none": lambda lib: lib.set_autocast_cpu_dtype(None),
    "cache": lambda lib: (lib.set_autocast_cache_enabled(False), lib.is_autocast_cache_enabled()),
    "cache_int": lambda lib: lib.set_autocast_cache_enabled(1),
    "cache_two": lambda lib: lib.set_autocast_cache_enabled(True, True),
    "clear_cache": lambda lib: lib.clear_autocast_cache(),
    "clear_cache_argument": lambda lib: lib.clear_autocast_cache(1),
    "nesting": lambda lib: (lib.autocast_increment_nesting(), lib.autocast_increment_nesting(),
                            lib.autocast_decrement_nesting(), lib.autocast_decrement_nesting(),
                            lib.autocast_decrement_nesting(), lib.autocast_increment_nesting()),
    "nesting_argument": lambda lib: lib.autocast_decrement_nesting(1),
}


@pytest.mark.parametrize("name", AUTOCAST_SCENARIOS)
def test_autocast_state_matches_torch(name):
    same(AUTOCAST_SCENARIOS[name])


def test_deprecated_autocast_setters_warn():
    def scenario(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.set_autocast_cpu_enabled(False)
            lib.set_autocast_cpu_dtype(lib.bfloat16)
            lib.get_autocast_gpu_dtype()
        return [(c.category.__name__, str(c.message)) for c in caught]
    same(scenario)


def test_set_autocast_enabled_turns_cpu_casting_on_and_off():
    gradtrack.set_autocast_enabled("cpu", True)
    assert (gradtrack.ones(2, 2) @ gradtrack.ones(2, 2)).dtype == gradtrack.bfloat16
    gradtrack.set_autocast_enabled("cpu", False)
    assert (gradtrack.ones(2, 2) @ gradtrack.ones(2, 2)).dtype == gradtrack.float32


def test_nesting_counts_the_autocast_regions():
    with gradtrack.autocast("cpu"):
        assert gradtrack.autocast_increment_nesting() == 2
        assert gradtrack.autocast_decrement_nesting() == 1
    assert gradtrack.autocast_increment_nesting() == 1
    assert gradtrack.autocast_decrement_nesting() == 0


# ---- native layer functions -----------------------------------------------------------------

NATIVE_SCENARIOS = {
    "layer_norm": lambda lib: lib.native_layer_norm(
        _x(lib), [4], lib.arange(4.0).cos().requires_grad_(), lib.arange(4.0), 1e-5),
    "layer_norm_two_dims": lambda lib: lib.native_layer_norm(_x(lib), [3, 4], None, None, 1e-5),
    "layer_norm_no_grad": lambda lib: lib.native_layer_norm(_x(lib).detach(), [4], None, None,
                                                            1e-5),
    "layer_norm_grads": lambda lib: lib.autograd.grad(_weighted_sum(lib.native_layer_norm(
        x := _x(lib), [4], w := lib.arange(4.0).cos().requires_grad_(), None, 1e-5), lib),
        (x, w)),
    "layer_norm_bad_shape": lambda lib: lib.native_layer_norm(_x(lib), [5], None, None, 1e-5),
    "layer_norm_bad_weight": lambda lib: lib.native_layer_norm(_x(lib), [4], lib.ones(3), None,
                                                               1e-5),
    "batch_norm_train": lambda lib: (lib.native_batch_norm(
        _x(lib), None, None, rm := lib.zeros(3), rv := lib.ones(3), True, 0.1, 1e-5), rm, rv),
    "batch_norm_eval": lambda lib: lib.native_batch_norm(
        _x(lib), lib.ones(3), lib.zeros(3), lib.zeros(3), lib.ones(3), False, 0.1, 1e-5),
    "batch_norm_grads": lambda lib: lib.autograd.grad(_weighted_sum(lib.native_batch_norm(
        x := _x(lib), w := lib.tensor([1.0, 2.0, 0.5], requires_grad=True), None, None, None,
        True, 0.1, 1e-5), lib), (x, w)),
    "batch_norm_1d": lambda lib: lib.native_batch_norm(lib.ones(4), None, None, None, None,
                                                       True, 0.1, 1e-5),
    "group_norm": lambda lib: lib.native_group_norm(_x(lib), None, None, 2, 3, 4, 3, 1e-5),
    "group_norm_one_group": lambda lib: lib.native_group_norm(_x(lib), lib.ones(3), lib.zeros(3),
                                                              2, 3, 4, 1, 1e-5),
    "group_norm_no_grad": lambda lib: lib.native_group_norm(_x(lib).detach(), None, None, 2, 3,
                                                            4, 1, 1e-5),
    "group_norm_grads_through_stats": lambda lib: lib.autograd.grad(_weighted_sum(
        lib.native_group_norm(x := _x(lib), w := lib.tensor([1.0, 2.0, 0.5], requires_grad=True),
                              None, 2, 3, 4, 3, 1e-5), lib), (x, w)),
    "group_norm_groups": lambda lib: lib.native_group_norm(_x(lib), None, None, 2, 3, 4, 2, 1e-5),
    "group_norm_numel": lambda lib: lib.native_group_norm(_x(lib), None, None, 2, 3, 5, 3, 1e-5),
    "dropout_eval": lambda lib: lib.native_dropout(_x(lib), 0.5, False),
    "dropout_p0": lambda lib: lib.native_dropout(_x(lib), 0.0, True),
    "dropout_p1": lambda lib: lib.native_dropout(_x(lib), 1.0, True),
    "dropout_seeded": lambda lib: (lib.manual_seed(0), lib.native_dropout(_x(lib), 0.3, True),
                                   lib.native_dropout(_x(lib), 0.5, None))[1:],
    "dropout_grads": lambda lib: (lib.manual_seed(1), lib.autograd.grad(_weighted_sum(
        lib.native_dropout(x := _x(lib), 0.25, True), lib), x))[1],
    "dropout_bad_p": lambda lib: lib.native_dropout(_x(lib), 1.5, True),
    "feature_dropout": lambda lib: (lib.manual_seed(0), lib.feature_dropout(_x(lib), 0.5, True))[1],
    "feature_dropout_eval_is_input": lambda lib: (x := _x(lib), lib.feature_dropout(x, 0.5, False)
                                                  is x)[1],
    "feature_dropout_bad_p": lambda lib: lib.feature_dropout(_x(lib), 1.5, True),
    "feature_dropout_1d": lambda lib: lib.feature_dropout(lib.ones(3), 0.5, True),
    "feature_dropout_inplace": lambda lib: (lib.manual_seed(0), x := lib.ones(2, 3, 2),
                                            lib.feature_dropout_(x, 0.5, True), x)[2:],
    "feature_dropout_inplace_leaf": lambda lib: lib.feature_dropout_(_x(lib), 0.5, True),
}


@pytest.mark.parametrize("name", NATIVE_SCENARIOS)
def test_native_layer_functions_match_torch(name):
    same(NATIVE_SCENARIOS[name])


def test_native_layer_norm_statistics_without_torch():
    out, mean, rstd = gradtrack.native_layer_norm(gradtrack.tensor([[1.0, 3.0], [2.0, 2.0]]),
                                                  [2], None, None, 0.0 + 1e-12)
    assert mean.tolist() == [[2.0], [2.0]]
    assert rstd[0].item() == pytest.approx(1.0)
    assert out.grad_fn is None and not mean.requires_grad
    assert out[0].tolist() == pytest.approx([-1.0, 1.0])


def test_native_group_norm_outputs_share_one_node():
    x = gradtrack.arange(8.0).reshape(1, 2, 4).requires_grad_()
    out, mean, rstd = gradtrack.native_group_norm(x, None, None, 1, 2, 4, 2, 1e-5)
    assert out.grad_fn is mean.grad_fn is rstd.grad_fn
    assert out.grad_fn.name() == "NativeGroupNormBackward0"
    assert mean.tolist() == [[1.5, 5.5]]
    (g,) = gradtrack.autograd.grad(mean.sum(), x)
    assert g.tolist() == [[[0.25] * 4, [0.25] * 4]]


def test_native_dropout_mask_and_gradient_without_torch():
    x = gradtrack.ones(1000, requires_grad=True)
    out, mask = gradtrack.native_dropout(x, 0.5, True)
    assert mask.dtype == gradtrack.bool and not mask.requires_grad
    assert set(out.tolist()) <= {0.0, 2.0}
    assert (out != 0).tolist() == mask.tolist()
    (g,) = gradtrack.autograd.grad(out.sum(), x)
    assert g.tolist() == out.tolist()


# ---- norms ----------------------------------------------------------------------------------

NORM_SCENARIOS = {
    "except_dim_0": lambda lib: lib.norm_except_dim(_x(lib)),
    "except_dim_middle": lambda lib: lib.norm_except_dim(_x(lib), 2, 1),
    "except_dim_last": lambda lib: lib.norm_except_dim(_x(lib), 2, 2),
    "except_dim_all": lambda lib: lib.norm_except_dim(_x(lib), 3, -1),
    "except_dim_negative": lambda lib: lib.norm_except_dim(_x(lib), 2, -3),
    "except_dim_pow1": lambda lib: lib.norm_except_dim(_x(lib), 1, 0),
    "except_dim_out_of_range": lambda lib: lib.norm_except_dim(_x(lib), 2, 3),
    "except_dim_float_pow": lambda lib: lib.norm_except_dim(_x(lib), 2.5, 0),
    "except_dim_scalar": lambda lib: lib.norm_except_dim(lib.tensor(3.0), 2, 0),
    "except_dim_grads": lambda lib: lib.autograd.grad(_weighted_sum(
        lib.norm_except_dim(x := _x(lib), 2, 1), lib), x),
    "frobenius": lambda lib: lib.frobenius_norm(_x(lib), [1, 2]),
    "frobenius_int_dim": lambda lib: lib.frobenius_norm(_x(lib), 1),
    "frobenius_keepdim": lambda lib: lib.frobenius_norm(_x(lib), (1, 2), True),
    "frobenius_no_dims": lambda lib: lib.frobenius_norm(_x(lib), []),
    "frobenius_three_dims": lambda lib: lib.frobenius_norm(_x(lib), (0, 1, 2)),
    "frobenius_repeated_dim": lambda lib: lib.frobenius_norm(_x(lib), [1, 1]),
    "frobenius_long": lambda lib: lib.frobenius_norm(lib.ones(2, 2, dtype=lib.int64), [1]),
    "nuclear": lambda lib: lib.nuclear_norm(_x(lib)[0]),
    "nuclear_dims": lambda lib: lib.nuclear_norm(_x(lib), (0, 2)),
    "nuclear_keepdim_bool": lambda lib: lib.nuclear_norm(_x(lib)[0], True),
    "nuclear_batched": lambda lib: lib.nuclear_norm(_x(lib)),
    "nuclear_one_dim": lambda lib: lib.nuclear_norm(_x(lib), [0]),
}


@pytest.mark.parametrize("name", NORM_SCENARIOS)
def test_norms_match_torch(name):
    same(NORM_SCENARIOS[name])


def test_norms_without_torch():
    v = gradtrack.tensor([[3.0, 4.0], [6.0, 8.0]])
    assert gradtrack.norm_except_dim(v).tolist() == [[5.0], [10.0]]
    assert gradtrack.norm_except_dim(v, 2, 1)[0].tolist() == pytest.approx([45 ** 0.5, 80 ** 0.5])
    assert gradtrack.frobenius_norm(v, [0, 1]).item() == pytest.approx(125 ** 0.5)
    assert gradtrack.nuclear_norm(gradtrack.tensor([[3.0, 0.0], [0.0, -4.0]])).item() == \
        pytest.approx(7.0)
    x = v.clone().requires_grad_()
    assert gradtrack.frobenius_norm(x, [1]).grad_fn.name() == "NormBackward1"
    assert gradtrack.norm_except_dim(x, 2, -1).grad_fn.name() == "NormBackward0"


# ---- as_strided_, as_strided_scatter, empty_permuted, nonzero_static ------------------------

def _src(lib):
    return lib.tensor([[10.0, 20.0], [30.0, 40.0]], requires_grad=True)


LAST_SCENARIOS = {
    "as_strided_": lambda lib: lib.as_strided_(lib.arange(6.0), (2, 2), (1, 2), 1),
    "as_strided_keywords": lambda lib: lib.as_strided_(lib.arange(6.0), size=(2, 2),
                                                       stride=(1, 2)).stride(),
    "as_strided_leaf": lambda lib: lib.as_strided_(_x(lib), (2, 2), (1, 2)),
    "scatter": lambda lib: lib.as_strided_scatter(lib.arange(6.0).requires_grad_(), _src(lib),
                                                  (2, 2), (1, 2)),
    "scatter_offset": lambda lib: lib.as_strided_scatter(lib.arange(6.0), _src(lib), (2, 2),
                                                         (2, 1), 1),
    "scatter_transposed_input": lambda lib: (
        r := lib.as_strided_scatter(lib.arange(6.0).reshape(2, 3).t(), _src(lib), (2, 2),
                                    (1, 2)), r.stride()),
    "scatter_sliced_input": lambda lib: lib.as_strided_scatter(lib.arange(6.0)[1:], _src(lib),
                                                               (2, 2), (1, 2)),
    # the write addresses the input's whole storage, with the input's strides and offset
    # kept: into a step slice it can land outside the view; an expanded input is copied
    # contiguous first
    "scatter_step_slice_input": lambda lib: (
        r := lib.as_strided_scatter(lib.arange(20.0)[2:14].reshape(2, 6)[..., ::2],
                                    lib.ones(2, 2) * -1, (2, 2), (1, 2), 1),
        r.stride(), r.storage_offset()),
    "scatter_offset_transposed_input": lambda lib: (
        r := lib.as_strided_scatter(lib.arange(20.0)[1:7].reshape(2, 3).t(), lib.ones(2) * -1,
                                    (2,), (1,), 3), r.stride(), r.storage_offset()),
    "scatter_expanded_input": lambda lib: (
        r := lib.as_strided_scatter(lib.arange(3.0).expand(2, 3), lib.ones(2, 2), (2, 2),
                                    (1, 2), 1), r.stride()),
    "scatter_casts_src": lambda lib: lib.as_strided_scatter(lib.arange(6), _src(lib).detach(),
                                                            (2, 2), (1, 2)),
    "scatter_method": lambda lib: lib.zeros(4).as_strided_scatter(lib.ones(2), (2,), (2,)),
    "scatter_src_shape": lambda lib: lib.as_strided_scatter(lib.arange(6.0), lib.ones(4), (2, 2),
                                                            (1, 2)),
    "scatter_out_of_bounds": lambda lib: lib.as_strided_scatter(lib.arange(6.0), _src(lib),
                                                                (2, 2), (1, 2), 5),
    "scatter_stride_length": lambda lib: lib.as_strided_scatter(lib.arange(6.0), _src(lib),
                                                                (2, 2), (1,)),
    "scatter_overlap": lambda lib: lib.as_strided_scatter(lib.arange(6.0), _src(lib), (2, 2),
                                                          (0, 2)),
    "scatter_src_grad": lambda lib: lib.autograd.grad(_weighted_sum(lib.as_strided_scatter(
        lib.arange(6.0), s := _src(lib), (2, 2), (1, 2), 1), lib), s),
    "empty_permuted": lambda lib: [lib.empty_permuted((2, 3, 4), order).stride()
                                   for order in ((0, 1, 2), (0, 2, 1), (2, 0, 1))],
    "empty_permuted_empty_dim": lambda lib: lib.empty_permuted((2, 0, 4), (2, 0, 1)).stride(),
    "empty_permuted_options": lambda lib: (
        t := lib.empty_permuted([2, 3], [1, 0], dtype=lib.float64, requires_grad=True,
                                layout=lib.strided, device="cpu", pin_memory=False),
        str(t.dtype), t.requires_grad, t.stride(), t._base is None)[1:],
    "empty_permuted_length": lambda lib: lib.empty_permuted((2, 3, 4), (0, 1)),
    "empty_permuted_duplicate": lambda lib: lib.empty_permuted((2, 3, 4), (0, 1, 1)),
    "empty_permuted_range": lambda lib: lib.empty_permuted((2, 3, 4), (0, 1, 3)),
    "empty_permuted_negative_dim": lambda lib: lib.empty_permuted((2, 3, 4), (0, 1, -1)),
    "empty_permuted_negative_size": lambda lib: lib.empty_permuted((2, -1), (0, 1)),
    "nonzero_static_pad": lambda lib: lib.nonzero_static(lib.tensor([0, 1, 0, 2]), size=3),
    "nonzero_static_cut": lambda lib: lib.nonzero_static(lib.tensor([0, 1, 0, 2]), size=1),
    "nonzero_static_fill": lambda lib: lib.nonzero_static(lib.tensor([[0, 1], [3, 0]]), size=4,
                                                          fill_value=7),
    "nonzero_static_zero": lambda lib: lib.nonzero_static(lib.tensor([0, 1]), size=0),
    "nonzero_static_scalar": lambda lib: lib.nonzero_static(lib.tensor(3.0), size=2),
    "nonzero_static_grad_input": lambda lib: lib.nonzero_static(
        lib.tensor([0.0, 1.0], requires_grad=True), size=2),
    "nonzero_static_method": lambda lib: lib.tensor([True, False]).nonzero_static(
        size=3, fill_value=-5),
    "nonzero_static_negative": lambda lib: lib.nonzero_static(lib.tensor([1]), size=-1),
    "nonzero_static_float_size": lambda lib: lib.nonzero_static(lib.tensor([1]), size=2.5),
}


@pytest.mark.parametrize("name", LAST_SCENARIOS)
def test_strided_scatter_permuted_and_static_nonzero_match_torch(name):
    same(LAST_SCENARIOS[name])


def test_as_strided_scatter_input_gradient_skips_the_written_region():
    # torch 2.13's AsStridedScatterBackward0 keeps the gradient of the overwritten elements
    # and drops the others (its own gradcheck fails); gradtrack gives the true gradient.
    x = gradtrack.arange(6.0).requires_grad_()
    out = gradtrack.as_strided_scatter(x, gradtrack.ones(4), (4,), (1,))
    assert out.grad_fn.name() == "AsStridedScatterBackward0"
    (g,) = gradtrack.autograd.grad(out.sum(), x)
    assert g.tolist() == [0.0, 0.0, 0.0, 0.0, 1.0, 1.0]
    assert out.tolist() == [1.0, 1.0, 1.0, 1.0, 4.0, 5.0]


def test_empty_permuted_and_nonzero_static_without_torch():
    t = gradtrack.empty_permuted((2, 3, 4), (2, 0, 1))
    assert t.shape == (2, 3, 4) and t.stride() == (3, 1, 6)
    assert gradtrack.nonzero_static(gradtrack.tensor([0, 5, 0, 7]), size=3).tolist() == \
        [[1], [3], [-1]]


@pytest.mark.parametrize("device_type", ["cpu", "cuda", "xpu", "ipu", "hpu", "xla", "mps", "mtia",
                                         "maia", "privateuseone", "meta", "lazy"])
def test_autocast_queries_by_device_type(device_type):
    """torch's default dtype per device, and its error for a device autocast does not know
    (the query raised nothing for "meta"; ipu, mtia and maia had other defaults)."""
    same(lambda lib: (lib.is_autocast_enabled(device_type),
                      str(lib.get_autocast_dtype(device_type)).split(".")[-1]))
