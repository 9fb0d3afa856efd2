"""Views: version-counter sharing, ``_base``, ``_is_view()``,
storage sharing, strides/contiguity/storage offsets, reshape view-vs-copy, and
writes through a view reaching the base, each compared with torch.

Every view op is one builder ``fn(lib, x)`` run on the same base with both
libraries. Hard-coded anchors from §4 run even without torch.
"""

import numpy as np
import pytest

import gradtrack

GT = gradtrack
BASE = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)


def base(lib):
    """A root tensor (no _base) with distinct values."""
    return lib.tensor(BASE.copy())


def first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


# fn(lib, x) -> a view of x (sharing storage and the version counter)
VIEWS = {
    "view": lambda lib, x: x.view(6, 4),
    "view_infer": lambda lib, x: x.view(-1),
    "view_as": lambda lib, x: x.view_as(lib.zeros(4, 6)),
    "reshape_contiguous": lambda lib, x: x.reshape(3, 8),
    "reshape_as": lambda lib, x: x.reshape_as(lib.zeros(24)),
    "flatten": lambda lib, x: x.flatten(),
    "flatten_partial": lambda lib, x: x.flatten(1),
    "t_of_2d": lambda lib, x: x[0].t(),
    "T": lambda lib, x: x[0].T,
    "mT": lambda lib, x: x.mT,
    "transpose": lambda lib, x: x.transpose(0, 2),
    "swapaxes": lambda lib, x: lib.swapaxes(x, 1, 2),
    "permute": lambda lib, x: x.permute(2, 0, 1),
    "unsqueeze": lambda lib, x: x.unsqueeze(1),
    "squeeze": lambda lib, x: x[:, :1].squeeze(1),
    "squeeze_all": lambda lib, x: x[:1, :1].squeeze(),
    "expand": lambda lib, x: x[:, :1].expand(2, 5, 4),
    "expand_as": lambda lib, x: x[0, 0].expand_as(lib.zeros(3, 4)),
    "select": lambda lib, x: x.select(1, 2),
    "select_neg": lambda lib, x: x.select(-1, -1),
    "narrow": lambda lib, x: x.narrow(2, 1, 2),
    "as_strided": lambda lib, x: x.as_strided((3, 3), (4, 1), 2),
    "split": lambda lib, x: x.split(2, dim=2)[1],
    "split_sizes": lambda lib, x: x.split([1, 3], 2)[1],
    "chunk": lambda lib, x: x.chunk(3, 1)[2],
    "unbind": lambda lib, x: x.unbind(1)[1],
    "getitem_int": lambda lib, x: x[1],
    "getitem_ints": lambda lib, x: x[1, 2],
    "getitem_slice": lambda lib, x: x[:, 1:],
    "getitem_step": lambda lib, x: x[:, ::2, 1::2],
    "getitem_neg_slice": lambda lib, x: x[..., -2:],
    "getitem_none": lambda lib, x: x[None, :, 0],
    "getitem_ellipsis": lambda lib, x: x[..., 1],
    "detach_then_slice": lambda lib, x: x.detach()[0, 1:],
    # views of views: _base is always the root
    "select_of_select": lambda lib, x: x[0][1],
    "slice_of_t": lambda lib, x: x[0].t()[1:],
    "view_of_transpose_slice": lambda lib, x: x.transpose(1, 2)[1].unsqueeze(0),
    "expand_of_slice": lambda lib, x: x[:, 0:1, 0].expand(2, 3),
    "reshape_of_view": lambda lib, x: x.view(6, 4)[1:3].reshape(8),
}

