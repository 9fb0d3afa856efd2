#include "kernels/parallel.h"

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
}  // namespace

GilHooks g_gil;

int get_num_threads() { return g_threads; }

void set_num_threads(int n) {
  g_threads = n < 1 ? 1 : n;
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
