// CUDA graphs, as torch.cuda.CUDAGraph: the kernels and copies queued on a stream between capture_begin and
// capture_end are recorded, not run, and replay() launches them all at once on the current stream. Memory the capture
// allocates comes from a private pool that stays reserved until the graph is reset; random draws in the capture read
// their seed and offset from device memory that each replay advances.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace ember::cuda {

// A memory pool's id (torch's MempoolId_t): {graph's id, 0} for a graph's own pool, {0, handle} from
// graph_pool_handle(); {0, 0}: none.
using MempoolId = std::pair<uint64_t, uint64_t>;
// An id for a pool that graphs may share (pass it to capture_begin of each).
MempoolId graph_pool_handle();
// Whether the current stream of the current device is capturing a graph.
bool is_current_stream_capturing();

// cudaStreamCaptureMode: which threads may not make calls that are unsafe during a capture.
enum class CaptureErrorMode { Global, ThreadLocal, Relaxed };

class CudaGraphBackend;

class CUDAGraph {
 public:
  // keep_graph: keep the captured cudaGraph_t, instantiating it at instantiate() or the first replay.
  explicit CUDAGraph(bool keep_graph = false);
  ~CUDAGraph();
  CUDAGraph(const CUDAGraph&) = delete;
  CUDAGraph& operator=(const CUDAGraph&) = delete;

  // Begins capturing the current stream's work (not the default stream); `pool` shares another graph's pool.
  void capture_begin(MempoolId pool = {0, 0}, CaptureErrorMode mode = CaptureErrorMode::Global);
  void capture_end();
  void instantiate();
  void replay();
  // Drops the graph and releases its pool (its memory returns to the cache once no graph uses the pool).
  void reset();
  MempoolId pool() const;
  void enable_debug_mode();
  // Writes the captured graph as Graphviz DOT (needs enable_debug_mode before capture_end).
  void debug_dump(const std::string& path);

 private:
  std::unique_ptr<CudaGraphBackend> impl_;
};

}  // namespace ember::cuda
