"""``Transform``, the base class of the transforms, and the transforms made of other
transforms: their inverses, ``ComposeTransform`` (with ``identity_transform``, the
empty composition) and ``IndependentTransform``. ``gradtrack.distributions.transforms``
gathers them with the elementwise ones.

A transform's ``domain`` and ``codomain`` are the constraints of its inputs and
outputs; ``t.inv`` is its inverse (``t.inv.inv is t``). With ``cache_size=1`` a
transform remembers its last input and output, so that inverting a value it made
gives back the very input.

>>> import gradtrack
>>> from gradtrack.distributions.transforms import ComposeTransform, ExpTransform
>>> t = ComposeTransform([ExpTransform(), ExpTransform()])
>>> y = t(gradtrack.tensor([0.0, 1.0]))
>>> y, t.inv(y)
(tensor([ 2.7183, 15.1543]), tensor([-5.9605e-08,  1.0000e+00]))
"""

import functools
import operator

import gradtrack

from . import constraints
from .utils import _sum_rightmost, lazy_property

__all__ = ["ComposeTransform", "IndependentTransform", "Transform", "identity_transform"]


class Transform:
    """The base class of transforms: a subclass computes ``_call`` (and
    ``_inverse``), and a bijective one its ``log_abs_det_jacobian``.

    ``cache_size`` (0 or 1) is how many input-output pairs it remembers.

    >>> from gradtrack.distributions.transforms import ExpTransform
    >>> t = ExpTransform(cache_size=1)
    >>> t.bijective, t.event_dim, t.inv.inv is t
    (True, 0, True)
    """

    bijective = False

    def __init__(self, cache_size=0):
        self._cache_size = cache_size
        self._inv = None
        if cache_size == 1:
            self._cached_x_y = None, None
        elif cache_size != 0:
            raise ValueError("cache_size must be 0 or 1")
        super().__init__()

    def __getstate__(self):
        # the inverse points back at this transform: a cycle pickle need not keep
        state = self.__dict__.copy()
        state["_inv"] = None
        return state

    @property
    def event_dim(self):
        """The number of dims of one event, when domain and codomain agree on it.

        >>> from gradtrack.distributions.transforms import SoftmaxTransform
        >>> SoftmaxTransform().event_dim
        1
        """
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform (made once, then kept).

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import ExpTransform
        >>> ExpTransform().inv(gradtrack.tensor(1.0))
        tensor(0.)
        """
        inv = self._inv
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = inv
        return inv

    @property
    def sign(self):
        """The sign of the Jacobian's determinant, for a bijective transform of
        numbers: +1 where it increases, -1 where it decreases.

        >>> from gradtrack.distributions.transforms import AffineTransform
        >>> AffineTransform(0.0, -2.0).sign
        -1
        """
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        """This transform with ``cache_size`` (itself when it has it already).

        >>> from gradtrack.distributions.transforms import ExpTransform
        >>> ExpTransform().with_cache()._cache_size
        1
        """
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at the input ``x`` and its output ``y``.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import AffineTransform
        >>> AffineTransform(1.0, 3.0).log_abs_det_jacobian(gradtrack.zeros(2), gradtrack.ones(2))
        tensor([1.0986, 1.0986])
        """
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__ + "()"

    def forward_shape(self, shape):
        """The shape of the output for an input of ``shape`` (the same, unless the
        transform broadcasts or reshapes).

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import PowerTransform
        >>> PowerTransform(gradtrack.ones(3)).forward_shape((2, 1))
        gradtrack.Size([2, 3])
        """
        return shape

    def inverse_shape(self, shape):
        """The shape of the input for an output of ``shape``.

        >>> from gradtrack.distributions.transforms import ExpTransform
        >>> ExpTransform().inverse_shape((2, 3))
        (2, 3)
        """
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform, read as ``transform.inv``: its domain is the
    transform's codomain, its calls are the transform's inverse calls (sharing the
    transform's cache)."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        if not isinstance(other, _InverseTransform):
            return False
        return self._inv == other._inv

    def __repr__(self):
        return f"{self.__class__.__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """``parts`` applied in order, first to last; each part does its own caching.

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import AffineTransform, ComposeTransform, ExpTransform
    >>> t = ComposeTransform([ExpTransform(), AffineTransform(1.0, 2.0)])
    >>> t(gradtrack.tensor(0.0)), t.inv(gradtrack.tensor(3.0))
    (tensor(3.), tensor(0.))
    """

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        if not isinstance(other, ComposeTransform):
            return False
        return self.parts == other.parts

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The first part's domain, widened to the event dims the whole chain
        needs.

        >>> from gradtrack.distributions.transforms import ComposeTransform, ExpTransform, SoftmaxTransform
        >>> ComposeTransform([ExpTransform(), SoftmaxTransform()]).domain
        IndependentConstraint(Real(), 1)
        """
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        # walk back from the last codomain: a part may need more dims than it makes
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim < domain.event_dim:
            raise AssertionError(
                f"event_dim {event_dim} must be >= domain.event_dim {domain.event_dim}")
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The last part's codomain, widened to the event dims the whole chain
        makes.

        >>> from gradtrack.distributions.transforms import ComposeTransform, ExpTransform, SoftmaxTransform
        >>> ComposeTransform([SoftmaxTransform(), ExpTransform()]).codomain
        IndependentConstraint(GreaterThan(lower_bound=0.0), 1)
        """
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim < codomain.event_dim:
            raise AssertionError(
                f"event_dim {event_dim} must be >= codomain.event_dim {codomain.event_dim}")
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @lazy_property
    def bijective(self):
        """Whether every part is bijective.

        >>> from gradtrack.distributions.transforms import AbsTransform, ComposeTransform, ExpTransform
        >>> ComposeTransform([ExpTransform(), AbsTransform()]).bijective
        False
        """
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self):
        """The product of the parts' signs.

        >>> from gradtrack.distributions.transforms import AffineTransform, ComposeTransform, ExpTransform
        >>> ComposeTransform([ExpTransform(), AffineTransform(0.0, -1.0)]).sign
        -1
        """
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        """The parts' inverses in reverse order (whose inverse is this transform).

        >>> from gradtrack.distributions.transforms import AffineTransform, ComposeTransform, ExpTransform
        >>> ComposeTransform([ExpTransform(), AffineTransform(1.0, 2.0)]).inv
        ComposeTransform(
            _InverseTransform(AffineTransform()),
            _InverseTransform(ExpTransform())
        )
        """
        inv = self._inv
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = inv
            inv._inv = self
        return inv

    def with_cache(self, cache_size=1):
        """The composition of the parts with ``cache_size``.

        >>> from gradtrack.distributions.transforms import ComposeTransform, ExpTransform
        >>> ComposeTransform([ExpTransform()]).with_cache().parts[0]._cache_size
        1
        """
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        """The sum of the parts' terms at their inputs, each summed over the event
        dims it does not see itself.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import AffineTransform, ComposeTransform, ExpTransform
        >>> t = ComposeTransform([ExpTransform(), AffineTransform(0.0, 2.0)])
        >>> x = gradtrack.tensor([0.0, 1.0])
        >>> t.log_abs_det_jacobian(x, t(x))
        tensor([0.6931, 1.6931])
        """
        if not self.parts:
            return gradtrack.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, part_x, part_y in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(part_x, part_y),
                                        event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape):
        """The shape after every part.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import AffineTransform, ComposeTransform
        >>> ComposeTransform([AffineTransform(gradtrack.zeros(3), 1.0)]).forward_shape((2, 1))
        gradtrack.Size([2, 3])
        """
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        """The shape before every part.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import AffineTransform, ComposeTransform
        >>> ComposeTransform([AffineTransform(gradtrack.zeros(3), 1.0)]).inverse_shape((1,))
        gradtrack.Size([3])
        """
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return (self.__class__.__name__ + "(\n    "
                + ",\n    ".join(repr(p) for p in self.parts) + "\n)")


# The empty composition: the identity on the reals.
identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with its ``reinterpreted_batch_ndims`` rightmost dims
    made part of the event: the same values, with ``log_abs_det_jacobian`` summed
    over those dims.

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import ExpTransform, IndependentTransform
    >>> t = IndependentTransform(ExpTransform(), 1)
    >>> x = gradtrack.tensor([[0.0, 1.0], [2.0, 3.0]])
    >>> t.log_abs_det_jacobian(x, t(x)), t.domain
    (tensor([1., 5.]), IndependentConstraint(Real(), 1))
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        """This transform over the base transform with ``cache_size``.

        >>> from gradtrack.distributions.transforms import ExpTransform, IndependentTransform
        >>> IndependentTransform(ExpTransform(), 1).with_cache()._cache_size
        1
        """
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The base transform's domain with the reinterpreted dims.

        >>> from gradtrack.distributions.transforms import ExpTransform, IndependentTransform
        >>> IndependentTransform(ExpTransform(), 2).domain
        IndependentConstraint(Real(), 2)
        """
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The base transform's codomain with the reinterpreted dims.

        >>> from gradtrack.distributions.transforms import ExpTransform, IndependentTransform
        >>> IndependentTransform(ExpTransform(), 1).codomain
        IndependentConstraint(GreaterThan(lower_bound=0.0), 1)
        """
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        """The base transform's.

        >>> from gradtrack.distributions.transforms import ExpTransform, IndependentTransform
        >>> IndependentTransform(ExpTransform(), 1).bijective
        True
        """
        return self.base_transform.bijective

    @property
    def sign(self):
        """The base transform's.

        >>> from gradtrack.distributions.transforms import ExpTransform, IndependentTransform
        >>> IndependentTransform(ExpTransform(), 1).sign
        1
        """
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        """The base transform's, summed over the reinterpreted dims.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import ExpTransform, IndependentTransform
        >>> IndependentTransform(ExpTransform(), 1).log_abs_det_jacobian(gradtrack.ones(3), None)
        tensor(3.)
        """
        result = self.base_transform.log_abs_det_jacobian(x, y)
        return _sum_rightmost(result, self.reinterpreted_batch_ndims)

    def __repr__(self):
        return (f"{self.__class__.__name__}({self.base_transform!r}, "
                f"{self.reinterpreted_batch_ndims})")

    def forward_shape(self, shape):
        """The base transform's.

        >>> from gradtrack.distributions.transforms import ExpTransform, IndependentTransform
        >>> IndependentTransform(ExpTransform(), 1).forward_shape((2, 3))
        (2, 3)
        """
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        """The base transform's.

        >>> from gradtrack.distributions.transforms import ExpTransform, IndependentTransform
        >>> IndependentTransform(ExpTransform(), 1).inverse_shape((2, 3))
        (2, 3)
        """
        return self.base_transform.inverse_shape(shape)
