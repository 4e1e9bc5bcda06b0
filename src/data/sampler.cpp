// Samplers and random_split, drawing from the generator in torch's order (see sampler.h).
#include "ember/data/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ember/errors.h"
#include "ember/str.h"

namespace ember::data {

namespace {

GeneratorState& state_of(Generator* gen) { return (gen ? *gen : default_generator()).state(); }

uint64_t random64(GeneratorState& g) {
  uint64_t hi = g.engine(), lo = g.engine();
  return (hi << 32) | lo;
}

// A uniform double in [0, 1) from 53 random bits (torch's uniform_real_distribution<double>).
double uniform01(GeneratorState& g) { return double(random64(g) & ((uint64_t(1) << 53) - 1)) * 0x1p-53; }

Indices permutation(int64_t n, Generator* gen) {
  Tensor p = randperm(n, {}, gen);
  const int64_t* d = p.data_ptr<int64_t>();
  return Indices(d, d + n);
}

Generator* ptr(std::optional<Generator>& g) { return g ? &*g : nullptr; }

void check_positive(int64_t v, const char* name) {
  EMBER_CHECK(v > 0, ValueError, name, " should be a positive integer value, but got ", name, "=", v);
}

}  // namespace

int64_t draw_seed(Generator* gen) {
  GeneratorState& g = state_of(gen);
  std::lock_guard<std::mutex> lock(g.mutex);
  return int64_t(random64(g) % (uint64_t(1) << 63));
}

Indices multinomial(std::span<const double> weights, int64_t num_samples, bool replacement, Generator* gen) {
  double total = 0;
  for (double w : weights) {
    EMBER_CHECK(w >= 0 && std::isfinite(w), Error, "invalid multinomial distribution (encountering probability entry < 0)");
    total += w;
  }
  EMBER_CHECK(total > 0, Error, "invalid multinomial distribution (sum of probabilities <= 0)");
  EMBER_CHECK(replacement || num_samples <= int64_t(weights.size()), Error,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  GeneratorState& g = state_of(gen);
  std::lock_guard<std::mutex> lock(g.mutex);
  Indices out(static_cast<size_t>(num_samples));
  if (replacement) {  // inverse CDF: the first category whose normalised cumulative weight reaches a uniform draw
    std::vector<double> cdf(weights.size());
    std::partial_sum(weights.begin(), weights.end(), cdf.begin());
    for (double& c : cdf) c /= cdf.back();
    for (int64_t& o : out) {
      double u = uniform01(g);
      o = std::min(int64_t(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin()), int64_t(cdf.size()) - 1);
    }
    return out;
  }
  // Without replacement: the largest keys w / E, E ~ Exp(1) (the exponential race).
  std::vector<double> keys(weights.size());
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = weights[i] / -std::log1p(-uniform01(g));
  Indices order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return keys[size_t(a)] > keys[size_t(b)]; });
  std::copy_n(order.begin(), num_samples, out.begin());
  return out;
}

Indices SequentialSampler::epoch() {
  Indices out(static_cast<size_t>(n_));
  std::iota(out.begin(), out.end(), 0);
  return out;
}

RandomSampler::RandomSampler(int64_t n, bool replacement, std::optional<int64_t> num_samples,
                             std::optional<Generator> generator)
    : n_(n), num_samples_(num_samples.value_or(n)), replacement_(replacement), generator_(std::move(generator)) {
  check_positive(num_samples_, "num_samples");
}

Indices RandomSampler::epoch() {
  EMBER_CHECK(n_ > 0, ValueError, "RandomSampler: cannot draw ", num_samples_, " samples from an empty dataset");
  std::optional<Generator> own;
  Generator* gen = ptr(generator_);
  if (!gen) gen = &own.emplace(uint64_t(draw_seed(nullptr)));
  Indices out;
  out.reserve(size_t(num_samples_));
  if (replacement_) {  // torch draws in blocks of 32
    for (int64_t left = num_samples_; left > 0; left -= 32) {
      Tensor r = randint(0, n_, {std::min<int64_t>(left, 32)}, {}, gen);
      out.insert(out.end(), r.data_ptr<int64_t>(), r.data_ptr<int64_t>() + r.numel());
    }
    return out;
  }
  // whole permutations, then part of one more (torch draws it even when no part of it is used)
  for (int64_t left = num_samples_; left >= 0; left -= n_) {
    Indices p = permutation(n_, gen);
    out.insert(out.end(), p.begin(), p.begin() + std::min(left, n_));
  }
  return out;
}

