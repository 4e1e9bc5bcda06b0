// Trains seed 002's CNN on Fashion-MNIST with the C++ API alone: the model as a Module subclass, batches
// assembled by the C++ DataLoader's threads, Adam with a OneCycle schedule, checkpoints in torch's format.
//   train_fashion_mnist [--epochs 6] [--batch-size 128] [--eval-batch-size 1000] [--lr 3e-3] [--width 16]
//                       [--workers 2] [--threads N] [--seed 0] [--data DIR] [--out DIR] [--limit-batches N]
#include <ember/ember.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <variant>

using namespace ember;

struct Options {
  int64_t epochs = 6, batch_size = 128, eval_batch_size = 1000, width = 16, workers = 2, threads = 0, seed = 0;
  int64_t limit_batches = 0;  // at most this many batches per pass (0: all): the quick check ctest runs
  double lr = 3e-3, dropout = 0.1, dropout2d = 0.1;  // seed 002: 0.5 and 0.25, for 50 epochs
  std::string data = vision::FashionMNIST::default_root, out;
};

template <typename T>
void assign(T& field, const std::string& text) {
  if constexpr (std::is_same_v<T, std::string>) {
    field = text;
  } else {
    std::istringstream in(text);
    if (!(in >> field) || !in.eof()) throw std::invalid_argument("not a number: " + text);
  }
}

Options parse(int argc, char** argv) {
  Options o;
  const std::map<std::string, std::variant<int64_t*, double*, std::string*>> fields{
      {"--epochs", &o.epochs},   {"--batch-size", &o.batch_size}, {"--eval-batch-size", &o.eval_batch_size},
      {"--lr", &o.lr},           {"--dropout", &o.dropout},       {"--dropout2d", &o.dropout2d},
      {"--width", &o.width},     {"--workers", &o.workers},       {"--threads", &o.threads},
      {"--seed", &o.seed},       {"--data", &o.data},             {"--out", &o.out},
      {"--limit-batches", &o.limit_batches}};
  for (int i = 1; i < argc; i += 2) {
    auto field = fields.find(argv[i]);
    if (field == fields.end() || i + 1 == argc)
      throw std::invalid_argument(std::string("unknown option or missing value: ") + argv[i] +
                                  " (options: --epochs --batch-size --eval-batch-size --lr --dropout --dropout2d --width "
                                  "--workers --threads --seed --data --out --limit-batches, each followed by its value)");
    std::visit([&](auto* f) { assign(*f, argv[i + 1]); }, field->second);
  }
  if (o.epochs < 1 || o.batch_size < 1 || o.eval_batch_size < 1 || o.width < 1 || o.threads < 0 || o.limit_batches < 0)
    throw std::invalid_argument("--epochs, the batch sizes and --width must be positive, --threads and --limit-batches >= 0");
  return o;
}

// Seed 002's CNNClassifier for 1x28x28 images: three conv blocks of width w, 2w, 4w (each pooled to half,
// 28 -> 14 -> 7 -> 3), then an MLP head; parameters named as in the seed (features.N, classifier.N).
class CNNClassifier : public nn::Module {
 public:
  CNNClassifier(int64_t w, double dropout, double dropout2d, int64_t num_classes = 10) : nn::Module("CNNClassifier") {
    std::vector<nn::ModulePtr> f;
    auto conv = [&](int64_t in, int64_t out) {  // Conv3x3 -> BatchNorm -> ReLU
      f.insert(f.end(), {std::make_shared<nn::Conv2d>(in, out, 3, 1, 1), std::make_shared<nn::BatchNorm2d>(out),
                         std::make_shared<nn::ReLU>(true)});
    };
    auto pool = [&] { f.insert(f.end(), {std::make_shared<nn::MaxPool2d>(2, 2), std::make_shared<nn::Dropout2d>(dropout2d)}); };
    conv(1, w), conv(w, w), pool();
    conv(w, 2 * w), conv(2 * w, 2 * w), pool();
    conv(2 * w, 4 * w), pool();
    features = register_module("features", std::make_shared<nn::Sequential>(f));
    classifier = register_module("classifier", std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
        std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(4 * w * 3 * 3, 256),
        std::make_shared<nn::ReLU>(true), std::make_shared<nn::Dropout>(dropout), std::make_shared<nn::Linear>(256, 128),
        std::make_shared<nn::ReLU>(true), std::make_shared<nn::Dropout>(dropout),
        std::make_shared<nn::Linear>(128, num_classes)}));
  }
  Tensor forward(const Tensor& x) override { return (*classifier)((*features)(x)); }

  std::shared_ptr<nn::Sequential> features, classifier;
};

struct Totals {
  double loss = 0, seconds = 0;
  int64_t correct = 0, seen = 0;
  double mean_loss() const { return loss / double(seen); }
  double accuracy() const { return 100.0 * double(correct) / double(seen); }
};

