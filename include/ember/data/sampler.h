// Samplers (torch.utils.data's): the order in which a loader visits dataset indices. Each draws from
// its generator exactly as torch's sampler does, so a seed gives torch's order.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "ember/random.h"

namespace ember::data {

using Indices = std::vector<int64_t>;

// A seed drawn as torch's `torch.empty((), dtype=torch.int64).random_(generator=gen)` (default generator when null).
int64_t draw_seed(Generator* gen);
// Indices drawn from `weights` (torch.multinomial over a 1-d float64 tensor, with its RuntimeErrors).
Indices multinomial(std::span<const double> weights, int64_t num_samples, bool replacement, Generator* gen);

class Sampler {
 public:
  virtual ~Sampler() = default;
  // Indices in one pass (len(sampler)).
  virtual int64_t size() const = 0;
  // The order of the next pass, drawing what torch's sampler draws over one full iteration.
  virtual Indices epoch() = 0;
};

class SequentialSampler final : public Sampler {
 public:
  explicit SequentialSampler(int64_t n) : n_(n) {}
  int64_t size() const override { return n_; }
  Indices epoch() override;

 private:
  int64_t n_;
};

// Without a generator each pass seeds a private one from the default generator (as torch).
class RandomSampler final : public Sampler {
 public:
  RandomSampler(int64_t n, bool replacement = false, std::optional<int64_t> num_samples = {},
                std::optional<Generator> generator = {});
  int64_t size() const override { return num_samples_; }
  Indices epoch() override;

 private:
  int64_t n_, num_samples_;
  bool replacement_;
  std::optional<Generator> generator_;
};

// A random permutation of `indices` (the default generator when none is given).
class SubsetRandomSampler final : public Sampler {
 public:
  explicit SubsetRandomSampler(Indices indices, std::optional<Generator> generator = {})
      : indices_(std::move(indices)), generator_(std::move(generator)) {}
  int64_t size() const override { return int64_t(indices_.size()); }
  Indices epoch() override;

 private:
  Indices indices_;
  std::optional<Generator> generator_;
};

class WeightedRandomSampler final : public Sampler {
 public:
  WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, bool replacement = true,
                        std::optional<Generator> generator = {});
  int64_t size() const override { return num_samples_; }
  Indices epoch() override;

 private:
  std::vector<double> weights_;
  int64_t num_samples_;
  bool replacement_;
  std::optional<Generator> generator_;
};

// This replica's share of the dataset: padded (or, with drop_last, trimmed) to a multiple of
// num_replicas, shuffled from seed + epoch.
class DistributedSampler final : public Sampler {
 public:
  DistributedSampler(int64_t n, int64_t num_replicas, int64_t rank, bool shuffle = true, int64_t seed = 0,
                     bool drop_last = false);
  int64_t size() const override { return num_samples_; }
  Indices epoch() override;
  void set_epoch(int64_t epoch) { epoch_ = epoch; }

 private:
  int64_t n_, num_replicas_, rank_, seed_, epoch_ = 0, num_samples_;
  bool shuffle_, drop_last_;
};

// Groups a sampler's order into batches.
class BatchSampler {
 public:
  BatchSampler(std::shared_ptr<Sampler> sampler, int64_t batch_size, bool drop_last);
  int64_t size() const;
  std::vector<Indices> epoch();

 private:
  std::shared_ptr<Sampler> sampler_;
  int64_t batch_size_;
  bool drop_last_;
};
std::vector<Indices> make_batches(const Indices& order, int64_t batch_size, bool drop_last);

// random_split: lengths from fractions of n (floors, the remainder handed out one each from the first),
// with torch's warning for empty splits.
Indices split_lengths(int64_t n, std::span<const double> fractions);
// The index lists of each split of range(n): consecutive runs of one randperm(n).
std::vector<Indices> random_split(int64_t n, std::span<const int64_t> lengths, Generator* gen = nullptr);

}  // namespace ember::data
