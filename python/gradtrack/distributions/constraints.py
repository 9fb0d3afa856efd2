"""Constraints: the sets a distribution's parameters and samples live in
(``torch.distributions.constraints``).

A constraint's ``check(value)`` is a boolean tensor, one entry per event: the
last ``event_dim`` dims of ``value`` make one event. ``is_discrete`` says whether
the set is countable. Reprs are torch's (``Real()``, ``GreaterThan(lower_bound=0.0)``),
since the distributions' validation messages print them.

>>> import gradtrack
>>> from gradtrack.distributions import constraints
>>> constraints.positive.check(gradtrack.tensor([-1.0, 2.0]))
tensor([False,  True])
>>> constraints.unit_interval
Interval(lower_bound=0.0, upper_bound=1.0)
"""

from .constraint import Constraint, _Cat, _Stack

__all__ = [
    "Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property", "greater_than",
    "greater_than_eq", "half_open_interval", "independent", "integer_interval", "interval",
    "is_dependent", "less_than", "lower_cholesky", "lower_triangular",
    "MixtureSameFamilyConstraint", "multinomial", "nonnegative",
    "nonnegative_integer", "one_hot", "positive", "positive_definite",
    "positive_integer", "positive_semidefinite", "real", "real_vector", "simplex", "square",
    "stack", "symmetric", "unit_interval",
]


class _Dependent(Constraint):
    """A constraint that depends on other parameters of the distribution, so
    that it cannot be checked on its own (validation skips it).

    >>> from gradtrack.distributions.constraints import dependent, is_dependent
    >>> is_dependent(dependent), dependent(is_discrete=True).is_discrete
    (True, True)
    """

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self):
        """Whether the set is discrete, when that was given.

        >>> from gradtrack.distributions.constraints import dependent
        >>> dependent(is_discrete=False).is_discrete
        False
        """
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        """The number of trailing dims of one event, when that was given.

        >>> from gradtrack.distributions.constraints import dependent
        >>> dependent(event_dim=1).event_dim
        1
        """
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        """A dependent constraint with these attributes (the others kept).

        >>> from gradtrack.distributions.constraints import dependent
        >>> dependent(event_dim=2).event_dim
        2
        """
        return _Dependent(
            is_discrete=self._is_discrete if is_discrete is NotImplemented else is_discrete,
            event_dim=self._event_dim if event_dim is NotImplemented else event_dim)

    def check(self, x):
        """Always raises: the set is not known without the distribution.

        >>> import gradtrack
        >>> from gradtrack.distributions.constraints import dependent
        >>> dependent.check(gradtrack.zeros(1))
        Traceback (most recent call last):
        ...
        ValueError: Cannot determine validity of dependent constraint
        """
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether ``constraint`` is a dependent one (which validation skips).

    >>> from gradtrack.distributions import constraints
    >>> constraints.is_dependent(constraints.dependent), constraints.is_dependent(constraints.real)
    (True, False)
    """
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property of a distribution class that is also a dependent constraint:
    read on an instance it gives the constraint its method builds; read on the
    class it is the dependent constraint itself.

    >>> from gradtrack.distributions import constraints
    >>> class Box:
    ...     @constraints.dependent_property(is_discrete=False, event_dim=0)
    ...     def support(self):
    ...         return constraints.interval(0.0, 2.0)
    >>> Box().support, constraints.is_dependent(Box.support)
    (Interval(lower_bound=0.0, upper_bound=2.0), True)
    """

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        super().__init__(fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        """Decorates ``fn``: the property with this one's attributes.

        >>> from gradtrack.distributions import constraints
        >>> prop = constraints.dependent_property(event_dim=1)(lambda self: None)
        >>> prop.event_dim
        1
        """
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """``base_constraint`` with its ``reinterpreted_batch_ndims`` rightmost batch dims
    taken into the event: an event is valid when all its entries are.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> c = constraints.independent(constraints.positive, 1)
    >>> c, c.check(gradtrack.tensor([[1.0, 2.0], [1.0, -2.0]]))
    (IndependentConstraint(GreaterThan(lower_bound=0.0), 1), tensor([ True, False]))
    """

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int):
            raise AssertionError("reinterpreted_batch_ndims must be an int, got "
                                 f"{type(reinterpreted_batch_ndims).__name__}")
        if reinterpreted_batch_ndims < 0:
            raise AssertionError(
                f"reinterpreted_batch_ndims must be >= 0, got {reinterpreted_batch_ndims}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self):
        """The base constraint's.

        >>> from gradtrack.distributions import constraints
        >>> constraints.independent(constraints.boolean, 1).is_discrete
        True
        """
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        """The base constraint's event dims plus the reinterpreted ones.

        >>> from gradtrack.distributions import constraints
        >>> constraints.real_vector.event_dim
        1
        """
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        """Whether each event (all entries of its reinterpreted dims) is valid.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.real_vector.check(gradtrack.tensor([[0.0, float("nan")], [1.0, 2.0]]))
        tensor([False,  True])
        """
        result = self.base_constraint.check(value)
        ndims = self.reinterpreted_batch_ndims
        if result.dim() < ndims:
            raise ValueError(f"Expected value.dim() >= {self.base_constraint.event_dim + ndims} "
                             f"but got {value.dim()}")
        return result.reshape(result.shape[:result.dim() - ndims] + (-1,)).all(-1)

    def __repr__(self):
        return (f"{type(self).__name__[1:]}({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


class MixtureSameFamilyConstraint(Constraint):
    """The support of a ``MixtureSameFamily``: a value is valid when it is in
    ``base_constraint`` (the components' support) for every component.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> c = constraints.MixtureSameFamilyConstraint(constraints.positive)
    >>> c, c.check(gradtrack.tensor([1.0, -1.0]))
    (MixtureSameFamilyConstraint(GreaterThan(lower_bound=0.0)), tensor([ True, False]))
    """

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self):
        """The base constraint's.

        >>> from gradtrack.distributions import constraints
        >>> constraints.MixtureSameFamilyConstraint(constraints.boolean).is_discrete
        True
        """
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        """The base constraint's.

        >>> from gradtrack.distributions import constraints
        >>> constraints.MixtureSameFamilyConstraint(constraints.real_vector).event_dim
        1
        """
        return self.base_constraint.event_dim

    def check(self, value):
        """The base check of ``value`` given a component dim, reduced over it.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.MixtureSameFamilyConstraint(constraints.real).check(gradtrack.zeros(2))
        tensor([True, True])
        """
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        kept = value.dim() - self.event_dim
        return result.reshape(result.shape[:kept] + (-1,)).all(-1)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_constraint!r})"


