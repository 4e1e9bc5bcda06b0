// CUDA graphs (see include/ember/cuda_graph.h). A capture registers its stream with the allocator (allocations there
// come from the graph's private pool) and with the default generator (random draws there read {seed, offset} from
// the graph's device buffer); each replay writes that buffer from the generator, advancing it by what the capture
// drew, then launches the graph.
#include "graph.h"

#include <atomic>
#include <map>
#include <mutex>
#include <vector>

#include "../dispatch/random_kernels.h"
#include "allocator.h"
#include "ember/creation.h"
#include "random.h"
#include "runtime.h"

namespace ember::cuda_backend {

bool is_capturing(cudaStream_t stream) {
  if (!stream) return false;  // the legacy default stream cannot capture
  cudaStreamCaptureStatus status;
  EMBER_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

RelaxedCaptureMode::RelaxedCaptureMode() : previous_(cudaStreamCaptureModeRelaxed) {
  cudaThreadExchangeStreamCaptureMode(&previous_);
}
RelaxedCaptureMode::~RelaxedCaptureMode() { cudaThreadExchangeStreamCaptureMode(&previous_); }

namespace {

constexpr cuda::MempoolId kNoPool{0, 0};
std::atomic<uint64_t> g_next_id{1};  // graphs' own pools {id, 0} and handles {0, id}

struct PinnedFree {
  void operator()(void* p) const {
    RelaxedCaptureMode relaxed;
    cudaFreeHost(p);
  }
};

class Graph;
// Graphs capturing now, by capture id.
std::mutex g_mutex;
std::map<unsigned long long, Graph*> g_capturing;

cudaStreamCaptureMode capture_mode(cuda::CaptureErrorMode mode) {
  switch (mode) {
    case cuda::CaptureErrorMode::ThreadLocal: return cudaStreamCaptureModeThreadLocal;
    case cuda::CaptureErrorMode::Relaxed: return cudaStreamCaptureModeRelaxed;
    default: return cudaStreamCaptureModeGlobal;
  }
}

class Graph final : public cuda::CudaGraphBackend {
 public:
  explicit Graph(bool keep_graph) : keep_graph_(keep_graph) {}
  ~Graph() override {
    try {
      reset();
    } catch (...) {  // a destructor must not throw; the driver reports the error again on the next call
    }
  }

  void capture_begin(cuda::MempoolId pool, cuda::CaptureErrorMode mode) override {
    EMBER_CHECK(!capturing_ && !captured_, Error, "This CUDAGraph instance already owns a captured graph. To capture "
                "a new graph, create a new instance.");
    reset();  // what a failed capture left: its pool and buffers
    device_ = current_device();
    stream_ = current_stream(device_);
    EMBER_CHECK(stream_ != nullptr, Error, "CUDA graphs must be captured on a non-default stream. (However, after "
                "capture, it's ok to replay them on the default stream.)");
    EMBER_CHECK(pool == kNoPool || (pool.first == 0) != (pool.second == 0), Error,
                "CUDAGraph: invalid memory pool id (", pool.first, ", ", pool.second, ")");
    // Before the capture starts, so that it is a plain allocation and its write is not recorded.
    philox_args_ = empty({2}, TensorOptions(kInt64).with_device(Device(DeviceType::CUDA, int8_t(device_))));
    pool_ = pool == kNoPool ? cuda::MempoolId{g_next_id++, 0} : pool;
    begin_random_capture(device_, handle(), args());
    cudaError_t err = cudaStreamBeginCapture(stream_, capture_mode(mode));
    if (err != cudaSuccess) {
      end_random_capture(device_, handle());
      EMBER_CUDA_CHECK(err);
    }
    cudaStreamCaptureStatus status;
    EMBER_CUDA_CHECK(cudaStreamGetCaptureInfo(stream_, &status, &capture_id_));
    begin_pool_capture(device_, pool_, capture_id_);
    pool_held_ = true;
    capturing_ = true;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_capturing[capture_id_] = this;
  }

  void capture_end() override {
    EMBER_CHECK(capturing_, Error, "Called CUDAGraph::capture_end without a preceding capture_begin.");
    EMBER_CHECK(current_stream(device_) == stream_, Error, "Capture must end on the same stream it began on.");
    DeviceGuard guard(device_);
    cudaGraph_t graph = nullptr;
    cudaError_t err = cudaStreamEndCapture(stream_, &graph);
    // The capture is over whatever the result: the allocator and the generator stop routing to it.
    capturing_ = false;
    end_pool_capture(device_, capture_id_);
    random_offsets_ = end_random_capture(device_, handle());
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      g_capturing.erase(capture_id_);
    }
    if (err != cudaSuccess && graph) cudaGraphDestroy(graph);
    EMBER_CUDA_CHECK(err);
    graph_ = graph;
    captured_ = true;
    if (!keep_graph_) {
      instantiate();
      if (!debug_) {  // debug_dump reads the graph
        cudaGraphDestroy(graph_);
        graph_ = nullptr;
      }
    }
  }

  void instantiate() override {
    EMBER_CHECK(captured_ && graph_, Error, "Called CUDAGraph::instantiate without a preceding successful capture.");
    DeviceGuard guard(device_);
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
    EMBER_CUDA_CHECK(cudaGraphInstantiateWithFlags(&exec_, graph_, 0));
  }

  void replay() override {
    EMBER_CHECK(captured_, Error, "Called CUDAGraph::replay without a preceding successful capture.");
    if (!exec_) instantiate();
    DeviceGuard guard(device_);
    cudaStream_t stream = current_stream(device_);
    if (random_offsets_ > 0) {  // this replay's draws: the generator's next offsets, as eager draws would take
      auto [seed, offset] = reserve_device_offsets(random_offsets_);
      write_philox_args(args(), seed, offset, stream);
    }
    EMBER_CUDA_CHECK(cudaGraphLaunch(exec_, stream));
  }

  void reset() override {
    if (device_ < 0) return;
    DeviceGuard guard(device_);
    if (capturing_) {  // abandon the capture
      cudaGraph_t graph = nullptr;
      cudaStreamEndCapture(stream_, &graph);
      cudaGetLastError();
      if (graph) cudaGraphDestroy(graph);
      capturing_ = false;
      end_pool_capture(device_, capture_id_);
      end_random_capture(device_, handle());
      std::lock_guard<std::mutex> lock(g_mutex);
      g_capturing.erase(capture_id_);
    }
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
    exec_ = nullptr;
    graph_ = nullptr;
    captured_ = false;
    random_offsets_ = 0;
    host_buffers_.clear();
    philox_args_ = Tensor();
    if (pool_held_) release_pool(device_, pool_);
    pool_held_ = false;
  }

  cuda::MempoolId pool() const override {
    EMBER_CHECK(pool_ != kNoPool, Error,
                "Called CUDAGraph::pool() without a preceding successful capture.");
    return pool_;
  }

  void enable_debug_mode() override { debug_ = true; }
  void debug_dump(const std::string& path) override {
    EMBER_CHECK(debug_ && graph_, Error, "CUDAGraph::debug_dump: no graph to dump; call enable_debug_mode() before "
                "capture_end");
    EMBER_CUDA_CHECK(cudaGraphDebugDotPrint(graph_, path.c_str(), cudaGraphDebugDotFlagsVerbose));
  }

  void* host_buffer(size_t n) {
    void* p = nullptr;
    {
      RelaxedCaptureMode relaxed;
      EMBER_CUDA_CHECK(cudaHostAlloc(&p, n ? n : 1, cudaHostAllocDefault));
    }
    host_buffers_.emplace_back(p);
    return p;
  }

 private:
  uintptr_t handle() const { return reinterpret_cast<uintptr_t>(stream_); }
  uint64_t* args() const { return static_cast<uint64_t*>(philox_args_.data_ptr()); }

  bool keep_graph_, debug_ = false;
  bool capturing_ = false, captured_ = false, pool_held_ = false;
  int device_ = -1;
  cudaStream_t stream_ = nullptr;
  unsigned long long capture_id_ = 0;
  cuda::MempoolId pool_ = kNoPool;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  Tensor philox_args_;          // {seed, base offset} of the replay's random draws, on the device
  uint64_t random_offsets_ = 0;  // how many offsets the capture's draws take
  std::vector<std::unique_ptr<void, PinnedFree>> host_buffers_;
};

}  // namespace

void* capture_host_buffer(cudaStream_t stream, size_t n) {
  cudaStreamCaptureStatus status;
  unsigned long long id = 0;
  EMBER_CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &status, &id));
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_capturing.find(id);
  EMBER_CHECK(status == cudaStreamCaptureStatusActive && it != g_capturing.end(), Error,
              "a host buffer for a capture was asked for on a stream that is not capturing an Ember CUDAGraph");
  return it->second->host_buffer(n);
}

std::unique_ptr<cuda::CudaGraphBackend> make_graph(bool keep_graph) { return std::make_unique<Graph>(keep_graph); }
cuda::MempoolId new_pool_handle() { return {0, g_next_id++}; }

}  // namespace ember::cuda_backend
