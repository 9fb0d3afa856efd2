// Timings for gradtrack.profiler: while a profile is open, the engine records every node
// it runs (name, start, end, thread, the shapes of the gradients it received) and the
// C++ ops record the steps a composite op or a backward formula takes (Scope); the
// profiler collects them when it closes. The public ops are timed in Python
// (NOTE [What the profiler times] in gradtrack/autograd/profiler.py).
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace gradtrack::autograd::profiling {

struct Event {
  std::string name;
  int64_t start_ns;
  int64_t end_ns;
  int64_t thread;
  std::vector<std::vector<int64_t>> shapes;
  int64_t memory;  // bytes allocated less bytes freed inside (with profile_memory)
};

extern std::atomic<bool> g_active;
inline bool active() { return g_active.load(std::memory_order_relaxed); }
/// The monotonic clock Python's time.perf_counter_ns() reads.
int64_t now_ns();
/// The OS thread id (Python's threading.get_native_id()).
int64_t thread_id();
void start(bool record_shapes = false);
std::vector<Event> stop();
/// Whether the open profile records input shapes.
bool recording_shapes();
void record(std::string name, int64_t start_ns, int64_t end_ns,
            std::vector<std::vector<int64_t>> shapes = {}, int64_t memory = 0);

// NOTE [Inner profiler events]
// torch's profiler shows the ops a composite op or a backward formula calls as events
// inside it (aten::linear > aten::t, aten::addmm; AddmmBackward0 > aten::t, aten::mm).
// gradtrack's composites and formulas call its C++ ops, which Python's timers cannot
// see: a Scope at the top of such an op records it, named as torch's, with the shapes of
// its tensor inputs followed by [] up to the `arity` of torch's schema. With no profile
// open a Scope is one relaxed load and a branch; the ops on the elementwise fast path
// (add, mul...) have none. Events nest by time, so a Scope inside a Python timer of the
// same name is merged into it when the profile closes.
class Scope {
 public:
  Scope(const char* name, std::initializer_list<const Tensor*> inputs = {}, int arity = 0)
      : on_(active()) {
    if (__builtin_expect(on_, 0)) begin(name, inputs, arity);
  }
  ~Scope() {
    if (__builtin_expect(on_, 0)) end();
  }
  /// Input shapes that are not a tensor's (a node's saved metadata): `shapes()` is called
  /// only when the open profile records shapes.
  template <typename Shapes>
  Scope(const char* name, Shapes shapes) : on_(active()) {
    if (__builtin_expect(on_, 0))
      begin_with(name, recording_shapes() ? shapes() : std::vector<std::vector<int64_t>>{});
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  static void begin(const char* name, std::initializer_list<const Tensor*> inputs, int arity);
  static void begin_with(const char* name, std::vector<std::vector<int64_t>> shapes);
  static void end();
  bool on_;
};

}  // namespace gradtrack::autograd::profiling
