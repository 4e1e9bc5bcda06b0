// ember::vision through the C++ API: transforms on images and batches, the C++ pipeline's random draws, IDX
// reading and the MNIST dataset that the C++ loader batches.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "ember/ember.h"

using namespace ember;
namespace V = ember::vision;

TEST(Vision, CropPadFlipNormalize) {
  Tensor x = arange(12, TensorOptions(kFloat32)).view({1, 3, 4});  // C=1, H=3, W=4
  EXPECT_TRUE(equal(V::hflip(x).select(1, 0), tensor<float>({3, 2, 1, 0}).view({1, 4})));
  EXPECT_TRUE(equal(V::crop(x, 1, 1, 2, 2), tensor<float>({5, 6, 9, 10}).view({1, 2, 2})));
  Tensor p = V::pad(x, {1, 0, 1, 0}, V::PadMode::Reflect);
  EXPECT_TRUE(equal(p.select(1, 0), tensor<float>({1, 0, 1, 2, 3, 2}).view({1, 6})));
  Tensor s = V::pad(x, {2, 0, 0, 0}, V::PadMode::Symmetric);
  EXPECT_TRUE(equal(s.select(1, 0), tensor<float>({1, 0, 0, 1, 2, 3}).view({1, 6})));
  Tensor out_of_image = V::crop(x, -1, 0, 2, 1);  // zeros outside, as torchvision
  EXPECT_TRUE(equal(out_of_image, tensor<float>({0, 0}).view({1, 2, 1})));
  std::vector<double> mean{1.0}, std{2.0};
  EXPECT_TRUE(allclose(V::normalize(x, mean, std), (x - 1.0) / 2.0));
  EXPECT_THROW(V::normalize(x.to(kUInt8), mean, std), TypeError);
  EXPECT_THROW(V::pad(x, {5, 5, 5, 5}, V::PadMode::Reflect), ValueError);
}

TEST(Vision, ResizeRotateColorOnBatches) {
  Tensor batch = rand({2, 3, 8, 8});
  Tensor r = V::resize(batch, 4, 4);
  EXPECT_EQ(r.sizes().vec(), (std::vector<int64_t>{2, 3, 4, 4}));
  EXPECT_TRUE(allclose(r.select(0, 1), V::resize(batch.select(0, 1), 4, 4)));
  // Antialiased halving: a triangle filter twice as wide, (x1 + 3 x2 + 3 x3 + x4) / 8 for output 1.
  Tensor row = arange(8, TensorOptions(kFloat32)).pow(2).view({1, 1, 8});
  EXPECT_NEAR(V::resize(row, 1, 4).view({4})[1].item<float>(), (1 + 3 * 4 + 3 * 9 + 16) / 8.0f, 1e-5);
  int64_t dims[2] = {-1, -2};
  EXPECT_TRUE(allclose(V::rotate(batch, 180.0), flip(batch, IntArrayRef(dims, 2)), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(V::adjust_brightness(batch, 0.5), batch * 0.5));
  EXPECT_TRUE(allclose(V::adjust_hue(batch, 0.0), batch, 1e-5, 1e-6));
  Tensor u8 = V::convert_image_dtype(batch, kUInt8);
  EXPECT_EQ(u8.dtype(), kUInt8);
  EXPECT_THROW(V::adjust_hue(batch, 0.7), ValueError);
}

TEST(Vision, PipelineDrawsLikeTorchvision) {
  // RandomCrop draws randint(0, 9) twice per image, then RandomFlip one rand(); the batch path keeps that order.
  std::vector<std::shared_ptr<const V::Transform>> pipeline{
      std::make_shared<V::RandomCrop>(4, 4, std::array<int64_t, 4>{2, 2, 2, 2}), std::make_shared<V::RandomFlip>(0.5)};
  Tensor batch = rand({3, 1, 4, 4});
  Generator g(5), replay(5);
  Tensor out = V::apply_transforms(pipeline, batch, &g);
  for (int64_t n = 0; n < 3; ++n) {
    int64_t i = randint(0, 5, {1}, {}, &replay).item<int64_t>(), j = randint(0, 5, {1}, {}, &replay).item<int64_t>();
    bool flipped = rand({1}, {}, &replay).item<float>() < 0.5f;
    Tensor want = V::crop_pad(batch.select(0, n), {i - 2}, {j - 2}, 4, 4);
    EXPECT_TRUE(equal(out.select(0, n), flipped ? V::hflip(want) : want)) << n;
  }
}

TEST(Vision, IdxFilesAndMNISTDataset) {
  auto dir = std::filesystem::temp_directory_path() / "ember_vision_test";
  std::filesystem::create_directories(dir);
  std::string images = (dir / "images").string(), labels = (dir / "labels").string();  // gzip: the Python tests
  {
    FILE* f = std::fopen(images.c_str(), "wb");
    unsigned char header[16] = {0, 0, 8, 3, 0, 0, 0, 5, 0, 0, 0, 2, 0, 0, 0, 3};
    std::fwrite(header, 1, 16, f);
    for (int k = 0; k < 30; ++k) std::fputc(k * 8, f);
    std::fclose(f);
    FILE* l = std::fopen(labels.c_str(), "wb");
    unsigned char lh[13] = {0, 0, 8, 1, 0, 0, 0, 5, 4, 3, 2, 1, 0};
    std::fwrite(lh, 1, 13, l);
    std::fclose(l);
  }
  Tensor t = V::read_idx(images);
  EXPECT_EQ(t.sizes().vec(), (std::vector<int64_t>{5, 2, 3}));
  EXPECT_EQ(t.dtype(), kUInt8);
  V::MNIST ds(images, labels, {std::make_shared<V::Normalize>(std::vector<double>{0.5}, std::vector<double>{0.5})});
  EXPECT_EQ(ds.size(), 5);
  std::vector<int64_t> idx{4, 1};
  data::Example b = ds.get_batch(idx);
  EXPECT_EQ(b.data.sizes().vec(), (std::vector<int64_t>{2, 1, 2, 3}));
  EXPECT_TRUE(equal(b.target, tensor<int64_t>({0, 3})));
  Tensor want = (t.select(0, 4).to(kFloat32) / 255.0 - 0.5) / 0.5;
  EXPECT_TRUE(allclose(b.data.select(0, 0).select(0, 0), want));
  EXPECT_TRUE(allclose(ds.get(4).data, b.data.select(0, 0)));
  std::vector<int64_t> bad{5};
  EXPECT_THROW(ds.get_batch(bad), IndexError);
  EXPECT_THROW(V::read_idx((dir / "missing").string()), Error);
  // torchvision's layout under a root: root/FashionMNIST/raw/t10k-*-ubyte
  auto raw = dir / "FashionMNIST" / "raw";
  std::filesystem::create_directories(raw);
  std::filesystem::copy_file(images, raw / "t10k-images-idx3-ubyte");
  std::filesystem::copy_file(labels, raw / "t10k-labels-idx1-ubyte");
  V::FashionMNIST test_split(dir.string(), V::Split::Test);
  EXPECT_TRUE(equal(test_split.labels(), ds.labels()));
  EXPECT_THROW(V::FashionMNIST(dir.string(), V::Split::Train), Error);  // no train files: says where it looked
  EXPECT_THROW(V::MNIST(dir.string(), V::Split::Test), Error);
  std::filesystem::remove_all(dir);
}
