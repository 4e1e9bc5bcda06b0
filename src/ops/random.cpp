// Sampling ops on the mt19937 generator, drawing numbers in the same order and with the
// same transforms as torch's CPU kernels, so a seed gives torch's values.
#include "ember/random.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numbers>
#include <sstream>
#include <utility>
#include <vector>

#include "ember/creation.h"
#include "ember/cuda.h"
#include "ember/host.h"
#include "ember/layout.h"
#include "ember/parallel.h"
#include "../dispatch/kernels.h"
#include "../dispatch/random_kernels.h"

namespace ember {

namespace {

uint64_t random64(GeneratorState& g) {
  uint64_t hi = g.engine(), lo = g.engine();
  return (hi << 32) | lo;
}

// Uniform in [from, to) for element type T: 53 random bits for double, else 24 bits as a
// float that the caller rounds to T (torch samples half and bfloat16 this way too). The samples' scale-and-shift
// steps are fused multiply-adds, as in torch's build, whatever the compiler's contraction (-O1 does none).
template <typename T>
auto uniform_sample(GeneratorState& g, double from, double to) {
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  constexpr int digits = std::numeric_limits<Acc>::digits;
  uint64_t bits = std::is_same_v<T, double> ? random64(g) : uint64_t(g.engine());
  constexpr uint64_t mask = (uint64_t(1) << digits) - 1;
  Acc x = Acc(bits & mask) * (Acc(1) / Acc(uint64_t(1) << digits));
  return std::fma(x, Acc(to) - Acc(from), Acc(from));
}

// Box-Muller on doubles with the spare sample cached in the generator.
double normal_sample(GeneratorState& g, double mean, double std) {
  if (g.next_double_normal) {
    double v = *g.next_double_normal;
    g.next_double_normal.reset();
    return std::fma(v, std, mean);
  }
  double u1 = uniform_sample<double>(g, 0, 1), u2 = uniform_sample<double>(g, 0, 1);
  double r = std::sqrt(-2.0 * std::log1p(-u2));
  double theta = 2.0 * std::numbers::pi * u1;
  g.next_double_normal = r * std::sin(theta);
  return std::fma(r * std::cos(theta), std, mean);
}

// torch's normal_fill: uniform samples first, then Box-Muller over blocks of 16.
template <typename T>
void normal_fill_16(T* data, T mean, T std) {
  for (int j = 0; j < 8; ++j) {
    T u1 = T(1) - data[j];
    T u2 = data[j + 8];
    T radius = std::sqrt(T(-2) * std::log(u1));
    T theta = T(2.0f * std::numbers::pi) * u2;
    data[j] = std::fma(radius * std::cos(theta), std, mean);
    data[j + 8] = std::fma(radius * std::sin(theta), std, mean);
  }
}

// `whole_blocks`: uniforms are drawn for the whole 16-blocks only before the last 16 are redrawn (torch's
// float16/bfloat16 path); else for every element first (float32/64).
template <typename T>
void normal_fill(GeneratorState& g, T* data, int64_t size, T mean, T std, bool whole_blocks = false) {
  for (int64_t i = 0, n = whole_blocks ? size - size % 16 : size; i < n; ++i) data[i] = T(uniform_sample<T>(g, 0, 1));
  for (int64_t i = 0; i < size - 15; i += 16) normal_fill_16(data + i, mean, std);
  if (size % 16 != 0) {  // redo the last 16 values
    data += size - 16;
    for (int i = 0; i < 16; ++i) data[i] = T(uniform_sample<T>(g, 0, 1));
    normal_fill_16(data, mean, std);
  }
}

// Fills `self` in memory order, as torch's TensorIterator walks it (dims by stride): in place when it
// is dense, else through a dense temporary of that dim order, copied in. A device tensor is filled through a CPU
// temporary (a draw with an explicit CPU generator; devices draw their own numbers otherwise, draw_on_device).
template <typename Fn>
void fill_in_order(Tensor& self, GeneratorState& g, Fn&& fill_contiguous) {
  Tensor target = self.device().is_cpu() && is_non_overlapping_and_dense(self.sizes(), self.strides())
                      ? self
                      : empty_strided(self.sizes(), infer_dense_strides(self.sizes(), self.strides()),
                                      self.options().with_device(kCPU));
  {
    Unlocked unlocked(target.numel() > kUnlockElements);  // before the generator lock, which other threads may wait on
    std::lock_guard<std::mutex> lock(g.mutex);
    fill_contiguous(target);
  }
  if (target.impl() != self.impl()) kernels::copy[self.device()](self, target.to(self.device()));
}

GeneratorState& state_of(Generator* gen) { return (gen ? *gen : default_generator()).state(); }

}  // namespace

namespace {

// The graph captures under way (few; guarded by the default generator's mutex), and how many, read without it.
struct RandomCapture {
  int device;
  uintptr_t stream;
  const uint64_t* philox_args;
  uint64_t used;
};
std::vector<RandomCapture> g_captures;
std::atomic<int> g_capture_count{0};

// The capture a draw on `device`'s current stream joins, or nullptr. The generator's mutex held.
RandomCapture* capture_of(Device device) {
  if (g_capture_count.load(std::memory_order_relaxed) == 0) return nullptr;
  uintptr_t stream = cuda::current_stream(device.index).handle;
  for (RandomCapture& c : g_captures)
    if (c.device == device.index && c.stream == stream) return &c;
  return nullptr;
}

}  // namespace

void begin_random_capture(int device, uintptr_t stream, const uint64_t* philox_args) {
  GeneratorState& g = default_generator().state();
  std::lock_guard<std::mutex> lock(g.mutex);
  g_captures.push_back({device, stream, philox_args, 0});
  g_capture_count.store(int(g_captures.size()));
}

uint64_t end_random_capture(int device, uintptr_t stream) {
  GeneratorState& g = default_generator().state();
  std::lock_guard<std::mutex> lock(g.mutex);
  auto it = std::ranges::find_if(g_captures,
                                 [&](const RandomCapture& c) { return c.device == device && c.stream == stream; });
  if (it == g_captures.end()) return 0;
  uint64_t used = it->used;
  g_captures.erase(it);
  g_capture_count.store(int(g_captures.size()));
  return used;
}

std::pair<uint64_t, uint64_t> reserve_device_offsets(uint64_t n) {
  GeneratorState& g = default_generator().state();
  std::lock_guard<std::mutex> lock(g.mutex);
  std::pair<uint64_t, uint64_t> at{g.seed, g.device_offset};
  g.device_offset += n;
  return at;
}

bool draw_on_device(const Tensor& self, Generator* gen, RandomDraw draw) {
  if (self.device().is_cpu() || gen) return false;
  GeneratorState& g = default_generator().state();
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    draw.seed = g.seed;
    if (RandomCapture* c = capture_of(self.device())) {  // a replay writes the base: offsets count from 0
      draw.philox_args = c->philox_args;
      draw.offset = c->used;
      c->used += uint64_t(self.numel());
    } else {
      draw.offset = g.device_offset;
      g.device_offset += uint64_t(self.numel());
    }
  }
  Tensor target = self.is_contiguous() ? self : empty(self.sizes(), self.options().with_requires_grad(false));
  kernels::random_fill[self.device()](target, draw);
  if (target.impl() != self.impl()) kernels::copy[self.device()](self, target);
  return true;
}

