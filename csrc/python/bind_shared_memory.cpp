// Storages in shared memory (NOTE [Shared memory] in core/shared_memory.cpp):
// what Tensor.share_memory_ and gradtrack.multiprocessing's reducers call.
#include "core/shared_memory.h"
#include "core/storage.h"
#include "python/common.h"

namespace gradtrack::python {

namespace {

void bind_shared_memory(py::module_& m) {
  m.def(
      "_share_memory", [](const Tensor& t, bool by_name) { share_storage(t->storage(), by_name); },
      py::arg("tensor"), py::arg("by_name"));
  m.def("_is_shared", [](const Tensor& t) { return t->storage()->is_shared(); });
  // (fd, name, nbytes) of a shared tensor's block: fd is -1 for a block shared by name.
  m.def("_shared_handle", [](const Tensor& t) {
    const auto& s = t->storage();
    GT_CHECK(s->is_shared(), "the tensor's storage is not in shared memory");
    return py::make_tuple(s->shared_fd(), s->shared_name(), s->nbytes());
  });
  m.def("_release_shared_names", [] { release_shared_names(); });
  m.def("_shared_add_reference", [](const Tensor& t) { t->storage()->add_shared_reference(); });
  // A tensor over a block another process shared, with the sender's geometry.
  m.def(
      "_from_shared",
      [](int fd, const std::string& name, size_t nbytes, py::handle dtype,
         const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, int64_t offset) {
        const ScalarType st = to_scalar_type(dtype);
        auto storage = open_shared_storage(fd, name, nbytes);
        return Tensor(std::make_shared<TensorImpl>(std::move(storage), DimVector(sizes),
                                                   DimVector(strides), offset, st,
                                                   std::make_shared<VersionCounter>()));
      },
      py::arg("fd"), py::arg("name"), py::arg("nbytes"), py::arg("dtype"), py::arg("size"),
      py::arg("stride"), py::arg("offset"));
}

}  // namespace

void init_shared_memory(py::module_& m) { bind_shared_memory(m); }

}  // namespace gradtrack::python