# fn(lib, x) -> a copy of x's data (own storage, own counter)
COPIES = {
    "clone": lambda lib, x: x.clone(),
    "clone_of_view": lambda lib, x: x[0].t().clone(),
    "contiguous_of_transpose": lambda lib, x: x.transpose(0, 1).contiguous(),
    "reshape_copies": lambda lib, x: x.transpose(0, 1).reshape(24),
    "flatten_copies": lambda lib, x: x.permute(2, 1, 0).flatten(),
    "reshape_of_step": lambda lib, x: x[:, ::2].reshape(-1),
    "advanced_index": lambda lib, x: x[[0, 1, 0]],
    # a Python bool index is advanced indexing in torch (IndexBackward0): a copy
    "getitem_true": lambda lib, x: x[1, True],
    "mask_index": lambda lib, x: x[x > 10],
    "tensor_index": lambda lib, x: x[:, lib.tensor([2, 0])],
    "to_double": lambda lib, x: x.to(lib.float64),
    "float_to_int": lambda lib, x: x.long(),
    "index_select": lambda lib, x: x.index_select(1, lib.tensor([1])),
    "cat": lambda lib, x: lib.cat([x, x]),
    "stack": lambda lib, x: lib.stack([x[0]]),
    "arith": lambda lib, x: x + 0,
}


def _meta(lib, fn):
    x = base(lib)
    v = first(fn(lib, x))
    itemsize = v.element_size()
    info = dict(
        is_view=v._is_view(),
        base_is_root=v._base is x,
        base_none=v._base is None,
        same_object=v is x,
        offset_bytes=v.data_ptr() - x.data_ptr(),
        shape=tuple(v.shape),
        stride=tuple(v.stride()),
        storage_offset=v.storage_offset(),
        contiguous=v.is_contiguous(),
        values=v.tolist(),
        itemsize=itemsize,
    )
    return x, v, info


def _write(lib, v):
    # fill_ is allowed on expanded (overlapping) views; add_ would be refused.
    return v.fill_(-1.0)


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_metadata_matches_torch(torch, name):
    fn = VIEWS[name]
    _, _, g = _meta(GT, fn)
    _, _, t = _meta(torch, fn)
    assert g == t


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_is_view_of_root(name):
    x, v, info = _meta(GT, VIEWS[name])
    if name == "detach_then_slice":
        assert info["is_view"] and v._base is not x
        return
    assert info["is_view"], "a view op must give _is_view() True"
    assert info["base_is_root"], "views (of views) point at the root base"
    assert v._base._base is None


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_write_through_view_shares_counter_and_memory(torch, name):
    def run(lib):
        x, v, _ = _meta(lib, VIEWS[name])
        _write(lib, v)
        return x._version, v._version, x.tolist(), v.tolist()
    got = run(GT)
    assert got == run(torch)
    assert got[0] == got[1] == 1


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_write_to_base_visible_in_view(torch, name):
    def run(lib):
        x, v, _ = _meta(lib, VIEWS[name])
        x.mul_(2)
        return x._version, v._version, v.tolist()
    got = run(GT)
    assert got == run(torch)
    assert got[0] == got[1] == 1


@pytest.mark.parametrize("name", sorted(COPIES))
def test_copy_metadata_matches_torch(torch, name):
    fn = COPIES[name]
    _, _, g = _meta(GT, fn)
    _, _, t = _meta(torch, fn)
    g.pop("offset_bytes")
    t.pop("offset_bytes")
    assert g == t


@pytest.mark.parametrize("name", sorted(COPIES))
def test_copy_has_own_storage_and_counter(name):
    x, c, info = _meta(GT, COPIES[name])
    assert not info["is_view"] and info["base_none"]
    assert c.data_ptr() != x.data_ptr()
    before = x.tolist()
    c.fill_(0)
    assert c._version == 1 and x._version == 0
    assert x.tolist() == before
    x.add_(1)
    assert c._version == 1 and x._version == 1


# ---- the §4 rows, pinned -----------------------------------------------------------------------

def test_detach_shares_version_counter():
    x = GT.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d = x.detach()
    d.add_(1)
    assert x._version == 1 and d._version == 1
    assert x.tolist() == [2.0, 3.0, 4.0]
    assert not d._is_view() and d._base is None
    assert d.data_ptr() == x.data_ptr()


