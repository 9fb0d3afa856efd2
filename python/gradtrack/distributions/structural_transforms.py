"""Transforms that rearrange or split their input rather than map its numbers:
``ReshapeTransform`` (the rightmost dims reshaped), ``CatTransform`` and
``StackTransform`` (other transforms applied to blocks or slices along a dim, as
``gradtrack.cat`` and ``gradtrack.stack`` join them).
``gradtrack.distributions.transforms`` gathers them with the others.

>>> import gradtrack
>>> from gradtrack.distributions.transforms import CatTransform, ExpTransform, identity_transform
>>> t = CatTransform([ExpTransform(), identity_transform], dim=0, lengths=[1, 2])
>>> y = t(gradtrack.tensor([0.0, 1.0, 2.0]))
>>> y, t.inv(y)
(tensor([1., 1., 2.]), tensor([0., 1., 2.]))
"""

import gradtrack

from . import constraints
from .transform import Transform
from .utils import _sum_rightmost, lazy_property

__all__ = ["CatTransform", "ReshapeTransform", "StackTransform"]


class ReshapeTransform(Transform):
    """The rightmost dims of shape ``in_shape`` reshaped to ``out_shape`` (of as many
    elements); its Jacobian's determinant is 1.

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import ReshapeTransform
    >>> t = ReshapeTransform((2, 2), (4,))
    >>> x = gradtrack.arange(8.0).view(2, 2, 2)
    >>> t(x).shape, t.log_abs_det_jacobian(x, t(x))
    (gradtrack.Size([2, 4]), tensor([0., 0.]))
    """

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = gradtrack.Size(in_shape)
        self.out_shape = gradtrack.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        """The reals over ``len(in_shape)`` dims.

        >>> from gradtrack.distributions.transforms import ReshapeTransform
        >>> ReshapeTransform((2, 3), (6,)).domain
        IndependentConstraint(Real(), 2)
        """
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        """The reals over ``len(out_shape)`` dims.

        >>> from gradtrack.distributions.transforms import ReshapeTransform
        >>> ReshapeTransform((2, 3), (6,)).codomain
        IndependentConstraint(Real(), 1)
        """
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        """This transform with ``cache_size``.

        >>> from gradtrack.distributions.transforms import ReshapeTransform
        >>> ReshapeTransform((2,), (1, 2)).with_cache().out_shape
        gradtrack.Size([1, 2])
        """
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = x.shape[:x.dim() - len(self.in_shape)]
        return x.reshape(batch_shape + self.out_shape)

    def _inverse(self, y):
        batch_shape = y.shape[:y.dim() - len(self.out_shape)]
        return y.reshape(batch_shape + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        """Zeros, one per batch entry of ``x``.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import ReshapeTransform
        >>> ReshapeTransform((3,), (3, 1)).log_abs_det_jacobian(gradtrack.ones(2, 3), None)
        tensor([0., 0.])
        """
        return x.new_zeros(x.shape[:x.dim() - len(self.in_shape)])

    def forward_shape(self, shape):
        """``shape`` with its rightmost ``in_shape`` replaced by ``out_shape``.

        >>> from gradtrack.distributions.transforms import ReshapeTransform
        >>> ReshapeTransform((2, 3), (6,)).forward_shape((5, 2, 3))
        gradtrack.Size([5, 6])
        """
        return _replace_rightmost(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        """``shape`` with its rightmost ``out_shape`` replaced by ``in_shape``.

        >>> from gradtrack.distributions.transforms import ReshapeTransform
        >>> ReshapeTransform((2, 3), (6,)).inverse_shape((6,))
        gradtrack.Size([2, 3])
        """
        return _replace_rightmost(shape, self.out_shape, self.in_shape)


def _replace_rightmost(shape, old, new):
    if len(shape) < len(old):
        raise ValueError("Too few dimensions on input")
    cut = len(shape) - len(old)
    if shape[cut:] != old:
        raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {old}")
    return gradtrack.Size(tuple(shape[:cut]) + tuple(new))


def _component_transforms(tseq, cache_size):
    """A fresh list of the transforms in ``tseq``, each switched to ``cache_size``
    when that is nonzero; every element must be a ``Transform``."""
    if any(not isinstance(t, Transform) for t in tseq):
        raise AssertionError("All elements of tseq must be Transform instances")
    if not cache_size:
        return list(tseq)
    return [t.with_cache(cache_size) for t in tseq]


def _check_dim(dim, value, name):
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for {name} with {value.dim()} dimensions")


def _check_size(dim, value, name, want, what):
    if value.size(dim) != want:
        raise AssertionError(f"{name}.size({dim}) = {value.size(dim)} must equal {what} {want}")


class CatTransform(Transform):
    """The transforms of ``tseq`` applied to consecutive blocks along ``dim``, the
    i-th block ``lengths[i]`` long (1 each when not given), and the results joined
    back with ``gradtrack.cat``.

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import AffineTransform, CatTransform, ExpTransform
    >>> t = CatTransform([ExpTransform(), AffineTransform(0.0, 3.0)], dim=-1, lengths=[1, 1])
    >>> x = gradtrack.tensor([[0.0, 1.0], [1.0, 2.0]])
    >>> t(x), t.log_abs_det_jacobian(x, t(x))
    (tensor([[1.0000, 3.0000],
            [2.7183, 6.0000]]), tensor([[0.0000, 1.0986],
            [1.0000, 1.0986]]))
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        parts = _component_transforms(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.transforms = parts
        # one block per transform, of length 1 unless told otherwise
        blocks = [1 for _ in parts] if lengths is None else list(lengths)
        if len(blocks) != len(parts):
            raise AssertionError(f"lengths ({len(blocks)}) must match transforms ({len(parts)})")
        self.lengths = blocks
        self.dim = dim

    @lazy_property
    def event_dim(self):
        """The most event dims of the transforms.

        >>> from gradtrack.distributions.transforms import CatTransform, ExpTransform, SoftmaxTransform
        >>> CatTransform([ExpTransform(), SoftmaxTransform()]).event_dim
        1
        """
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        """The sum of the blocks' lengths: the size the input has along ``dim``.

        >>> from gradtrack.distributions.transforms import CatTransform, ExpTransform
        >>> CatTransform([ExpTransform(), ExpTransform()], lengths=[2, 3]).length
        5
        """
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        """This transform over the transforms with ``cache_size``.

        >>> from gradtrack.distributions.transforms import CatTransform, ExpTransform
        >>> CatTransform([ExpTransform()]).with_cache().transforms[0]._cache_size
        1
        """
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _blocks(self, value):
        start = 0
        for length in self.lengths:
            yield value.narrow(self.dim, start, length)
            start = start + length

    def _call(self, x):
        _check_dim(self.dim, x, "tensor")
        _check_size(self.dim, x, "x", self.length, "length")
        return gradtrack.cat([t(b) for t, b in zip(self.transforms, self._blocks(x))],
                             dim=self.dim)

    def _inverse(self, y):
        _check_dim(self.dim, y, "tensor")
        _check_size(self.dim, y, "y", self.length, "length")
        return gradtrack.cat([t.inv(b) for t, b in zip(self.transforms, self._blocks(y))],
                             dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        """Each block's term (summed over the event dims its transform does not see),
        joined along ``dim`` when that is a batch dim, else added up.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import CatTransform, ExpTransform
        >>> t = CatTransform([ExpTransform(), ExpTransform()], lengths=[1, 2])
        >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
        >>> t.log_abs_det_jacobian(x, t(x))
        tensor([1., 2., 3.])
        """
        _check_dim(self.dim, x, "x")
        _check_size(self.dim, x, "x", self.length, "length")
        _check_dim(self.dim, y, "y")
        _check_size(self.dim, y, "y", self.length, "length")
        terms = []
        for t, x_block, y_block in zip(self.transforms, self._blocks(x), self._blocks(y)):
            term = t.log_abs_det_jacobian(x_block, y_block)
            if t.event_dim < self.event_dim:
                term = _sum_rightmost(term, self.event_dim - t.event_dim)
            terms.append(term)
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim = dim + self.event_dim
        if dim < 0:
            return gradtrack.cat(terms, dim=dim)
        return sum(terms)

    @property
    def bijective(self):
        """Whether every transform is bijective.

        >>> from gradtrack.distributions.transforms import AbsTransform, CatTransform, ExpTransform
        >>> CatTransform([ExpTransform(), AbsTransform()]).bijective
        False
        """
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        """The transforms' domains, concatenated as the blocks are.

        >>> from gradtrack.distributions.transforms import CatTransform, ExpTransform
        >>> CatTransform([ExpTransform()]).domain
        Cat()
        """
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        """The transforms' codomains, concatenated as the blocks are.

        >>> from gradtrack.distributions.transforms import CatTransform, ExpTransform
        >>> CatTransform([ExpTransform()]).codomain.cseq
        [GreaterThan(lower_bound=0.0)]
        """
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """The i-th transform of ``tseq`` applied to the i-th slice along ``dim``, and
    the results stacked back with ``gradtrack.stack``.

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import ExpTransform, StackTransform, identity_transform
    >>> t = StackTransform([ExpTransform(), identity_transform], dim=1)
    >>> t(gradtrack.tensor([[0.0, 5.0], [1.0, 6.0]]))
    tensor([[1.0000, 5.0000],
            [2.7183, 6.0000]])
    """

    def __init__(self, tseq, dim=0, cache_size=0):
        parts = _component_transforms(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.transforms = parts
        self.dim = dim

    def with_cache(self, cache_size=1):
        """This transform over the transforms with ``cache_size``.

        >>> from gradtrack.distributions.transforms import ExpTransform, StackTransform
        >>> StackTransform([ExpTransform()]).with_cache().transforms[0]._cache_size
        1
        """
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        _check_dim(self.dim, x, "tensor")
        _check_size(self.dim, x, "x", len(self.transforms), "len(transforms)")
        return gradtrack.stack([t(s) for s, t in zip(self._slice(x), self.transforms)],
                               dim=self.dim)

    def _inverse(self, y):
        _check_dim(self.dim, y, "tensor")
        _check_size(self.dim, y, "y", len(self.transforms), "len(transforms)")
        return gradtrack.stack([t.inv(s) for s, t in zip(self._slice(y), self.transforms)],
                               dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        """The slices' terms, stacked along ``dim``.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import AffineTransform, ExpTransform, StackTransform
        >>> t = StackTransform([ExpTransform(), AffineTransform(0.0, 2.0)])
        >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> t.log_abs_det_jacobian(x, t(x))
        tensor([[1.0000, 2.0000],
                [0.6931, 0.6931]])
        """
        for value, name in ((x, "x"), (y, "y")):
            _check_dim(self.dim, value, name)
            _check_size(self.dim, value, name, len(self.transforms), "len(transforms)")
        terms = [t.log_abs_det_jacobian(x_slice, y_slice) for x_slice, y_slice, t
                 in zip(self._slice(x), self._slice(y), self.transforms)]
        return gradtrack.stack(terms, dim=self.dim)

    @property
    def bijective(self):
        """Whether every transform is bijective.

        >>> from gradtrack.distributions.transforms import ExpTransform, StackTransform
        >>> StackTransform([ExpTransform()]).bijective
        True
        """
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        """The transforms' domains, stacked as the slices are.

        >>> from gradtrack.distributions.transforms import ExpTransform, StackTransform
        >>> StackTransform([ExpTransform()]).domain
        Stack()
        """
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        """The transforms' codomains, stacked as the slices are.

        >>> from gradtrack.distributions.transforms import ExpTransform, StackTransform
        >>> StackTransform([ExpTransform()]).codomain.cseq
        [GreaterThan(lower_bound=0.0)]
        """
        return constraints.stack([t.codomain for t in self.transforms], self.dim)