namespace {

// torch's dtype error of the kernel named `kernel` (which normal_ only reaches for a non-empty tensor).
void check_random_dtype(const Tensor& t, const char* kernel) {
  EMBER_CHECK(t.is_floating_point(), NotImplementedError, "\"", kernel, "\" not implemented for '",
              legacy_name(t.dtype()), "'");
}

}  // namespace

Generator::Generator(uint64_t seed) : state_(std::make_shared<GeneratorState>()) { manual_seed(seed); }

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->seed = seed;
  state_->engine.seed(uint32_t(seed & 0xffffffffu));
  state_->next_double_normal.reset();
  state_->next_float_normal.reset();
  state_->device_offset = 0;
}

uint64_t Generator::seed() {
  std::random_device rd;
  uint64_t s = (uint64_t(rd()) << 32) | rd();
  manual_seed(s);
  return s;
}

Tensor Generator::get_state() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  std::ostringstream os;
  os << state_->seed << ' ' << state_->engine << ' ' << state_->next_double_normal.has_value() << ' '
     << (state_->next_double_normal ? *state_->next_double_normal : 0.0) << ' ' << state_->device_offset;
  std::string s = os.str();
  std::vector<uint8_t> bytes(s.begin(), s.end());
  return tensor(bytes, DimVector{int64_t(bytes.size())});
}