// One pass over `loader` (at most `limit` batches): training when `opt` is given, else evaluation without grad.
Totals run_pass(nn::Module& model, data::DataLoader& loader, nn::CrossEntropyLoss& criterion, int64_t limit,
                optim::Optimizer* opt = nullptr, optim::lr_scheduler::LRScheduler* scheduler = nullptr) {
  model.train(opt != nullptr);
  AutoGradMode grad_mode(opt != nullptr);
  Totals t;
  auto start = std::chrono::steady_clock::now();
  int64_t step = 0;
  for (data::Example& batch : loader) {
    if (limit && step++ == limit) break;
    Tensor logits = model(batch.data);
    Tensor loss = criterion.forward(logits, batch.target);
    double value = loss.item<double>();
    if (!std::isfinite(value)) throw std::runtime_error("the loss is " + std::to_string(value));
    if (opt) {
      opt->zero_grad();
      loss.backward();
      opt->step();
      scheduler->step();
    }
    int64_t n = batch.target.size(0);
    t.loss += value * double(n);
    t.correct += (logits.argmax(1) == batch.target).sum().item<int64_t>();
    t.seen += n;
  }
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

int main(int argc, char** argv) try {
  Options o = parse(argc, argv);
  manual_seed(uint64_t(o.seed));
  set_num_threads(o.threads ? int(o.threads) : int(std::thread::hardware_concurrency()));

  using Transforms = std::vector<std::shared_ptr<const vision::Transform>>;
  auto normalize = std::make_shared<vision::Normalize>(std::vector<double>{0.2860}, std::vector<double>{0.3530});
  auto train_set = std::make_shared<vision::FashionMNIST>(o.data, vision::Split::Train, Transforms{
      std::make_shared<vision::RandomCrop>(28, 28, std::array<int64_t, 4>{2, 2, 2, 2}),
      std::make_shared<vision::RandomFlip>(0.5), normalize});
  auto test_set = std::make_shared<vision::FashionMNIST>(o.data, vision::Split::Test, Transforms{normalize});
  data::DataLoader train_loader(train_set, {.batch_size = o.batch_size, .shuffle = true, .drop_last = true,
                                           .num_workers = o.workers});
  data::DataLoader test_loader(test_set, {.batch_size = o.eval_batch_size, .num_workers = o.workers});

  auto model = std::make_shared<CNNClassifier>(o.width, o.dropout, o.dropout2d);
  nn::CrossEntropyLoss criterion(/*weight=*/{}, /*ignore_index=*/-100, "mean", /*label_smoothing=*/0.0);
  optim::Adam optimizer(model->parameters(), {{"lr", o.lr}, {"weight_decay", 1e-4}});
  int64_t steps = o.limit_batches ? std::min(o.limit_batches, train_loader.size()) : train_loader.size();
  optim::lr_scheduler::OneCycleLR scheduler(optimizer, {o.lr}, {.total_steps = o.epochs * steps});
  if (!o.out.empty()) std::filesystem::create_directories(o.out);

  int64_t params = 0;
  for (const Tensor& p : model->parameters()) params += p.numel();
  std::printf("CNNClassifier(width %lld, %lld parameters) on Fashion-MNIST: %lld train / %lld test images, "
              "%lld steps per epoch, %d threads, %lld loader workers\n", (long long)o.width, (long long)params,
              (long long)train_set->size(), (long long)test_set->size(), (long long)steps, get_num_threads(),
              (long long)o.workers);
  double best = -1, last = 0;
  for (int64_t epoch = 1; epoch <= o.epochs; ++epoch) {
    Totals train = run_pass(*model, train_loader, criterion, o.limit_batches, &optimizer, &scheduler);
    Totals test = run_pass(*model, test_loader, criterion, o.limit_batches);
    last = test.accuracy();
    std::printf("epoch %lld/%lld  train loss %.4f  train acc %.2f%%  test loss %.4f  test acc %.2f%%  time %.1fs  "
                "(%.0f img/s)\n", (long long)epoch, (long long)o.epochs, train.mean_loss(), train.accuracy(),
                test.mean_loss(), last, train.seconds + test.seconds, double(train.seen) / train.seconds);
    std::fflush(stdout);
    if (!o.out.empty()) {
      save(*model, o.out + "/last.pt");  // the state dict, as torch.save(model.state_dict(), path)
      if (last > best) save(*model, o.out + "/best.pt");
    }
    best = std::max(best, last);
  }
  std::printf("final test accuracy %.2f%% (best %.2f%%)%s\n", last, best,
              o.out.empty() ? "" : (", checkpoints in " + o.out).c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "train_fashion_mnist: %s\n", e.what());
  return 1;
}
