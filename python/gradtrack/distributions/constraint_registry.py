"""``biject_to`` and ``transform_to``: from a constraint to a transform that maps
the unconstrained reals into it (``torch.distributions.constraint_registry``), for
optimizing a constrained parameter through an unconstrained one.

``biject_to(c)`` is bijective, so that densities can be carried through it;
``transform_to(c)`` need not be (``SoftmaxTransform`` for the simplex). Both look
a constraint up by its type; ``register`` adds a type.

>>> import gradtrack
>>> from gradtrack.distributions import constraints, transform_to
>>> t = transform_to(constraints.interval(-1.0, 3.0))
>>> t(gradtrack.tensor([0.0, 2.0]))
tensor([1.0000, 2.5232])
"""

from . import constraints, transforms
from .utils import _NUMBER

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A table from constraint types to factories of transforms.

    >>> from gradtrack.distributions import constraints
    >>> from gradtrack.distributions.constraint_registry import ConstraintRegistry
    >>> registry = ConstraintRegistry()
    >>> _ = registry.register(constraints.positive, lambda c: "made for " + repr(c))
    >>> registry(constraints.greater_than(2.0))
    'made for GreaterThan(lower_bound=2.0)'
    """

    def __init__(self):
        self._registry = {}
        super().__init__()

    def register(self, constraint, factory=None):
        """Registers ``factory`` (constraint -> transform) for the type of
        ``constraint`` (a Constraint subclass or an instance); without a factory,
        a decorator that registers its function.

        >>> from gradtrack.distributions import constraints
        >>> from gradtrack.distributions.constraint_registry import ConstraintRegistry
        >>> from gradtrack.distributions.transforms import ExpTransform
        >>> registry = ConstraintRegistry()
        >>> @registry.register(constraints.positive)
        ... def _to_positive(constraint):
        ...     return ExpTransform()
        >>> registry(constraints.positive)
        ExpTransform()
        """
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint,
                                                              constraints.Constraint):
            raise TypeError("Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        """The transform registered for ``constraint``'s type, made for it.

        >>> from gradtrack.distributions import biject_to, constraints
        >>> biject_to(constraints.positive)
        ComposeTransform(
            ExpTransform(),
            AffineTransform()
        )
        """
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


@biject_to.register(constraints.real)
@transform_to.register(constraints.real)
def _transform_to_real(constraint):
    return transforms.identity_transform


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint):
    return transforms.IndependentTransform(biject_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint):
    return transforms.IndependentTransform(transform_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@biject_to.register(constraints.positive)
@biject_to.register(constraints.nonnegative)
@transform_to.register(constraints.positive)
@transform_to.register(constraints.nonnegative)
def _transform_to_positive(constraint):
    return transforms.ExpTransform()


@biject_to.register(constraints.greater_than)
@biject_to.register(constraints.greater_than_eq)
@transform_to.register(constraints.greater_than)
@transform_to.register(constraints.greater_than_eq)
def _transform_to_greater_than(constraint):
    return transforms.ComposeTransform(
        [transforms.ExpTransform(), transforms.AffineTransform(constraint.lower_bound, 1)])


@biject_to.register(constraints.less_than)
@transform_to.register(constraints.less_than)
def _transform_to_less_than(constraint):
    return transforms.ComposeTransform(
        [transforms.ExpTransform(), transforms.AffineTransform(constraint.upper_bound, -1)])


@biject_to.register(constraints.interval)
@biject_to.register(constraints.half_open_interval)
@transform_to.register(constraints.interval)
@transform_to.register(constraints.half_open_interval)
def _transform_to_interval(constraint):
    # the unit interval needs no affine step after the sigmoid
    lower_is_0 = isinstance(constraint.lower_bound, _NUMBER) and constraint.lower_bound == 0
    upper_is_1 = isinstance(constraint.upper_bound, _NUMBER) and constraint.upper_bound == 1
    if lower_is_0 and upper_is_1:
        return transforms.SigmoidTransform()
    loc = constraint.lower_bound
    scale = constraint.upper_bound - constraint.lower_bound
    return transforms.ComposeTransform(
        [transforms.SigmoidTransform(), transforms.AffineTransform(loc, scale)])


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint):
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint):
    return transforms.SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint):
    return transforms.LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
@transform_to.register(constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint):
    return transforms.PositiveDefiniteTransform()


@biject_to.register(constraints.corr_cholesky)
@transform_to.register(constraints.corr_cholesky)
def _transform_to_corr_cholesky(constraint):
    return transforms.CorrCholeskyTransform()


@biject_to.register(constraints.cat)
def _biject_to_cat(constraint):
    return transforms.CatTransform([biject_to(c) for c in constraint.cseq], constraint.dim,
                                   constraint.lengths)


@transform_to.register(constraints.cat)
def _transform_to_cat(constraint):
    return transforms.CatTransform([transform_to(c) for c in constraint.cseq], constraint.dim,
                                   constraint.lengths)


@biject_to.register(constraints.stack)
def _biject_to_stack(constraint):
    return transforms.StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@transform_to.register(constraints.stack)
def _transform_to_stack(constraint):
    return transforms.StackTransform([transform_to(c) for c in constraint.cseq], constraint.dim)
