#include "kernels/prefetch.h"

#include "kernels/cpu_vendor.h"

namespace gradtrack::kernels {

namespace {

StreamPrefetch& chosen() {
  static StreamPrefetch distances = [] {
#if defined(__x86_64__) && defined(__GNUC__)
    if (cpu_is_amd())
      return __builtin_cpu_supports("avx512f") ? StreamPrefetch{0, 0} : StreamPrefetch{0, 1024};
#endif
    return StreamPrefetch{4096, 4096};
  }();
  return distances;
}

}  // namespace

const StreamPrefetch& stream_prefetch() { return chosen(); }

void set_stream_prefetch(const StreamPrefetch& distances) { chosen() = distances; }

}  // namespace gradtrack::kernels
