"""What a benchmark case is (``Case``, its ``Point``s and ``Variant``s), the list every
case joins (``CASES``, in registration order) and ``seed``.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Point:
    """One size (or setting) a case runs at."""

    label: str  # shown in the "size" column, e.g. "16M"
    value: object = None  # handed to setup(); must be plain data
    detail: str = ""  # e.g. "4096x4096 float32", for the JSON


@dataclass
class Variant:
    """An extra configuration of a case, compared with the default one.

    The harness runs the variant next to the default configuration of each
    library listed in ``libs`` (all libraries when ``None``), in the same
    alternation, and reports its time relative to that default.

    ``options`` go to ``setup`` as keyword arguments.  A variant that needs
    process-wide state (an environment variable read at import, a global
    switch) sets ``isolated=True`` or ``env``: it then gets a worker process
    of its own, started with ``env`` added to the environment.
    """

    name: str
    options: dict = field(default_factory=dict)
    libs: tuple = None
    env: dict = field(default_factory=dict)
    isolated: bool = False
    description: str = ""
    points: tuple = None  # labels of the points it runs at; None: all

    def runs_at(self, point):
        return self.points is None or point.label in self.points

    @property
    def own_process(self):
        """True when this variant must not share its library's worker."""
        return self.isolated or bool(self.env)


@dataclass
class Case:
    """A benchmark: what it measures, at which points, and how."""

    id: str
    group: str
    title: str
    points: tuple
    setup: object = None  # timed cases: setup(T, value, **options)
    probe: str = None  # probe cases: "import", "peak_rss" or "activation_memory"
    metric: str = None  # probe cases: which number of the probe
    unit: str = "s"  # "s" (per iteration) or "B" (bytes)
    variants: tuple = ()

    @property
    def timed(self):
        return self.setup is not None

    def point(self, label):
        for p in self.points:
            if p.label == label:
                return p
        raise KeyError(f"case {self.id!r} has no point {label!r}")


CASES = []


def timed_case(case_id, group, title, points, variants=()):
    """Register the decorated setup function as a timed case."""

    def register(setup):
        CASES.append(Case(case_id, group, title, tuple(points), setup=setup,
                          variants=tuple(variants)))
        return setup

    return register


def by_id(case_id):
    """The case called ``case_id`` (KeyError if there is none)."""
    for case in CASES:
        if case.id == case_id:
            return case
    raise KeyError(case_id)


def seed(T):
    """Seed the library's RNG so inputs are reproducible.

    Random values never change the timings of these cases, so a library that
    lacks ``manual_seed`` is simply left unseeded rather than failing.
    """
    manual_seed = getattr(T, "manual_seed", None)
    if manual_seed is not None:
        manual_seed(0)
