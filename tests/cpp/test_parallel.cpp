#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "ember/parallel.h"

using namespace ember;

// Several threads at once: a thread that finds the pool busy runs its range itself, and every
// index is visited exactly once either way.
TEST(Parallel, ConcurrentCallersEachCoverTheirRange) {
  constexpr int kThreads = 4;
  constexpr int64_t kRange = 1 << 16;
  std::vector<std::vector<int>> seen(kThreads, std::vector<int>(kRange));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 50; ++rep) {
        parallel_for(0, kRange, 256, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) ++seen[size_t(t)][size_t(i)];
        });
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& s : seen) {
    for (int v : s) ASSERT_EQ(v, 50);
  }
}

TEST(Parallel, ResizeWhileOtherThreadsRunJobs) {
  Tensor x = ones({512, 512});
  std::atomic<bool> stop = false, wrong = false;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      while (!stop) {
        if (sum(x * 2.0).item().to_double() != 2.0 * 512 * 512) wrong = true;
      }
    });
  }
  int original = get_num_threads();
  for (int n : {1, 3, 2, 1, 4, 2}) {
    set_num_threads(n);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop = true;
  for (auto& th : threads) th.join();
  set_num_threads(original);
  EXPECT_FALSE(wrong);
}
