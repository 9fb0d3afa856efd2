"""Docstrings of random numbers: the generator, seeds and state, the random factories and
fills (``random.py``).

``FUNCTIONS`` documents ``gradtrack.NAME``, ``METHODS`` ``Tensor.NAME``.
"""

FUNCTIONS = {
    "Generator": """A random number generator with a state of its own (torch's mt19937).

    >>> g = gradtrack.Generator().manual_seed(42)
    >>> gradtrack.randint(0, 10, (5,), generator=g)
    tensor([2, 7, 6, 4, 6])
    """,
    "rand": """Numbers drawn uniformly from [0, 1), in the given shape.

    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.rand(2, 2)
    tensor([[0.4963, 0.7682],
            [0.0885, 0.1320]])
    """,
    "randn": """Numbers drawn from the standard normal distribution, in the given shape.

    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.randn(3)
    tensor([ 1.5410, -0.2934, -2.1788])
    """,
    "randint": """Integers drawn uniformly from [``low``, ``high``), in the shape ``size``.

    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.randint(0, 10, (2, 3))
    tensor([[4, 9, 3],
            [0, 3, 9]])
    """,
    "randperm": """A random order of the integers 0 to ``n - 1``.

    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.randperm(5)
    tensor([4, 0, 1, 3, 2])
    """,
    "seed": """
    >>> s = gradtrack.seed()
    >>> gradtrack.initial_seed() == s
    True
    """,
    "initial_seed": """
    >>> _ = gradtrack.manual_seed(7)
    >>> gradtrack.initial_seed()
    7
    """,
    "get_rng_state": """
    >>> _ = gradtrack.manual_seed(0)
    >>> state = gradtrack.get_rng_state()
    >>> a = gradtrack.rand(2)
    >>> gradtrack.set_rng_state(state)
    >>> gradtrack.equal(gradtrack.rand(2), a)
    True
    """,
    "set_rng_state": """
    >>> state = gradtrack.get_rng_state()
    >>> a = gradtrack.randn(3)
    >>> gradtrack.set_rng_state(state)
    >>> gradtrack.equal(gradtrack.randn(3), a)
    True
    """,
}

METHODS = {
    "bernoulli": """0/1 draws, 1 with the probability in each element (or ``p``).

    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.tensor([0.0, 0.5, 1.0]).bernoulli()
    tensor([0., 0., 1.])
    """,
    "bernoulli_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.zeros(4).bernoulli_(0.5)
    tensor([0., 0., 1., 0.])
    """,
    "multinomial": """``num_samples`` indices drawn by the weights in this tensor.

    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.tensor([0.0, 1.0, 3.0]).multinomial(4, replacement=True)
    tensor([2, 2, 2, 2])
    """,
    "uniform_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.empty(3).uniform_(-1, 1)
    tensor([-0.0075,  0.5364, -0.8230])
    """,
    "normal_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.empty(3).normal_(mean=10.0, std=0.1)
    tensor([10.1541,  9.9707,  9.7821])
    """,
    "random_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.empty(4).random_(0, 5)
    tensor([4., 4., 3., 0.])
    """,
    "exponential_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.empty(3).exponential_(lambd=2.0)
    tensor([1.7542, 0.6152, 0.3075])
    """,
    "geometric_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.empty(3).geometric_(0.5)
    tensor([1., 1., 2.])
    """,
    "log_normal_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.empty(3).log_normal_()
    tensor([5.9263e+01, 1.5116e+00, 3.4819e-02])
    """,
    "cauchy_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.empty(3).cauchy_()
    tensor([10.5977,  0.7648, -0.1283])
    """,
}