def test_data_has_fresh_counter_and_is_new_object():
    x = GT.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with GT.no_grad():
        x.add_(1)
    assert x._version == 1
    data = x.data
    assert data is not x.data
    assert data._version == 0
    assert data.data_ptr() == x.data_ptr()
    assert not data.requires_grad and data.is_leaf and data.grad_fn is None
    data.add_(1)
    assert data._version == 1 and x._version == 1
    assert x.tolist() == [3.0, 4.0, 5.0]


def test_detach_of_view_shares_base_counter():
    x = GT.zeros(2, 3)
    d = x[0].detach()
    d.add_(1)
    assert x._version == 1 and d._version == 1
    assert x.tolist() == [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]


def test_one_counter_for_base_and_all_views():
    x = GT.zeros(4)
    a, b = x[:2], x[2:]
    a.mul_(2)
    assert (x._version, a._version, b._version) == (1, 1, 1)
    b.add_(1)
    assert (x._version, a._version, b._version) == (2, 2, 2)


def test_view_counter_survives_base_going_out_of_scope():
    v = GT.arange(6.0).view(2, 3)[1]
    v.add_(1)
    assert v._version == 1 and v._base._version == 1


def test_data_assignment_keeps_own_counter():
    x = GT.zeros(3)
    y = GT.ones(3)
    x.data = y
    assert x.data_ptr() == y.data_ptr()
    y.add_(1)
    assert y._version == 1 and x._version == 0
    assert x.tolist() == [2.0, 2.0, 2.0]


def test_from_numpy_of_numpy_has_separate_counter():
    n = GT.zeros(3)
    m = GT.from_numpy(n.numpy())
    m.add_(1)
    assert m._version == 1 and n._version == 0
    assert n.tolist() == [1.0, 1.0, 1.0]


def test_numpy_write_does_not_bump():
    n = GT.zeros(3)
    a = n.numpy()
    a += 1
    assert n._version == 0 and n.tolist() == [1.0, 1.0, 1.0]


def test_no_grad_inplace_still_bumps():
    x = GT.zeros(3, requires_grad=True)
    with GT.no_grad():
        x[0] = 1.0
        x.add_(1)
    assert x._version == 2


@pytest.mark.parametrize("op", [
    lambda t: t.add_(0), lambda t: t.mul_(1), lambda t: t.zero_(),
    lambda t: t.fill_(2), lambda t: t.copy_(t.clone()), lambda t: t.clamp_(0, 1),
    lambda t: t.unsqueeze_(0), lambda t: t.t_(), lambda t: t.squeeze_(),
], ids=["add_0", "mul_1", "zero_", "fill_", "copy_", "clamp_", "unsqueeze_", "t_", "squeeze_"])
def test_every_inplace_op_bumps_once(op):
    t = GT.ones(3)
    assert op(t) is t
    assert t._version == 1


def test_empty_tensor_inplace_bumps():
    t = GT.ones(0)
    t.add_(1)
    assert t._version == 1


def test_version_unchanged_by_requires_grad_detach_and_grad():
    x = GT.ones(2)
    x.requires_grad_()
    x.grad = GT.zeros(2)
    x.detach_()
    assert x._version == 0


def test_contiguous_of_contiguous_is_same_object():
    x = GT.ones(2, 3)
    assert x.contiguous() is x
    assert x.t().contiguous() is not x


