// Finds and loads the CUDA backend (libember_cuda.so, beside libember.so) the first time a CUDA device
// is asked for, and answers the ember::cuda queries through its hooks.
#include "cuda_hooks.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>

#include "ember/errors.h"
#include "ember/tensor.h"
#include "ember/str.h"

namespace ember {

namespace {

std::atomic<const CudaHooks*> g_hooks{nullptr};
std::string g_load_error;
std::atomic<bool> g_matmul_tf32{false};  // the TF32 switch until the backend loads

// The directory this library was loaded from.
std::string library_dir() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(&library_dir), &info) || !info.dli_fname) return "";
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

void load_backend() {
  std::string path = library_dir() + "libember_cuda.so";
  // The backend registers itself from its static initialisers; RTLD_NODELETE keeps it for the process.
  if (!dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) {
    const char* err = dlerror();
    g_load_error = str("Ember's CUDA backend could not be loaded (", err ? err : path, ")");
  } else if (!g_hooks.load()) {
    g_load_error = str("Ember's CUDA backend loaded from ", path, " but did not register itself");
  }
}

}  // namespace

void register_cuda_hooks(const CudaHooks* hooks) {
  hooks->set_allow_tf32(g_matmul_tf32.load());
  g_hooks.store(hooks);
}

const CudaHooks* cuda_hooks() {
  static std::once_flag once;
  std::call_once(once, load_backend);
  return g_hooks.load();
}

const CudaHooks* loaded_cuda_hooks() { return g_hooks.load(); }

std::string cuda_unavailable_reason() {
  const CudaHooks* hooks = cuda_hooks();
  if (!hooks) return g_load_error;
  if (hooks->device_count() == 0) return "no CUDA GPU is visible to this process (or its driver is missing)";
  return "";
}

const CudaHooks& require_cuda(const char* what) {
  const CudaHooks* hooks = cuda_hooks();
  if (!hooks || hooks->device_count() == 0) {
    throw DeviceUnavailableError(str(what, " needs a CUDA device: ", cuda_unavailable_reason()));
  }
  return *hooks;
}

namespace cuda {

bool is_available() {
  const CudaHooks* hooks = cuda_hooks();
  return hooks && hooks->device_count() > 0;
}
std::string unavailable_reason() { return cuda_unavailable_reason(); }
int device_count() {
  const CudaHooks* hooks = cuda_hooks();
  return hooks ? hooks->device_count() : 0;
}
int current_device() { return require_cuda("ember::cuda::current_device").current_device(); }
void set_device(int device) { require_cuda("ember::cuda::set_device").set_device(device); }
void synchronize(int device) { require_cuda("ember::cuda::synchronize").synchronize(device); }
DeviceProperties get_device_properties(int device) {
  return require_cuda("ember::cuda::get_device_properties").properties(device);
}
MemoryStats memory_stats(int device) { return require_cuda("ember::cuda::memory_stats").memory_stats(device); }
void reset_peak_memory_stats(int device) {
  require_cuda("ember::cuda::reset_peak_memory_stats").reset_peak_memory_stats(device);
}
void empty_cache() {
  if (const CudaHooks* hooks = cuda_hooks(); hooks && hooks->device_count() > 0) hooks->empty_cache();
}
std::pair<size_t, size_t> mem_get_info(int device) { return require_cuda("ember::cuda::mem_get_info").mem_get_info(device); }
void set_per_process_memory_fraction(double fraction, int device) {
  require_cuda("ember::cuda::set_per_process_memory_fraction").set_memory_fraction(fraction, device);
}
bool matmul_allow_tf32() {
  const CudaHooks* hooks = loaded_cuda_hooks();
  return hooks ? hooks->allow_tf32() : g_matmul_tf32.load();
}
void set_matmul_allow_tf32(bool allow) {
  g_matmul_tf32.store(allow);
  if (const CudaHooks* hooks = loaded_cuda_hooks()) hooks->set_allow_tf32(allow);
}

namespace {
int device_or_current(int device) { return device < 0 ? current_device() : device; }
}  // namespace

Stream Stream::from_pool(bool high_priority, int device) {
  device = device_or_current(device);
  return {require_cuda("ember::cuda::Stream").stream_from_pool(device, high_priority), device};
}
void Stream::synchronize() const { require_cuda("ember::cuda::Stream::synchronize").stream_synchronize(device, handle); }
bool Stream::query() const { return require_cuda("ember::cuda::Stream::query").stream_query(device, handle); }

Stream current_stream(int device) {
  device = device_or_current(device);
  return {require_cuda("ember::cuda::current_stream").current_stream(device), device};
}
Stream default_stream(int device) { return {0, device_or_current(device)}; }
void set_current_stream(const Stream& stream) {
  require_cuda("ember::cuda::set_current_stream").set_current_stream(stream.device, stream.handle);
}

StreamGuard::StreamGuard(const Stream& stream) : previous_(current_stream(stream.device)) { set_current_stream(stream); }
StreamGuard::~StreamGuard() { set_current_stream(previous_); }

Event::Event(bool enable_timing, bool blocking, int device) : device_(device_or_current(device)) {
  handle_ = require_cuda("ember::cuda::Event").event_create(device_, enable_timing, blocking);
}
Event::~Event() {
  if (const CudaHooks* hooks = loaded_cuda_hooks()) hooks->event_destroy(handle_);
}
void Event::record(const Stream& stream) {
  require_cuda("ember::cuda::Event::record").event_record(stream.device, handle_, stream.handle);
}
void Event::wait(const Stream& stream) const {
  require_cuda("ember::cuda::Event::wait").stream_wait_event(stream.device, stream.handle, handle_);
}
void Event::synchronize() const { require_cuda("ember::cuda::Event::synchronize").event_synchronize(handle_); }
bool Event::query() const { return require_cuda("ember::cuda::Event::query").event_query(handle_); }
float Event::elapsed_time(const Event& end) const {
  return require_cuda("ember::cuda::Event::elapsed_time").event_elapsed_ms(handle_, end.handle_);
}

void record_stream(const Tensor& tensor, const Stream& stream) {
  EMBER_CHECK(tensor.device().is_cuda(), Error, "record_stream needs a CUDA tensor, got one on ", tensor.device().str());
  void* block = tensor.storage().impl()->data_ptr.context();
  if (block) require_cuda("record_stream").record_stream(block, stream.handle);
}

}  // namespace cuda

}  // namespace ember
