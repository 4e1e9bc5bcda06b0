// ember::data from C++: samplers' orders, random_split, and the DataLoader's worker threads over a
// small C++ dataset (order, drop_last, errors thrown in a worker).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "ember/data/dataloader.h"
#include "ember/data/datasets.h"
#include "ember/ember.h"
#include "ember/shared_memory.h"

using namespace ember;
using namespace ember::data;

namespace {

// Sample i is a 2x2 image filled with i; index 13 throws.
class Squares final : public Dataset {
 public:
  int64_t size() const override { return 30; }
  Example get(int64_t i) override {
    if (i == 13) throw ValueError("sample 13 is broken");
    return {full({2, 2}, double(i)), tensor<int64_t>({i}).reshape({})};
  }
};

Indices sorted(Indices v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST(DataSampler, Orders) {
  Indices all(10);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(SequentialSampler(10).epoch(), all);
  RandomSampler perm(10, false, std::nullopt, Generator(5));
  Indices a = perm.epoch(), b = perm.epoch();
  EXPECT_EQ(sorted(a), all);
  EXPECT_NE(a, b);  // the generator moved on
  EXPECT_EQ(RandomSampler(10, false, 25, Generator(5)).epoch().size(), 25u);
  Indices drawn = RandomSampler(4, true, 100, Generator(1)).epoch();
  EXPECT_TRUE(std::all_of(drawn.begin(), drawn.end(), [](int64_t i) { return i >= 0 && i < 4; }));
  Indices w = WeightedRandomSampler({0.0, 1.0, 0.0, 2.0}, 50, true, Generator(2)).epoch();
  EXPECT_TRUE(std::all_of(w.begin(), w.end(), [](int64_t i) { return i == 1 || i == 3; }));
  EXPECT_EQ(sorted(SubsetRandomSampler({7, 3, 9}, Generator(0)).epoch()), (Indices{3, 7, 9}));
  std::set<int64_t> seen;
  for (int64_t r = 0; r < 3; ++r) {
    DistributedSampler d(7, 3, r, true, 4);
    EXPECT_EQ(d.size(), 3);
    for (int64_t i : d.epoch()) seen.insert(i);
  }
  EXPECT_EQ(seen.size(), 7u);
  EXPECT_THROW(RandomSampler(3, false, 0), ValueError);
  EXPECT_THROW(DistributedSampler(3, 2, 2), ValueError);
}

TEST(DataSampler, TorchsDraws) {
  // Values printed by torch 2.13: RandomSampler(range(10), generator=torch.Generator().manual_seed(5)) and
  // torch.empty((), dtype=torch.int64).random_(generator=torch.Generator().manual_seed(0)).
  EXPECT_EQ(RandomSampler(10, false, std::nullopt, Generator(5)).epoch(), (Indices{1, 4, 9, 6, 3, 5, 0, 2, 8, 7}));
  Generator g(0);
  EXPECT_EQ(draw_seed(&g), 900450186894289455);
  // torch.multinomial(torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.double), 10, True, generator=seed 3)
  Generator g3(3);
  EXPECT_EQ(multinomial(std::vector<double>{0.1, 0.2, 0.3, 0.4}, 10, true, &g3), (Indices{0, 1, 3, 1, 3, 3, 1, 2, 2, 3}));
}

TEST(DataSampler, RandomSplit) {
  Generator g(42);
  auto parts = random_split(10, split_lengths(10, std::vector<double>{0.3, 0.7}), &g);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].size(), 3u);
  Indices joined = parts[0];
  joined.insert(joined.end(), parts[1].begin(), parts[1].end());
  EXPECT_EQ(sorted(joined), SequentialSampler(10).epoch());
  EXPECT_EQ(split_lengths(10, std::vector<double>{0.33, 0.33, 0.34}), (Indices{4, 3, 3}));
  EXPECT_THROW(random_split(10, Indices{3, 3}), ValueError);
}

TEST(DataLoader, WorkersKeepSamplerOrder) {
  auto data = std::make_shared<TensorDataset>(arange(0, 40).reshape({20, 2}), arange(0, 20));
  for (int64_t workers : {0, 1, 3}) {
    DataLoaderOptions o;
    o.batch_size = 6;
    o.shuffle = true;
    o.num_workers = workers;
    o.generator = Generator(7);
    DataLoader loader(data, o);
    EXPECT_EQ(loader.size(), 4);
    Generator g(7);
    draw_seed(&g);  // the loader's base seed, then the sampler's order
    Indices order = RandomSampler(20, false, std::nullopt, g).epoch();
    size_t pos = 0;
    for (Example& batch : loader) {
      for (int64_t k = 0; k < batch.target.size(0); ++k, ++pos) {
        int64_t i = batch.target[k].item<int64_t>();
        EXPECT_EQ(i, order[pos]);
        EXPECT_EQ(batch.data[k][1].item<int64_t>(), 2 * i + 1);
      }
    }
    EXPECT_EQ(pos, 20u);
  }
}

TEST(DataLoader, DropLastAndDefaultBatching) {
  DataLoaderOptions o;
  o.batch_size = 4;
  o.drop_last = true;
  o.num_workers = 2;
  DataLoader loader(std::make_shared<Squares>(), o, std::make_shared<SubsetRandomSampler>(Indices{0, 1, 2, 3, 4, 5, 6}));
  int batches = 0;
  for (Example& b : loader) {
    EXPECT_EQ(b.data.sizes(), (DimVector{4, 2, 2}));
    EXPECT_EQ(b.target.sizes(), (DimVector{4}));
    ++batches;
  }
  EXPECT_EQ(batches, 1);
}

TEST(DataLoader, WorkerErrorsReachTheConsumer) {
  DataLoaderOptions o;
  o.batch_size = 5;
  o.num_workers = 2;
  DataLoader loader(std::make_shared<Squares>(), o);
  auto stream = loader.epoch();
  EXPECT_TRUE(stream->next().has_value());
  EXPECT_TRUE(stream->next().has_value());
  EXPECT_THROW(stream->next(), ValueError);  // batch 2 holds index 13
  EXPECT_EQ(stream->next()->target[0].item<int64_t>(), 15);
}

TEST(DataSharedMemory, ShareAndReopen) {
  Tensor t = arange(0, 6).to(kFloat32);
  Tensor v = t.slice(0, 2, 4);
  share_memory_(t);
  ASSERT_TRUE(is_shared(t) && is_shared(v));
  EXPECT_EQ(v[0].item<float>(), 2.f);
  auto seg = shared_segment(t.storage());
  ASSERT_TRUE(seg.has_value());
  Storage other = open_shared_segment(seg->name, seg->nbytes, false);
  static_cast<float*>(other.data())[0] = 42.f;
  EXPECT_EQ(t[0].item<float>(), 42.f);
  EXPECT_THROW(open_shared_segment("/ember_no_such_segment", 4, false), Error);
}
