// Multi-tensor apply: one launch runs an update functor over many tensors. The host lists each tensor (its
// streams, size and functor) and its chunks of kTensorChunk elements; both tables go to the device in one copy,
// and each block takes a chunk (grid-stride over the chunks), its threads striding over the chunk's elements.
#pragma once
#include <cstring>
#include <type_traits>

#include "../graph.h"
#include "../runtime.h"
#include "ember/creation.h"
#include "optim.h"

namespace ember::cuda_backend {

constexpr int64_t kTensorChunk = 1 << 16;

template <typename F>
struct TensorEntry {
  typename F::Elem* data[5];  // param, grad, state streams a, b, c
  int64_t numel;
  F f;
};
struct ChunkEntry {
  int64_t tensor, begin;
};

template <typename F>
__global__ void multi_tensor_kernel(const TensorEntry<F>* tensors, const ChunkEntry* chunks, int64_t n_chunks) {
  for (int64_t c = blockIdx.x; c < n_chunks; c += gridDim.x) {
    const ChunkEntry chunk = chunks[c];
    const TensorEntry<F> t = tensors[chunk.tensor];  // in registers for the loop
    const int64_t end = chunk.begin + kTensorChunk < t.numel ? chunk.begin + kTensorChunk : t.numel;
    for (int64_t k = chunk.begin + threadIdx.x; k < end; k += blockDim.x)
      t.f(k, t.data[0], t.data[1], t.data[2], t.data[3], t.data[4]);
  }
}

// Uploads the tables of `tensors` and their chunks and launches the update over them on the current stream; returns
// the device's copy of `tensors` (null when there is no element), which `keep` holds: freed at the caller's return,
// the allocator hands it out again only to work queued after the caller's launches on the stream.
template <typename F>
const TensorEntry<F>* launch_entries(const std::vector<TensorEntry<F>>& tensors, Device device, Tensor& keep) {
  std::vector<ChunkEntry> chunks;
  for (size_t i = 0; i < tensors.size(); ++i)
    for (int64_t b = 0; b < tensors[i].numel; b += kTensorChunk) chunks.push_back({int64_t(i), b});
  if (chunks.empty()) return nullptr;
  static_assert(std::is_trivially_copyable_v<TensorEntry<F>>);
  const size_t table_bytes = (tensors.size() * sizeof(TensorEntry<F>) + 15) / 16 * 16;
  const size_t bytes = table_bytes + chunks.size() * sizeof(ChunkEntry);
  // Under a graph capture the copy is recorded and runs at each replay: its source is pinned memory the graph keeps.
  std::vector<char> pageable;
  char* host = nullptr;
  if (is_capturing(current_stream())) {
    host = static_cast<char*>(capture_host_buffer(current_stream(), bytes));
  } else {
    pageable.resize(bytes);
    host = pageable.data();
  }
  std::memcpy(host, tensors.data(), tensors.size() * sizeof(TensorEntry<F>));
  std::memcpy(host + table_bytes, chunks.data(), chunks.size() * sizeof(ChunkEntry));
  keep = empty({int64_t(bytes)}, TensorOptions(kUInt8).with_device(device));
  char* dev = static_cast<char*>(keep.data_ptr());
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, current_stream()));
  const int64_t n = int64_t(chunks.size());
  const unsigned grid = unsigned(n < (1 << 30) ? n : (1 << 30));
  multi_tensor_kernel<F><<<grid, kBlockThreads, 0, current_stream()>>>(
      reinterpret_cast<const TensorEntry<F>*>(dev), reinterpret_cast<const ChunkEntry*>(dev + table_bytes), n);
  EMBER_CUDA_LAUNCH();
  return reinterpret_cast<const TensorEntry<F>*>(dev);
}

// Builds the tables of functor type F for `members` and launches on the current stream.
template <typename F, typename Step>
void launch_tables(const Step& update, const OptimStep& step, const std::vector<size_t>& members) {
  using T = typename F::Elem;
  std::vector<TensorEntry<F>> tensors;
  for (size_t i : members) {
    const OptimTensor& t = step.tensors[i];
    if (t.numel == 0) continue;
    TensorEntry<F> e{{}, t.numel, update.template make<F>(t.scalars)};
    for (size_t j = 0; j < 5; ++j) e.data[j] = static_cast<T*>(t.data[j]);
    tensors.push_back(e);
  }
  Tensor keep;
  launch_entries(tensors, step.device, keep);
}

template <typename Step>
void launch_update(const Step& update, const OptimStep& step, const std::vector<size_t>& members) {
  const OptimTensor& first = step.tensors[members.front()];
  auto launch = [&]<typename T>(T) {
    update.template visit_types<T>(first.scalars,
                                   [&]<typename F>(std::type_identity<F>) { launch_tables<F>(update, step, members); });
  };
  if (first.dtype == kFloat32) launch(float{});
  else launch(double{});
}

}  // namespace ember::cuda_backend