void Generator::set_state(const Tensor& state) {
  EMBER_CHECK(state.dtype() == kUInt8 && state.dim() == 1, TypeError,
              "expected a torch.ByteTensor of one dimension as the generator state");
  Tensor c = host_copy(state).contiguous();
  std::istringstream is(std::string(c.data_ptr<char>(), size_t(c.numel())));
  uint64_t seed;
  bool has_normal;
  double normal;
  std::mt19937 engine;
  is >> seed >> engine >> has_normal >> normal;
  EMBER_CHECK(!is.fail(), Error, "Generator.set_state: the state tensor is not a generator state");
  uint64_t device_offset = 0;
  if (!(is >> device_offset)) device_offset = 0;  // a state saved before devices drew their own numbers
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->seed = seed;
  state_->engine = engine;
  state_->next_double_normal = has_normal ? std::optional<double>(normal) : std::nullopt;
  state_->device_offset = device_offset;
}

namespace {
thread_local Generator* t_thread_default = nullptr;  // set by DefaultGeneratorGuard
}  // namespace

DefaultGeneratorGuard::DefaultGeneratorGuard(Generator& gen) : previous_(std::exchange(t_thread_default, &gen)) {}
DefaultGeneratorGuard::~DefaultGeneratorGuard() { t_thread_default = previous_; }

Generator& default_generator() {
  if (t_thread_default) return *t_thread_default;
  static Generator g = [] {
    Generator gen;
    gen.seed();
    return gen;
  }();
  return g;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }
uint64_t initial_seed() { return default_generator().initial_seed(); }

namespace {

// The fills behind uniform_, normal_ and random_; only those bump the version (creation does not).
void uniform_fill(Tensor& self, double from, double to, Generator* gen) {
  check_random_dtype(self, "check_uniform_bounds");
  EMBER_CHECK(from <= to, Error, "uniform_ expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  if (draw_on_device(self, gen, {.dist = RandomDist::Uniform, .p0 = from, .p1 = to})) return;
  GeneratorState& g = state_of(gen);
  fill_in_order(self, g, [&](Tensor& t) {
    visit_dtype(t.dtype(), [&]<typename T>(T) {
      if constexpr (!std::is_integral_v<T>) {
        T* p = t.data_ptr<T>();
        for (int64_t i = 0, n = t.numel(); i < n; ++i) {
          T v = T(uniform_sample<T>(g, from, to));
          p[i] = double(v) >= to ? T(from) : v;  // a sample rounded up to `to` becomes `from` (torch: [from, to))
        }
      }
    });
  });
}

void gaussian_fill(Tensor& self, double mean, double std, Generator* gen) {
  if (self.numel() > 0) check_random_dtype(self, "normal_kernel_cpu");
  EMBER_CHECK(std >= 0.0, Error, "normal expects std >= 0.0, but found std ", std);
  if (draw_on_device(self, gen, {.dist = RandomDist::Normal, .p0 = mean, .p1 = std})) return;
  GeneratorState& g = state_of(gen);
  int64_t n = self.numel();
  bool blocks = n >= 16 && self.is_contiguous();  // torch's Box-Muller blocks; else one double sample each
  fill_in_order(self, g, [&](Tensor& t) {
    visit_dtype(t.dtype(), [&]<typename T>(T) {
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        if (blocks) {
          normal_fill<T>(g, t.data_ptr<T>(), n, T(mean), T(std));
          return;
        }
      } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
        if (blocks) {  // torch draws half-precision normals as float32 ones, rounded
          std::vector<float> buf(static_cast<size_t>(n));
          normal_fill<float>(g, buf.data(), n, float(mean), float(std), true);
          T* p = t.data_ptr<T>();
          for (int64_t i = 0; i < n; ++i) p[i] = T(buf[size_t(i)]);
          return;
        }
      }
      if constexpr (!std::is_integral_v<T>) {
        T* p = t.data_ptr<T>();
        for (int64_t i = 0; i < n; ++i) p[i] = T(normal_sample(g, mean, std));  // double samples, as torch
      }
    });
  });
}