@pytest.mark.parametrize("lib_name", ["gradtrack", "torch"])
def test_reshape_view_or_copy(lib_name):
    lib = GT if lib_name == "gradtrack" else pytest.importorskip("torch")
    x = lib.arange(6.0).view(2, 3).clone()
    r = x.reshape(3, 2)
    assert r._base is x and r.data_ptr() == x.data_ptr()
    c = x.t().reshape(6)
    assert c._base is None and c.data_ptr() != x.data_ptr()
    assert c.tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    s = x[:, ::2].reshape(4)                     # not viewable: a copy
    assert s._base is None and s.tolist() == [0.0, 2.0, 3.0, 5.0]
    u = x[:, 1:].reshape(4)                      # not viewable either
    assert u._base is None and u.tolist() == [1.0, 2.0, 4.0, 5.0]
    w = x.t().reshape(2, 3)
    assert w._base is None and w.tolist() == [[0.0, 3.0, 1.0], [4.0, 2.0, 5.0]]
    n = x.t().reshape(3, 2)                      # same shape: the view itself
    assert n._base is x


def test_strides_of_common_views():
    x = GT.zeros(2, 3, 4)
    assert x.stride() == (12, 4, 1) and x.is_contiguous()
    assert x.transpose(0, 2).stride() == (1, 4, 12)
    assert not x.transpose(0, 2).is_contiguous()
    assert x.permute(1, 2, 0).stride() == (4, 1, 12)
    assert x[:, 1].stride() == (12, 1) and x[:, 1].storage_offset() == 4
    assert x[:, :, ::2].stride() == (12, 4, 2)
    assert x[0, :1].expand(5, 4).stride() == (0, 1)
    assert x.unsqueeze(1).stride() == (12, 12, 4, 1)
    assert x[..., None].stride() == (12, 4, 1, 1)
    assert GT.zeros(3).expand(2, 3).is_contiguous() is False
    assert GT.zeros(1, 3).is_contiguous() and GT.zeros(0, 3).is_contiguous()


CONTIGUITY = {
    "size1_moved": lambda lib: lib.zeros(3, 1, 4).transpose(0, 1),
    "size1_last_slice": lambda lib: lib.zeros(3, 1, 4)[:, :, :1],
    "inner_slice": lambda lib: lib.zeros(3, 1, 4)[:, :, 1:3],
    "outer_slice": lambda lib: lib.zeros(3, 4)[1:],
    "empty_transposed": lambda lib: lib.zeros(0, 3).t(),
    "size1_expand": lambda lib: lib.zeros(1, 3).expand(1, 3),
    "expand_new_dim_1": lambda lib: lib.zeros(3).expand(1, 3),
    "0d": lambda lib: lib.zeros(()),
    "select_col": lambda lib: lib.zeros(3, 4)[:, 0],
    "step_1x": lambda lib: lib.zeros(1, 6)[:, ::2],
    "permute_size1": lambda lib: lib.zeros(2, 1, 3).permute(1, 0, 2),
}


@pytest.mark.parametrize("name", sorted(CONTIGUITY))
def test_contiguity_matches_torch(torch, name):
    g, t = CONTIGUITY[name](GT), CONTIGUITY[name](torch)
    assert (g.is_contiguous(), g.stride(), g.storage_offset()) == \
        (t.is_contiguous(), t.stride(), t.storage_offset())


def test_write_through_view_visible_in_base():
    x = GT.zeros(2, 3)
    x.t()[2].fill_(7)
    x[0, :2] = GT.tensor([1.0, 2.0])
    x[1][0] = 5
    assert x.tolist() == [[1.0, 2.0, 7.0], [5.0, 0.0, 7.0]]
    assert x._version == 3


def test_write_through_expanded_view_of_base_visible():
    x = GT.zeros(3)
    e = x.expand(2, 3)
    x.add_(1)
    assert e.tolist() == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]] and e._version == 1


def test_detach_drops_view_tracking():
    a = GT.ones(4, requires_grad=True)
    assert not (a * 2)[0:2].detach()._is_view()
    assert a.detach()[0:2]._is_view()


def test_nonview_results_are_not_views():
    x = GT.ones(2, 3)
    for r in (x + 1, x.clone(), x.sum(0), x.exp(), x[[0]], GT.ones(2)):
        assert not r._is_view() and r._base is None
