"""``Constraint``, the base class of the constraints, and the two constraints made
of others laid side by side along a dim: ``cat`` (blocks of given lengths, as
``gradtrack.cat`` joins them) and ``stack`` (one slice each, as ``gradtrack.stack``
joins them). ``gradtrack.distributions.constraints`` gathers them with the others.

>>> import gradtrack
>>> from gradtrack.distributions import constraints
>>> c = constraints.cat([constraints.real, constraints.positive], dim=0, lengths=[1, 2])
>>> c, c.check(gradtrack.tensor([-1.0, 2.0, -3.0]))
(Cat(), tensor([ True,  True, False]))
"""

import gradtrack

__all__ = ["Constraint", "cat", "stack"]


class Constraint:
    """A set of values; ``check`` says which entries of a tensor are in it.

    >>> from gradtrack.distributions.constraints import Constraint, real
    >>> isinstance(real, Constraint), real.is_discrete, real.event_dim
    (True, False, 0)
    """

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """A boolean tensor: for each event of ``value``, whether it is in the set.

        >>> import gradtrack
        >>> from gradtrack.distributions.constraints import boolean
        >>> boolean.check(gradtrack.tensor([0.0, 0.5, 1.0]))
        tensor([ True, False,  True])
        """
        raise NotImplementedError

    def __repr__(self):
        # torch names a constraint by its class without the leading underscore
        return type(self).__name__[1:] + "()"


def _check_dim(dim, value):
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for value with {value.dim()} dimensions")


class _Cat(Constraint):
    """The constraints of ``cseq`` applied to consecutive blocks along ``dim``, the
    i-th block ``lengths[i]`` long (1 each when not given).

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> c = constraints.cat([constraints.positive, constraints.unit_interval], -1, [2, 1])
    >>> c.check(gradtrack.tensor([[1.0, 2.0, 0.5], [1.0, -2.0, 1.5]]))
    tensor([[ True,  True,  True],
            [ True, False, False]])
    """

    def __init__(self, cseq, dim=0, lengths=None):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        """Whether any of the constraints is discrete.

        >>> from gradtrack.distributions import constraints
        >>> constraints.cat([constraints.real, constraints.boolean]).is_discrete
        True
        """
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        """The most event dims of the constraints.

        >>> from gradtrack.distributions import constraints
        >>> constraints.cat([constraints.real, constraints.simplex]).event_dim
        1
        """
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        """Each block's check, joined back along ``dim``.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.cat([constraints.positive] * 2, 0, [1, 1]).check(gradtrack.tensor([1.0, 0.0]))
        tensor([ True, False])
        """
        _check_dim(self.dim, value)
        checks = []
        start = 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start = start + length
        return gradtrack.cat(checks, self.dim)


class _Stack(Constraint):
    """The i-th constraint of ``cseq`` applied to the i-th slice along ``dim``.

    >>> import gradtrack
    >>> from gradtrack.distributions import constraints
    >>> c = constraints.stack([constraints.real, constraints.positive], dim=-1)
    >>> c.check(gradtrack.tensor([[-1.0, 2.0], [3.0, -4.0]]))
    tensor([[ True,  True],
            [ True, False]])
    """

    def __init__(self, cseq, dim=0):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        """Whether any of the constraints is discrete.

        >>> from gradtrack.distributions import constraints
        >>> constraints.stack([constraints.real, constraints.positive]).is_discrete
        False
        """
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        """The most event dims of the constraints, one more when the stacking dim,
        counted from the right, falls inside the event.

        >>> from gradtrack.distributions.constraints import real, stack
        >>> stack([real, real], 0).event_dim, stack([real, real], -1).event_dim
        (0, 1)
        """
        dim = max(c.event_dim for c in self.cseq)
        if self.dim + dim < 0:
            dim += 1
        return dim

    def check(self, value):
        """Each slice's check, stacked back along ``dim``.

        >>> import gradtrack
        >>> from gradtrack.distributions import constraints
        >>> constraints.stack([constraints.positive, constraints.real]).check(gradtrack.tensor([-1.0, -1.0]))
        tensor([False,  True])
        """
        _check_dim(self.dim, value)
        slices = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return gradtrack.stack([c.check(v) for v, c in zip(slices, self.cseq)], self.dim)


cat = _Cat
stack = _Stack
