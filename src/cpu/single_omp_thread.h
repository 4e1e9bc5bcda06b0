#pragma once
#include <dlfcn.h>

namespace ember::cpu {

// oneDNN's parallel regions on this thread use one OpenMP thread while in scope (OpenMP's count is per
// thread). The thread's count is restored after: the process has one OpenMP runtime, which may be torch's,
// and torch's own regions on this thread must keep their team.
class SingleOmpThread {
 public:
  SingleOmpThread() {
    if (api().set) api().set(1);
  }
  ~SingleOmpThread() {
    if (api().set) api().set(previous_);
  }
  SingleOmpThread(const SingleOmpThread&) = delete;
  SingleOmpThread& operator=(const SingleOmpThread&) = delete;

 private:
  struct Api {
    void (*set)(int) = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
    int (*get)() = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
  };
  static const Api& api() {
    static const Api a = [] {
      Api x;
      if (!x.get) x.set = nullptr;
      return x;
    }();
    return a;
  }
  int previous_ = api().set ? api().get() : 1;
};

}  // namespace ember::cpu