class _Multinomial(Constraint):
    """Vectors of nonnegative counts whose sum is at most ``upper_bound`` (only the
    sum's bound is checked, not that the entries are integers).

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.multinomial(3).check(gradtrack.tensor([[1.0, 2.0], [2.0, 2.0]]))
    tensor([ True, False])
    """

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        """Whether each last-dim vector is nonnegative with a sum within the bound.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.multinomial(2).check(gradtrack.tensor([-1.0, 2.0]))
        tensor(False)
        """
        return (x >= 0).all(dim=-1) & (x.sum(dim=-1) <= self.upper_bound)


class _Boolean(Constraint):
    """The set {0, 1}.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.boolean.check(gradtrack.tensor([1, 2]))
    tensor([ True, False])
    """

    is_discrete = True

    def check(self, value):
        """Whether each entry is 0 or 1.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.boolean.check(gradtrack.tensor([0.0]))
        tensor([True])
        """
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """One-hot vectors: 0s and a single 1 along the last dim.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.one_hot.check(gradtrack.tensor([[0.0, 1.0], [1.0, 1.0]]))
    tensor([ True, False])
    """

    is_discrete = True
    event_dim = 1

    def check(self, value):
        """Whether each last-dim vector is one-hot.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.one_hot.check(gradtrack.tensor([0.0, 0.0, 1.0]))
        tensor(True)
        """
        return ((value == 0) | (value == 1)).all(-1) & value.sum(-1).eq(1)


class _IntegerInterval(Constraint):
    """The integers from ``lower_bound`` to ``upper_bound``, both included.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> c = constraints.integer_interval(0, 2)
    >>> c, c.check(gradtrack.tensor([0.0, 1.5, 2.0, 3.0]))
    (IntegerInterval(lower_bound=0, upper_bound=2), tensor([ True, False,  True, False]))
    """

    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        """Whether each entry is a whole number within the bounds.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.integer_interval(1, 3).check(gradtrack.tensor([0, 1]))
        tensor([False,  True])
        """
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return (f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, "
                f"upper_bound={self.upper_bound})")


