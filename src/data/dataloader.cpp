// The C++ DataLoader's worker threads (see dataloader.h).
#include "ember/data/dataloader.h"

#include "ember/errors.h"

namespace ember::data {

BatchStream::BatchStream(std::shared_ptr<Dataset> dataset, std::vector<Indices> batches, int64_t num_workers,
                         int64_t prefetch_factor, uint64_t base_seed)
    : dataset_(std::move(dataset)), batches_(std::move(batches)), window_(num_workers * prefetch_factor),
      base_seed_(base_seed),
      ready_(batches_.size()), errors_(batches_.size()) {
  EMBER_CHECK(num_workers >= 0, ValueError, "num_workers option should be non-negative; use num_workers=0 to disable "
              "multiprocessing.");
  EMBER_CHECK(num_workers == 0 || prefetch_factor > 0, ValueError, "prefetch_factor option should be positive");
  for (int64_t i = 0; i < num_workers; ++i) workers_.emplace_back([this] { work(); });
}

BatchStream::~BatchStream() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  claimable_.notify_all();
  for (auto& t : workers_) t.join();
}

void BatchStream::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    claimable_.wait(lock, [&] {
      return stop_ || next_claim_ >= batches_.size() || int64_t(next_claim_ - next_out_) < window_;
    });
    if (stop_ || next_claim_ >= batches_.size()) return;
    size_t k = next_claim_++;
    lock.unlock();
    std::optional<Example> batch;
    std::exception_ptr error;
    try {
      Generator gen(base_seed_ + k);
      DefaultGeneratorGuard own_generator(gen);
      batch = dataset_->get_batch(batches_[k]);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    ready_[k] = std::move(batch);
    errors_[k] = error;
    done_.notify_all();
  }
}

std::optional<Example> BatchStream::next() {
  if (next_out_ >= batches_.size()) return std::nullopt;
  size_t k = next_out_;
  if (workers_.empty()) {
    ++next_out_;
    return dataset_->get_batch(batches_[k]);
  }
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return ready_[k] || errors_[k]; });
  ++next_out_;
  claimable_.notify_all();
  if (errors_[k]) std::rethrow_exception(std::exchange(errors_[k], nullptr));
  return std::exchange(ready_[k], std::nullopt);
}

namespace {

std::shared_ptr<Sampler> default_sampler(int64_t n, const DataLoaderOptions& o) {
  if (o.shuffle) return std::make_shared<RandomSampler>(n, false, std::nullopt, o.generator);
  return std::make_shared<SequentialSampler>(n);
}

}  // namespace

DataLoader::DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options, std::shared_ptr<Sampler> sampler)
    : dataset_(std::move(dataset)), options_(std::move(options)),
      batch_sampler_(sampler ? std::move(sampler) : default_sampler(dataset_->size(), options_), options_.batch_size,
                     options_.drop_last) {}

std::unique_ptr<BatchStream> DataLoader::epoch() {
  base_seed_ = draw_seed(options_.generator ? &*options_.generator : nullptr);
  return std::make_unique<BatchStream>(dataset_, batch_sampler_.epoch(), options_.num_workers,
                                       options_.prefetch_factor, uint64_t(base_seed_));
}

}  // namespace ember::data
