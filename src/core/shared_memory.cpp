// Shared-memory storages: a POSIX shm segment mapped into each process that uses it. The creator
// removes the name when its storage dies, unless it handed the segment over to a receiver.
#include "ember/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "ember/errors.h"

namespace ember {

namespace {

struct Segment {
  void* base;
  size_t mapped;
  std::string name;
  std::atomic<bool> owns_name;
  pid_t creator;  // a forked child that inherits the storage never removes the name

  bool removes_name() const { return owns_name.load() && creator == getpid(); }
};

// The live segments of this process: a storage is shared when its DataPtr's context is one of them.
std::mutex g_mutex;
std::unordered_set<const void*> g_segments;

void release_segment(void* ctx) {
  auto* s = static_cast<Segment*>(ctx);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_segments.erase(s);
  }
  munmap(s->base, s->mapped);
  if (s->removes_name()) shm_unlink(s->name.c_str());
  delete s;
}

// At exit, names of segments still alive (Python does not free every object) are removed.
struct RemoveNamesAtExit {
  ~RemoveNamesAtExit() {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const void* p : g_segments)
      if (auto* s = static_cast<const Segment*>(p); s->removes_name()) shm_unlink(s->name.c_str());
  }
} g_remove_names_at_exit;

Segment* segment_of(const Storage& storage) {
  if (!storage.defined()) return nullptr;
  void* ctx = storage.impl()->data_ptr.context();
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_segments.contains(ctx) ? static_cast<Segment*>(ctx) : nullptr;
}

[[noreturn]] void fail(const char* what, const std::string& name) {
  throw Error(str("unable to ", what, " shared memory segment '", name, "': ", std::strerror(errno)));
}

// Maps `fd` (at least one byte, so empty tensors share too) and wraps it in a DataPtr.
DataPtr map_segment(int fd, size_t nbytes, std::string name, bool owns_name) {
  size_t mapped = nbytes > 0 ? nbytes : 1;
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    if (owns_name) shm_unlink(name.c_str());
    fail("map", name);
  }
  auto* seg = new Segment{p, mapped, std::move(name), {owns_name}, getpid()};
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_segments.insert(seg);
  }
  return DataPtr(p, seg, &release_segment, kCPU);
}

}  // namespace

Tensor& share_memory_(Tensor& self) {
  if (!self.device().is_cpu() || is_shared(self)) return self;
  StorageImpl* impl = self.storage().impl();
  static std::atomic<uint64_t> counter{0};
  std::string name = str("/ember_", getpid(), "_", counter.fetch_add(1));
  int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) fail("create", name);
  if (ftruncate(fd, off_t(impl->nbytes > 0 ? impl->nbytes : 1)) != 0) {
    close(fd);
    shm_unlink(name.c_str());
    fail("size", name);
  }
  DataPtr shared = map_segment(fd, impl->nbytes, name, true);
  if (impl->nbytes > 0) std::memcpy(shared.get(), impl->data_ptr.get(), impl->nbytes);
  impl->data_ptr = std::move(shared);  // the StorageImpl is shared by every view, so all of them move
  impl->resizable = false;
  return self;
}

bool is_shared(const Tensor& self) { return segment_of(self.storage()) != nullptr; }

std::optional<SharedSegment> shared_segment(const Storage& storage) {
  Segment* s = segment_of(storage);
  if (!s) return std::nullopt;
  return SharedSegment{s->name, storage.nbytes()};
}

bool hand_over_segment(const Storage& storage) {
  Segment* s = segment_of(storage);
  return s && s->creator == getpid() && s->owns_name.exchange(false);
}

Storage open_shared_segment(const std::string& name, size_t nbytes, bool take_over) {
  EMBER_CHECK(name.size() > 1 && name[0] == '/' && name.find('/', 1) == std::string::npos, ValueError,
              "invalid shared memory segment name '", name, "'");
  int fd = shm_open(name.c_str(), O_RDWR, 0600);
  if (fd < 0) fail("open", name);
  struct stat st {};
  if (fstat(fd, &st) != 0 || size_t(st.st_size) < nbytes) {
    close(fd);
    throw Error(str("shared memory segment '", name, "' is smaller than ", nbytes, " bytes"));
  }
  if (take_over) shm_unlink(name.c_str());
  return Storage::borrow(map_segment(fd, nbytes, name, false), nbytes);
}

}  // namespace ember