class _IntegerGreaterThan(Constraint):
    """The integers from ``lower_bound`` up.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.positive_integer.check(gradtrack.tensor([0.0, 1.0, 2.5]))
    tensor([False,  True, False])
    """

    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        """Whether each entry is a whole number at least ``lower_bound``.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.nonnegative_integer.check(gradtrack.tensor([-1, 0]))
        tensor([False,  True])
        """
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _Real(Constraint):
    """The real line (NaN is not in it).

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.real.check(gradtrack.tensor([float("inf"), float("nan")]))
    tensor([ True, False])
    """

    def check(self, value):
        """Whether each entry is not NaN.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.real.check(gradtrack.tensor([1.0]))
        tensor([True])
        """
        return value == value  # NaN is the one value unequal to itself


class _GreaterThan(Constraint):
    """The reals above ``lower_bound`` (a number or a tensor).

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> c = constraints.greater_than(1.0)
    >>> c, c.check(gradtrack.tensor([1.0, 2.0]))
    (GreaterThan(lower_bound=1.0), tensor([False,  True]))
    """

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        """Whether each entry is above the bound.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.positive.check(gradtrack.tensor([0.0, 0.5]))
        tensor([False,  True])
        """
        return self.lower_bound < value

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThanEq(Constraint):
    """The reals from ``lower_bound`` up.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.nonnegative, constraints.nonnegative.check(gradtrack.tensor([0.0, -1.0]))
    (GreaterThanEq(lower_bound=0.0), tensor([ True, False]))
    """

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        """Whether each entry is at least the bound.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.greater_than_eq(2).check(gradtrack.tensor([2.0]))
        tensor([True])
        """
        return self.lower_bound <= value

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    """The reals below ``upper_bound``.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> c = constraints.less_than(0.0)
    >>> c, c.check(gradtrack.tensor([-1.0, 0.0]))
    (LessThan(upper_bound=0.0), tensor([ True, False]))
    """

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        """Whether each entry is below the bound.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.less_than(1).check(gradtrack.tensor([0.5]))
        tensor([True])
        """
        return value < self.upper_bound

    def __repr__(self):
        return f"{type(self).__name__[1:]}(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    """The closed interval [``lower_bound``, ``upper_bound``].

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.interval(0.0, 2.0).check(gradtrack.tensor([0.0, 2.0, 2.5]))
    tensor([ True,  True, False])
    """

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        """Whether each entry is within both bounds, which are included.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.unit_interval.check(gradtrack.tensor([1.0]))
        tensor([True])
        """
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return (f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, "
                f"upper_bound={self.upper_bound})")


class _HalfOpenInterval(Constraint):
    """The interval [``lower_bound``, ``upper_bound``): the upper bound excluded.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> c = constraints.half_open_interval(0.0, 1.0)
    >>> c, c.check(gradtrack.tensor([0.0, 1.0]))
    (HalfOpenInterval(lower_bound=0.0, upper_bound=1.0), tensor([ True, False]))
    """

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        """Whether each entry is at least the lower bound and below the upper.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.half_open_interval(0, 2).check(gradtrack.tensor([1.0]))
        tensor([True])
        """
        return (self.lower_bound <= value) & (value < self.upper_bound)

    def __repr__(self):
        return (f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, "
                f"upper_bound={self.upper_bound})")


class _Simplex(Constraint):
    """Vectors (the last dim) of nonnegative entries that sum to 1, within 1e-6.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.simplex.check(gradtrack.tensor([[0.25, 0.75], [0.5, 0.6]]))
    tensor([ True, False])
    """

    event_dim = 1

    def check(self, value):
        """Whether each last-dim vector is a probability vector.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.simplex.check(gradtrack.tensor([-0.5, 1.5]))
        tensor(False)
        """
        import gradtrack
        return gradtrack.all(value >= 0, dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _LowerTriangular(Constraint):
    """Square matrices (the last two dims) with zeros above the diagonal.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.lower_triangular.check(gradtrack.tensor([[1.0, 0.0], [2.0, 3.0]]))
    tensor(True)
    """

    event_dim = 2

    def check(self, value):
        """Whether each matrix equals its lower triangle.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.lower_triangular.check(gradtrack.ones(2, 2))
        tensor(False)
        """
        return (value.tril() == value).view(value.shape[:-2] + (-1,)).min(-1)[0]


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices with a positive diagonal: the Cholesky
    factors of positive-definite matrices.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.lower_cholesky.check(gradtrack.tensor([[1.0, 0.0], [2.0, -3.0]]))
    tensor(False)
    """

    event_dim = 2

    def check(self, value):
        """Whether each matrix is lower triangular with positive diagonal entries.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.lower_cholesky.check(gradtrack.eye(2))
        tensor(True)
        """
        lower = (value.tril() == value).view(value.shape[:-2] + (-1,)).min(-1)[0]
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).min(-1)[0]
        return lower & positive_diagonal


