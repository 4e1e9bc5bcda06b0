// Finds and loads the CUDA backend (libember_cuda.so, beside libember.so) the first time a CUDA device
// is asked for, and answers the ember::cuda queries through its hooks.
#include "cuda_hooks.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>

#include "ember/errors.h"
#include "ember/str.h"

namespace ember {

namespace {

std::atomic<const CudaHooks*> g_hooks{nullptr};
std::string g_load_error;
std::atomic<bool> g_allow_tf32{false};  // the TF32 switch until the backend loads

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
  hooks->set_allow_tf32(g_allow_tf32.load());
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
  return hooks ? hooks->allow_tf32() : g_allow_tf32.load();
}
void set_matmul_allow_tf32(bool allow) {
  g_allow_tf32.store(allow);
  if (const CudaHooks* hooks = loaded_cuda_hooks()) hooks->set_allow_tf32(allow);
}

}  // namespace cuda

}  // namespace ember
