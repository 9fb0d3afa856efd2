#include "autograd/profiling.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <mutex>
#include <utility>

namespace gradtrack::autograd::profiling {

std::atomic<bool> g_active{false};

namespace {
std::mutex g_mutex;
std::vector<Event> g_events;
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

void start() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_events.clear();
  g_active.store(true);
}

std::vector<Event> stop() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_active.store(false);
  return std::exchange(g_events, {});
}

void record(std::string name, int64_t start_ns, int64_t end_ns,
            std::vector<std::vector<int64_t>> shapes, int64_t memory) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_active.load()) return;
  g_events.push_back(
      Event{std::move(name), start_ns, end_ns, thread_id(), std::move(shapes), memory});
}

}  // namespace gradtrack::autograd::profiling
