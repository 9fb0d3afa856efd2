#include "autograd/profiling.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <mutex>
#include <utility>

#include "autograd/profiling_fit.h"
#include "core/allocation_count.h"

namespace gradtrack::autograd::profiling {

std::atomic<bool> g_active{false};
thread_local bool t_engine_fits = false;

namespace {
std::mutex g_mutex;
std::vector<Event> g_events;
std::atomic<bool> g_record_shapes{false};

// The Scopes open on this thread, innermost last.
struct Open {
  const char* name;
  int64_t start_ns;
  int64_t memory;
  std::vector<std::vector<int64_t>> shapes;
};
thread_local std::vector<Open> t_open;
}  // namespace

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int64_t thread_id() {
  thread_local const int64_t id = static_cast<int64_t>(syscall(SYS_gettid));
  return id;
}

void start(bool record_shapes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_events.clear();
  g_record_shapes.store(record_shapes);
  g_active.store(true);
}

std::vector<Event> stop() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_active.store(false);
  return std::exchange(g_events, {});
}

bool recording_shapes() { return g_record_shapes.load(std::memory_order_relaxed); }

void record(std::string name, int64_t start_ns, int64_t end_ns,
            std::vector<std::vector<int64_t>> shapes, int64_t memory) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_active.load()) return;
  g_events.push_back(
      Event{std::move(name), start_ns, end_ns, thread_id(), std::move(shapes), memory});
}

void Scope::begin(const char* name, std::initializer_list<const Tensor*> inputs, int arity) {
  Open open{name, 0, allocation_count::bytes(), {}};
  if (recording_shapes()) {
    for (const Tensor* t : inputs) {
      if (t != nullptr && t->defined())
        open.shapes.emplace_back(t->sizes().begin(), t->sizes().end());
      else
        open.shapes.emplace_back();
    }
    while (static_cast<int>(open.shapes.size()) < arity) open.shapes.emplace_back();
  }
  open.start_ns = now_ns();
  t_open.push_back(std::move(open));
}

void Scope::begin_with(const char* name, std::vector<std::vector<int64_t>> shapes) {
  Open open{name, 0, allocation_count::bytes(), std::move(shapes)};
  open.start_ns = now_ns();
  t_open.push_back(std::move(open));
}

void Scope::end() {
  if (t_open.empty()) return;
  const int64_t end_ns = now_ns();
  Open open = std::move(t_open.back());
  t_open.pop_back();
  record(open.name, open.start_ns, end_ns, std::move(open.shapes),
         allocation_count::bytes() - open.memory);
}

}  // namespace gradtrack::autograd::profiling