Indices SubsetRandomSampler::epoch() {
  Indices p = permutation(int64_t(indices_.size()), ptr(generator_));
  for (int64_t& i : p) i = indices_[size_t(i)];
  return p;
}

WeightedRandomSampler::WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, bool replacement,
                                             std::optional<Generator> generator)
    : weights_(std::move(weights)), num_samples_(num_samples), replacement_(replacement),
      generator_(std::move(generator)) {
  check_positive(num_samples_, "num_samples");
}

Indices WeightedRandomSampler::epoch() { return multinomial(weights_, num_samples_, replacement_, ptr(generator_)); }

DistributedSampler::DistributedSampler(int64_t n, int64_t num_replicas, int64_t rank, bool shuffle, int64_t seed,
                                       bool drop_last)
    : n_(n), num_replicas_(num_replicas), rank_(rank), seed_(seed), shuffle_(shuffle), drop_last_(drop_last) {
  EMBER_CHECK(num_replicas > 0, ValueError, "num_replicas should be a positive integer value, but got num_replicas=",
              num_replicas);
  EMBER_CHECK(rank >= 0 && rank < num_replicas, ValueError, "Invalid rank ", rank,
              ", rank should be in the interval [0, ", num_replicas - 1, "]");
  num_samples_ = drop_last && n % num_replicas != 0 ? (n - num_replicas + num_replicas - 1) / num_replicas
                                                    : (n + num_replicas - 1) / num_replicas;
}

Indices DistributedSampler::epoch() {
  Indices all;
  if (shuffle_) {
    Generator g(uint64_t(seed_ + epoch_));
    all = permutation(n_, &g);
  } else {
    all = SequentialSampler(n_).epoch();
  }
  int64_t total = num_samples_ * num_replicas_;
  if (int64_t(all.size()) > total) all.resize(size_t(total));
  for (size_t i = 0, n = all.size(); n > 0 && all.size() < size_t(total); ++i) all.push_back(all[i % n]);  // pad by repeating
  Indices out;
  for (int64_t i = rank_; i < total; i += num_replicas_) out.push_back(all[size_t(i)]);
  return out;
}

BatchSampler::BatchSampler(std::shared_ptr<Sampler> sampler, int64_t batch_size, bool drop_last)
    : sampler_(std::move(sampler)), batch_size_(batch_size), drop_last_(drop_last) {
  check_positive(batch_size, "batch_size");
}

int64_t BatchSampler::size() const {
  int64_t n = sampler_->size();
  return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

std::vector<Indices> BatchSampler::epoch() { return make_batches(sampler_->epoch(), batch_size_, drop_last_); }

std::vector<Indices> make_batches(const Indices& order, int64_t batch_size, bool drop_last) {
  std::vector<Indices> out;
  for (size_t i = 0; i < order.size(); i += size_t(batch_size)) {
    size_t end = std::min(order.size(), i + size_t(batch_size));
    if (drop_last && end - i < size_t(batch_size)) break;
    out.emplace_back(order.begin() + ptrdiff_t(i), order.begin() + ptrdiff_t(end));
  }
  return out;
}

Indices split_lengths(int64_t n, std::span<const double> fractions) {
  Indices lengths;
  for (double f : fractions) {
    EMBER_CHECK(f >= 0 && f <= 1, ValueError, "Fraction at index ", lengths.size(), " is not between 0 and 1");
    lengths.push_back(int64_t(std::floor(double(n) * f)));
  }
  int64_t rest = n - std::accumulate(lengths.begin(), lengths.end(), int64_t(0));
  for (int64_t i = 0; i < rest; ++i) lengths[size_t(i) % lengths.size()] += 1;
  for (size_t i = 0; i < lengths.size(); ++i)
    if (lengths[i] == 0) warn(str("Length of split at index ", i, " is 0. This might result in an empty dataset."));
  return lengths;
}

std::vector<Indices> random_split(int64_t n, std::span<const int64_t> lengths, Generator* gen) {
  EMBER_CHECK(std::accumulate(lengths.begin(), lengths.end(), int64_t(0)) == n, ValueError,
              "Sum of input lengths does not equal the length of the input dataset!");
  Indices p = permutation(n, gen);
  std::vector<Indices> out;
  auto it = p.begin();
  for (int64_t len : lengths) {
    out.emplace_back(it, it + len);
    it += len;
  }
  return out;
}

}  // namespace ember::data
