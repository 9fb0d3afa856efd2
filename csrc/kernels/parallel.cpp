#include "kernels/parallel.h"

#include <pthread.h>

#include <atomic>
#include <thread>

namespace gradtrack {

namespace {
int initial_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}
int g_threads = initial_threads();

// NOTE [Forking after the pool started]
// GNU OpenMP keeps its worker threads parked after a region and reuses them
// in the next one. fork() copies only the calling thread, so a child forked
// after a parallel region would wait forever for parked threads that do not
// exist (libgomp cannot be reset, and torch's OpenMP build hangs there). A
// fork handler therefore gives such a child one thread: its kernels run
// serially on the calling thread, never entering an OpenMP region, and
// set_num_threads cannot raise the count again in that process. A child
// forked before any kernel asked for several threads keeps its count.
std::atomic<bool> g_pool_used{false};
bool g_pool_lost = false;

void lose_pool_in_child() {
  if (g_pool_used.load(std::memory_order_relaxed)) {
    g_pool_lost = true;
    g_threads = 1;
  }
}

const bool g_fork_handler = pthread_atfork(nullptr, nullptr, lose_pool_in_child) == 0;
}  // namespace

GilHooks g_gil;

int get_num_threads() {
  // Every parallel region asks here first (NOTE [Forking after the pool started]).
  if (g_threads > 1 && !g_pool_used.load(std::memory_order_relaxed))
    g_pool_used.store(true, std::memory_order_relaxed);
  return g_threads;
}

void set_num_threads(int n) {
  g_threads = n < 1 || g_pool_lost ? 1 : n;
#ifdef _OPENMP
  omp_set_num_threads(g_threads);
#endif
}

bool in_parallel_region() {
#ifdef _OPENMP
  return omp_in_parallel();
#else
  return false;
#endif
}

}  // namespace gradtrack
