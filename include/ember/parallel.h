// One process-wide thread pool. parallel_for splits [begin, end) into contiguous chunks,
// runs them on the pool's workers and the calling thread, and returns when all are done.
#pragma once
#include <cstdint>
#include <functional>

namespace ember {

int get_num_threads();
void set_num_threads(int n);

// fn(chunk_begin, chunk_end). Runs inline when the range is below `grain`, already inside a worker,
// or when another thread's job holds the pool. A range above `grain` runs without the binding's lock.
void parallel_for(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& fn);

// How a language binding lets long kernels run without its interpreter lock (Python's GIL):
// release() gives the lock up when the calling thread holds it and returns a token (null when it
// did not), restore(token) takes it back.
struct UnlockHooks {
  void* (*release)() = nullptr;
  void (*restore)(void*) = nullptr;
};
void set_unlock_hooks(UnlockHooks hooks);

// Elements of simple work (a copy, a fill) above which giving up the binding's lock (~0.1 us) pays.
inline constexpr int64_t kUnlockElements = 32768;

// Runs the enclosing scope without the binding's lock when `long_running`. Only pure computation
// may run in that scope: no callbacks into the binding, no freeing of objects the binding owns.
class Unlocked {
 public:
  explicit Unlocked(bool long_running);
  ~Unlocked();
  Unlocked(const Unlocked&) = delete;
  Unlocked& operator=(const Unlocked&) = delete;

 private:
  void* token_ = nullptr;
};

}  // namespace ember

namespace ember {

// Float32 FMA throughput of all pool threads over about `seconds`, in GFLOP/s (the GEMM roofline).
double measured_fma_peak_gflops(double seconds = 0.2);

}  // namespace ember
