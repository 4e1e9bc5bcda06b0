// One process-wide thread pool. parallel_for splits [begin, end) into contiguous chunks,
// runs them on the pool's workers and the calling thread, and returns when all are done.
#pragma once
#include <cstdint>
#include <functional>

namespace ember {

int get_num_threads();
void set_num_threads(int n);

// fn(chunk_begin, chunk_end). Runs inline when the range is below `grain` or already inside a worker.
void parallel_for(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& fn);

}  // namespace ember

namespace ember {

// Float32 FMA throughput of all pool threads over about `seconds`, in GFLOP/s (the GEMM roofline).
double measured_fma_peak_gflops(double seconds = 0.2);

}  // namespace ember
