// Backward timings for gradtrack.profiler: while a profile is open, the engine records
// every node it runs (name, start, end, thread, the shapes of the gradients it received),
// and the profiler collects them when it closes. The forward ops are timed in Python
// (NOTE [What the profiler times] in gradtrack/autograd/profiler.py).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

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
void start();
std::vector<Event> stop();
void record(std::string name, int64_t start_ns, int64_t end_ns,
            std::vector<std::vector<int64_t>> shapes = {}, int64_t memory = 0);

}  // namespace gradtrack::autograd::profiling
