"""torch's words where shapes do not fit: broadcasting names the rightmost clash (torch
compares from the last dim), and take_along_dim, cartesian_prod/meshgrid and index_fill
check their arguments in torch's order."""

import pytest

from helpers import same

CLASHES = [((3, 4), (2, 5)), ((3, 4), (2, 4)), ((2, 3, 4), (5, 1, 6)), ((3, 4), (4, 3, 5))]


@pytest.mark.parametrize("shapes", CLASHES)
def test_cosine_similarity_names_the_rightmost_clash(shapes):
    same(lambda lib: lib.nn.functional.cosine_similarity(lib.zeros(shapes[0]),
                                                         lib.zeros(shapes[1])))


@pytest.mark.parametrize("shapes", CLASHES + [((3, 1), (1, 4), (2, 5)), ((3, 4), (4,), (2, 5))])
def test_broadcast_tensors_names_the_rightmost_clash(shapes):
    same(lambda lib: lib.broadcast_tensors(*[lib.zeros(s) for s in shapes]))


@pytest.mark.parametrize("index, dim", [
    ([[0, 1]], 0), ([[0], [1]], 1), ([0, 1], 0), ([[[0]], [[1]]], 1), ([[0, 1]], 2),
    ([[0.0]], 0), ([[0.0]], None), ([[0]], None), ([[1, 0]], 1)])
def test_take_along_dim_checks_in_torch_s_order(index, dim):
    same(lambda lib: lib.take_along_dim(lib.arange(12.0).reshape(3, 4), lib.tensor(index), dim))


def test_take_along_dim_broadcasts_the_other_dims():
    same(lambda lib: lib.take_along_dim(lib.arange(24.0).reshape(2, 3, 4),
                                        lib.zeros(2, 1, 1, dtype=lib.long), dim=1))


@pytest.mark.parametrize("shapes", [[(3, 4), (3, 4)], [(3, 4)], [(3,), (3, 4)], [()], [(), (3,)],
                                    [(3,)], [], [(2, 3, 4)]])
def test_cartesian_prod_wants_1d_vectors(shapes):
    same(lambda lib: lib.cartesian_prod(*[lib.zeros(s) for s in shapes]))


def test_cartesian_prod_wants_one_dtype():
    same(lambda lib: lib.cartesian_prod(lib.arange(3.0), lib.arange(2)))
    same(lambda lib: lib.cartesian_prod(lib.arange(2), lib.zeros(3, 4)))


def test_cartesian_prod_of_one_vector_is_that_vector():
    def scenario(lib):
        v = lib.arange(3.0)
        return lib.cartesian_prod(v) is v
    same(scenario)


MESHGRIDS = {
    "empty": lambda lib: lib.meshgrid(indexing="ij"),
    "empty, bad indexing": lambda lib: lib.meshgrid(indexing="bad"),
    "dtypes before indexing": lambda lib: lib.meshgrid(lib.zeros(3), lib.arange(2),
                                                        indexing="bad"),
    "dtypes before dims": lambda lib: lib.meshgrid(lib.arange(2), lib.zeros(2, 2),
                                                   indexing="ij"),
    "indexing before dims": lambda lib: lib.meshgrid(lib.zeros(2, 2), indexing="bad"),
}


@pytest.mark.parametrize("case", sorted(MESHGRIDS))
def test_meshgrid_checks_in_torch_s_order(case):
    same(MESHGRIDS[case])


@pytest.mark.parametrize("form", ["function", "method", "inplace"])
def test_index_fill_with_a_2d_index_raises_runtime_error(form):
    def scenario(lib):
        a, index = lib.zeros(3, 4), lib.tensor([[0]])
        if form == "function":
            return lib.index_fill(a, 0, index, 1.0)
        if form == "method":
            return a.index_fill(0, index, lib.tensor(1.0))
        return a.index_fill_(0, index, 1.0)
    same(scenario)


@pytest.mark.parametrize("index", [[[0.0]], [0.0], [[7]]])
def test_index_fill_checks_the_index_dtype_first(index):
    # (a float index: IndexError in torch too; its dims are checked after its dtype)
    same(lambda lib: lib.zeros(3, 4).index_fill(0, lib.tensor(index), 1.0)
         if index != [[7]] else lib.zeros(3, 4).index_fill(5, lib.tensor(index), 1.0))
