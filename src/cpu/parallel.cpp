#include "ember/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <vector>

#include "ember/autograd.h"
#include "ember/errors.h"

namespace ember {

namespace {

thread_local bool t_in_parallel = false;

// Workers watch the job generation: for a short while after each job they spin (back-to-back
// ops start without a wake-up, which costs ~10 us here), then sleep on a condition variable so
// that idle workers never steal cycles from another library's threads.
class ThreadPool {
 public:
  explicit ThreadPool(int n) { resize(n); }
  ~ThreadPool() { stop(); }

  int size() const { return int(workers_.size()) + 1; }

  void resize(int n) {
    std::lock_guard<std::mutex> run_lock(run_mutex_);  // waits for a job another thread runs
    stop();
    stopping_ = false;
    // New workers start at the current job generation, so they wait for the next job.
    for (int i = 1; i < n; ++i) workers_.emplace_back([this, i, gen = generation_.load()] { worker_loop(i, gen); });
  }

  // Runs job(0) .. job(nchunks - 1) over the workers; false (nothing run) when another thread's
  // job holds the pool.
  bool try_run(int nchunks, const std::function<void(int)>& job) {
    std::unique_lock<std::mutex> run_lock(run_mutex_, std::try_to_lock);
    if (!run_lock.owns_lock()) return false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      nchunks_ = nchunks;
      pending_.store(nchunks - 1, std::memory_order_relaxed);
      error_ = nullptr;
      generation_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_all();
    run_chunk(0);
    spin_until([this] { return pending_.load(std::memory_order_acquire) == 0; });
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
    job_ = nullptr;
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
  void run_chunk(int chunk) {
    t_in_parallel = true;
    try {
      (*job_)(chunk);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    t_in_parallel = false;
  }

  // Spins for up to kSpinTime while `ready` is false; returns whether it became true.
  template <typename Pred>
  static bool spin_until(Pred ready) {
    constexpr auto kSpinTime = std::chrono::microseconds(50);
    auto deadline = std::chrono::steady_clock::now() + kSpinTime;
    for (int i = 0;; ++i) {
      if (ready()) return true;
      __builtin_ia32_pause();
      if ((i & 63) == 63 && std::chrono::steady_clock::now() > deadline) return false;
    }
  }

  void worker_loop(int id, uint64_t seen) {
    for (;;) {
      spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; });
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return stopping_ || generation_.load(std::memory_order_relaxed) != seen; });
        if (stopping_) return;
        seen = generation_.load(std::memory_order_relaxed);
        if (id >= nchunks_) continue;
      }
      run_chunk(id);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);
        done_cv_.notify_one();
      }
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
  }

  std::vector<std::thread> workers_;
  std::mutex run_mutex_, mutex_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int)>* job_ = nullptr;
  int nchunks_ = 0;
  std::atomic<int> pending_ = 0;
  std::atomic<uint64_t> generation_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

// The pool is created on first use, by whichever thread gets there first. A forked child inherits
// none of the parent's threads, so it drops (leaks) the inherited pool object and builds a fresh
// one of the same size; the mutex is held across fork, so the child gets it unlocked.
std::atomic<ThreadPool*> g_pool = nullptr;
std::mutex g_pool_mutex;  // guards creating and resizing the pool
int g_pool_size = 0;

ThreadPool& pool() {
  if (ThreadPool* p = g_pool.load(std::memory_order_acquire)) return *p;
  static bool registered = [] {
    pthread_atfork([] { g_pool_mutex.lock(); }, [] { g_pool_mutex.unlock(); },
                   [] {
                     g_pool = nullptr;
                     g_pool_mutex.unlock();
                   });
    return true;
  }();
  (void)registered;
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  if (!g_pool) {
    if (g_pool_size == 0) g_pool_size = int(std::max(1u, std::thread::hardware_concurrency()));
    g_pool = new ThreadPool(g_pool_size);
  }
  return *g_pool;
}

UnlockHooks g_unlock_hooks;

}  // namespace

void set_unlock_hooks(UnlockHooks hooks) { g_unlock_hooks = hooks; }

Unlocked::Unlocked(bool long_running) {  // workers never hold the binding's lock
  if (long_running && !t_in_parallel && g_unlock_hooks.release) token_ = g_unlock_hooks.release();
}

Unlocked::~Unlocked() {
  if (token_) g_unlock_hooks.restore(token_);
}

int get_num_threads() { return pool().size(); }

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, Error, "set_num_threads expects a positive integer, got ", n);
  ThreadPool& p = pool();
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  p.resize(n);
  g_pool_size = n;
}

void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  int64_t range = end - begin;
  if (range <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  Unlocked unlocked(range > grain);
  int nthreads = t_in_parallel ? 1 : get_num_threads();
  int64_t nchunks = std::min<int64_t>(nthreads, (range + grain - 1) / grain);
  if (nchunks <= 1) {
    fn(begin, end);
    return;
  }
  int64_t chunk = (range + nchunks - 1) / nchunks;
  bool grad_mode = autograd::is_grad_enabled();  // workers run in the caller's grad mode, as torch does
  bool ran = pool().try_run(int(nchunks), [&](int i) {
    int64_t b = begin + i * chunk, e = std::min(end, b + chunk);
    autograd::GradModeGuard mode(grad_mode);
    if (b < e) fn(b, e);
  });
  if (!ran) fn(begin, end);  // the pool serves another thread: this one does its own work
}

}  // namespace ember