class _CorrCholesky(Constraint):
    """Lower-Cholesky matrices whose rows have unit Euclidean norm (within
    ``10 * size * eps`` of the dtype): the Cholesky factors of correlation matrices.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.corr_cholesky.check(gradtrack.tensor([[[1.0, 0.0], [0.6, 0.8]],
    ...                                                   [[1.0, 0.0], [0.6, 0.6]]]))
    tensor([ True, False])
    """

    event_dim = 2

    def check(self, value):
        """Whether each matrix is lower Cholesky with rows of norm 1.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.corr_cholesky.check(gradtrack.eye(3))
        tensor(True)
        """
        import gradtrack
        tol = gradtrack.finfo(value.dtype).eps * value.size(-1) * 10
        row_norm = gradtrack.linalg.norm(value.detach(), dim=-1)
        unit_row_norm = (row_norm - 1.0).abs().le(tol).all(dim=-1)
        return _LowerCholesky().check(value) & unit_row_norm


class _Square(Constraint):
    """Square matrices; the answer is the same for the whole batch.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.square.check(gradtrack.zeros(3, 2, 2))
    tensor([True, True, True])
    """

    event_dim = 2

    def check(self, value):
        """Whether the last two dims are of one size, for each matrix.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.square.check(gradtrack.zeros(2, 3))
        tensor(False)
        """
        import gradtrack
        return gradtrack.full(value.shape[:-2], value.shape[-2] == value.shape[-1],
                              dtype=gradtrack.bool, device=value.device)


class _Symmetric(_Square):
    """Square matrices equal to their transposes (within ``isclose``'s tolerances,
    ``atol=1e-6``).

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.symmetric.check(gradtrack.tensor([[1.0, 2.0], [2.0, 1.0]]))
    tensor(True)
    """

    def check(self, value):
        """Whether each matrix is square and symmetric (all False when not square).

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.symmetric.check(gradtrack.tensor([[1.0, 2.0], [0.0, 1.0]]))
        tensor(False)
        """
        import gradtrack
        square = super().check(value)
        if not square.all():
            return square
        return gradtrack.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices whose eigenvalues are all nonnegative.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.positive_semidefinite.check(gradtrack.tensor([[1.0, 1.0], [1.0, 1.0]]))
    tensor(True)
    """

    def check(self, value):
        """Whether each matrix is symmetric with no negative eigenvalue (only the
        symmetry checked when some matrix is not symmetric).

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.positive_semidefinite.check(-gradtrack.eye(2))
        tensor(False)
        """
        import gradtrack
        symmetric = super().check(value)
        if not symmetric.all():
            return symmetric
        return gradtrack.linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices with a Cholesky factor: all eigenvalues positive.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> constraints.positive_definite.check(gradtrack.tensor([[[2.0, 1.0], [1.0, 2.0]],
    ...                                                       [[1.0, 2.0], [2.0, 1.0]]]))
    tensor([ True, False])
    """

    def check(self, value):
        """Whether each matrix is symmetric and its Cholesky factorization succeeds
        (only the symmetry checked when some matrix is not symmetric).

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.positive_definite.check(gradtrack.eye(3))
        tensor(True)
        """
        import gradtrack
        symmetric = super().check(value)
        if not symmetric.all():
            return symmetric
        return gradtrack.linalg.cholesky_ex(value).info.eq(0)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
