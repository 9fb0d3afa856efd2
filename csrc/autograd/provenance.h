// Where the tensors of a failing backward came from.
//
// NOTE [Write provenance]
// PyTorch's "modified by an inplace operation" error never says which write
// broke the graph. gradtrack records, cheaply and by default:
//  * on every graph node, the user's source line of its forward call;
//  * on every version counter, a small ring of the last writes: the op name,
//    the user's source line, and whether it went through a detach() alias or
//    a view.
// A location is an interned id (the Python layer maps the calling frame's code
// object and instruction offset to it), so recording costs a frame walk and
// two hash lookups and no Python objects are kept alive. Errors then carry a
// note, shown after PyTorch's exact message: which node saved the tensor, for
// which call, and each write since. `set_provenance(False)` turns it off.
#pragma once

#include <cstdint>
#include <string>

#include "core/tensor.h"

namespace gradtrack::autograd {

struct Provenance {
  static bool enabled();
  static void set(bool enabled);
};

/// Set by the Python layer: the current user source location (0 if none).
extern uint32_t (*g_capture_location)();
/// Set by the Python layer: "file.py:12" for a location id.
extern std::string (*g_describe_location)(uint32_t location);

inline uint32_t current_location() {
  return Provenance::enabled() && g_capture_location ? g_capture_location() : 0;
}
std::string describe_location(uint32_t location);

/// Interned names of writing ops.
uint16_t intern_label(const std::string& label);
const std::string& label_name(uint16_t id);

/// Records an in-place write through `written` (after its version bump).
/// A label set by ScopedWriteLabel (e.g. "__setitem__") wins over `label`.
void note_write(const Tensor& written, uint16_t label);
void note_write(const Tensor& written, const char* label);

/// How a write reached memory, for notes: 0 directly, 1 a detach() alias, 2 a
/// view, 3 a view(dtype) alias, 4 `.data`, 5 a view of `.data`; and its words.
uint8_t write_via(const Tensor& writer);
const char* via_text(uint8_t via);

/// Names the writes made in a scope after the user-facing operation
/// ("__setitem__", "SGD.step") instead of the primitive that does them.
class ScopedWriteLabel {
 public:
  /// writer_is_base: the write goes through an internal view (setitem); it
  /// is reported as a write of the view's base.
  explicit ScopedWriteLabel(const std::string& label, bool writer_is_base = false);
  ~ScopedWriteLabel();
  ScopedWriteLabel(const ScopedWriteLabel&) = delete;
  ScopedWriteLabel& operator=(const ScopedWriteLabel&) = delete;

 private:
  uint16_t prev_;
  bool prev_base_;
};

/// Sets the label override (0: none) and returns the previous one.
uint16_t swap_write_label(uint16_t label);

class Node;
/// The note for a failed version check of `saved` (saved at `expected`) by `owner`.
std::string version_error_note(const Tensor& saved, const Node& owner, uint32_t expected);
/// The note for a backward through a freed graph.
std::string freed_graph_note(const Node& node);

}  // namespace gradtrack::autograd
