// The C++ DataLoader: batches of a C++ Dataset assembled by worker threads, in sampler order, with no
// Python in the loop. `for (Example& batch : loader)` runs one pass.
#pragma once
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "ember/data/dataset.h"
#include "ember/data/sampler.h"

namespace ember::data {

// Assembles the given batches of indices (dataset.get_batch) on `num_workers` threads, at most
// num_workers * prefetch_factor batches ahead of the consumer; 0 workers: on the consumer's thread.
// A batch's exception is rethrown by next() in its turn.
class BatchStream {
 public:
  // With workers, batch k is made with default_generator() seeded base_seed + k on its thread (the same batches
  // whatever the thread timing and count); without, on the caller's thread and generator.
  BatchStream(std::shared_ptr<Dataset> dataset, std::vector<Indices> batches, int64_t num_workers = 0,
              int64_t prefetch_factor = 2, uint64_t base_seed = 0);
  ~BatchStream();  // stops and joins the workers
  BatchStream(const BatchStream&) = delete;
  BatchStream& operator=(const BatchStream&) = delete;
  // The next batch in order, or nullopt after the last.
  std::optional<Example> next();
  int64_t size() const { return int64_t(batches_.size()); }

 private:
  void work();

  std::shared_ptr<Dataset> dataset_;
  std::vector<Indices> batches_;
  int64_t window_;
  uint64_t base_seed_;
  std::vector<std::optional<Example>> ready_;
  std::vector<std::exception_ptr> errors_;
  size_t next_claim_ = 0, next_out_ = 0;
  bool stop_ = false;
  std::mutex mutex_;
  std::condition_variable claimable_, done_;
  std::vector<std::thread> workers_;
};

struct DataLoaderOptions {
  int64_t batch_size = 1;
  bool shuffle = false;  // a RandomSampler (on `generator`) instead of the sequential order
  bool drop_last = false;
  int64_t num_workers = 0;
  int64_t prefetch_factor = 2;
  std::optional<Generator> generator;
};

class DataLoader {
 public:
  // `sampler` replaces the one `shuffle` picks.
  DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options = {},
             std::shared_ptr<Sampler> sampler = nullptr);
  // Batches per pass.
  int64_t size() const { return batch_sampler_.size(); }
  // One pass. Like torch's loader, it first draws a base seed from the generator, then the sampler's order.
  std::unique_ptr<BatchStream> epoch();
  int64_t base_seed() const { return base_seed_; }

  class Iterator {
   public:
    using value_type = Example;
    using difference_type = std::ptrdiff_t;
    Iterator() = default;
    explicit Iterator(std::shared_ptr<BatchStream> stream) : stream_(std::move(stream)) { ++*this; }
    Example& operator*() { return *current_; }
    Iterator& operator++() {
      current_ = stream_->next();
      return *this;
    }
    bool operator==(const Iterator& o) const { return !current_ && !o.current_; }

   private:
    std::shared_ptr<BatchStream> stream_;
    std::optional<Example> current_;
  };
  Iterator begin() { return Iterator(std::shared_ptr<BatchStream>(epoch())); }
  Iterator end() { return {}; }

 private:
  std::shared_ptr<Dataset> dataset_;
  DataLoaderOptions options_;
  BatchSampler batch_sampler_;
  int64_t base_seed_ = 0;
};

}  // namespace ember::data