void random_fill(Tensor& self, int64_t from, int64_t to, Generator* gen) {
  EMBER_CHECK(from < to, Error, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", to);
  uint64_t range = uint64_t(to) - uint64_t(from);
  if (draw_on_device(self, gen, {.dist = RandomDist::Integer, .from = from, .range = range})) return;
  GeneratorState& g = state_of(gen);
  fill_in_order(self, g, [&](Tensor& t) {
    visit_dtype(t.dtype(), [&]<typename T>(T) {
      T* p = t.data_ptr<T>();
      for (int64_t i = 0, n = t.numel(); i < n; ++i) {
        uint64_t r = range >= (uint64_t(1) << 32) ? random64(g) : uint64_t(g.engine());
        p[i] = convert<T>(int64_t(r % range) + from);
      }
    });
  });
}

}  // namespace

Tensor& uniform_(Tensor& self, double from, double to, Generator* gen) {
  uniform_fill(self, from, to, gen);
  self.bump_version();
  return self;
}
Tensor& normal_(Tensor& self, double mean, double std, Generator* gen) {
  gaussian_fill(self, mean, std, gen);
  self.bump_version();
  return self;
}
Tensor& random_(Tensor& self, int64_t from, int64_t to, Generator* gen) {
  random_fill(self, from, to, gen);
  self.bump_version();
  return self;
}

Tensor rand(IntArrayRef sizes, const TensorOptions& options, Generator* gen) {
  Tensor t = empty(sizes, options.with_requires_grad(false));
  uniform_fill(t, 0.0, 1.0, gen);
  return options.requires_grad() ? t.requires_grad_(true) : t;
}

Tensor randn(IntArrayRef sizes, const TensorOptions& options, Generator* gen) {
  return normal(0.0, 1.0, sizes, options, gen);
}

Tensor normal(double mean, double std, IntArrayRef sizes, const TensorOptions& options, Generator* gen) {
  Tensor t = empty(sizes, options.with_requires_grad(false));
  gaussian_fill(t, mean, std, gen);
  return options.requires_grad() ? t.requires_grad_(true) : t;
}

Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, const TensorOptions& options, Generator* gen) {
  Tensor t = empty(sizes, options.with_dtype(options.dtype_opt().value_or(kInt64)));
  random_fill(t, low, high, gen);
  return t;
}

Tensor randperm(int64_t n, const TensorOptions& options, Generator* gen) {
  EMBER_CHECK(n >= 0, Error, "Trying to create tensor with negative dimension ", n, ": [", n, "]");
  // shuffled on the CPU, as the fills above
  Tensor t = arange(0, n, 1, options.with_dtype(options.dtype_opt().value_or(kInt64)).with_device(kCPU));
  GeneratorState& g = state_of(gen);
  std::lock_guard<std::mutex> lock(g.mutex);
  visit_dtype(t.dtype(), [&]<typename T>(T) {
    T* p = t.data_ptr<T>();
    for (int64_t i = 0; i < n - 1; ++i) {  // Fisher-Yates, as torch draws it
      int64_t z = int64_t(uint64_t(g.engine()) % uint64_t(n - i));
      std::swap(p[i], p[z + i]);
    }
  });
  return t.to(options.device());
}

}  // namespace ember
