// The decoder's kernels (decoder_kernels.hpp): each against a double-precision computation of the same formula,
// and the AVX2+FMA form against the portable one bit for bit over a grid of shapes (tails of every length, strided
// rows), then the whole decoder on stories260K with either form. Where the CPU lacks AVX2 or FMA the comparisons
// have nothing to compare and say so.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "decoder_test_util.hpp"
#include "models/decoder/decoder.hpp"
#include "models/decoder/decoder_kernels.hpp"
#include "models/decoder/tokenizer.hpp"

using namespace lynx;

namespace {

std::vector<float> random_floats(size_t n, unsigned seed, float scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = uniform(rng);
  return v;
}

bool same_bits(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

const DecoderKernels& portable() { return decoder_kernels_portable(); }

}  // namespace

TEST_CASE("the split of ln 2 and the Taylor coefficients are what their comments say") {
  namespace k = decoder_kernel_constants;
  CHECK(static_cast<double>(k::kLn2Hi) + static_cast<double>(k::kLn2Lo) == doctest::Approx(0.693147180559945309).epsilon(1e-15));
  CHECK(static_cast<double>(k::kLog2e) == doctest::Approx(1.0 / 0.693147180559945309).epsilon(1e-7));
  double factorial = 1;
  for (int i = 1; i < 8; ++i) {
    factorial *= i;
    CHECK(static_cast<double>(k::kInvFactorial[i]) == doctest::Approx(1.0 / factorial).epsilon(1e-7));
  }
}

TEST_CASE("exp is within 2 ulp of e^x on [-87, 88] and clamps outside it") {
  std::vector<float> x;
  for (float v = -87.0f; v <= 88.0f; v += 0.0137f) x.push_back(v);
  for (float v : {0.0f, -0.0f, 1.0f, -1.0f, 0.34657359f, -0.34657359f, 1e-8f, -1e-8f}) x.push_back(v);
  std::vector<float> out(x.size());
  portable().exp(out.data(), x.data(), static_cast<int64_t>(x.size()));
  double worst_ulp = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double exact = std::exp(static_cast<double>(x[i]));
    const double ulp = std::ldexp(1.0, std::ilogb(exact) - 23);
    worst_ulp = std::max(worst_ulp, std::fabs(static_cast<double>(out[i]) - exact) / ulp);
  }
  CAPTURE(worst_ulp);
  CHECK(worst_ulp <= 2.0);
  const float outside[] = {-1000.0f, -88.0f, 89.0f, 1000.0f, -INFINITY, INFINITY};
  float y[6], edge[2];
  const float edges[2] = {-87.0f, 88.0f};
  portable().exp(y, outside, 6);
  portable().exp(edge, edges, 2);
  CHECK(y[0] == edge[0]);
  CHECK(y[1] == edge[0]);
  CHECK(y[2] == edge[1]);
  CHECK(y[3] == edge[1]);
  CHECK(y[4] == edge[0]);
  CHECK(y[5] == edge[1]);
  CHECK(std::isfinite(edge[1]));
  CHECK(edge[0] > 0.0f);
}

TEST_CASE("matvec and dot agree with double-precision sums within the fp32 error bound") {
  for (int64_t cols : {1, 7, 8, 9, 64, 172}) {
    CAPTURE(cols);
    const int64_t rows = 13, stride = cols + 3;
    std::vector<float> w = random_floats(static_cast<size_t>(rows * stride), 1, 1.0f);
    std::vector<float> x = random_floats(static_cast<size_t>(cols), 2, 1.0f);
    std::vector<float> out(static_cast<size_t>(rows));
    portable().matvec(out.data(), w.data(), stride, x.data(), rows, cols);
    for (int64_t r = 0; r < rows; ++r) {
      double exact = 0, magnitude = 0;
      for (int64_t j = 0; j < cols; ++j) {
        exact += static_cast<double>(w[r * stride + j]) * x[j];
        magnitude += std::fabs(static_cast<double>(w[r * stride + j]) * x[j]);
      }
      // |error| <= (terms per lane + 3 lane sums) * 2^-24 * sum |w x|
      const double bound = static_cast<double>(cols / 8 + 4) * 0x1p-24 * magnitude;
      CHECK(std::fabs(out[r] - exact) <= bound);
      CHECK(portable().dot(w.data() + r * stride, x.data(), cols) == out[r]);
    }
  }
}

TEST_CASE("attend is the softmax-weighted sum of the value rows (double-precision check)") {
  const int64_t rows = 37, head_dim = 8, stride = 32;
  std::vector<float> keys = random_floats(static_cast<size_t>(rows * stride), 3, 2.0f);
  std::vector<float> values = random_floats(static_cast<size_t>(rows * stride), 4, 1.0f);
  std::vector<float> q = random_floats(static_cast<size_t>(head_dim), 5, 2.0f);
  std::vector<float> scores(static_cast<size_t>(rows)), out(static_cast<size_t>(head_dim));
  const float scale = 1.0f / std::sqrt(8.0f);
  portable().attend(out.data(), scores.data(), q.data(), keys.data(), values.data(), rows, stride, head_dim, scale);
  std::vector<double> p(static_cast<size_t>(rows));
  double max = -1e300, z = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t d = 0; d < head_dim; ++d) s += static_cast<double>(q[d]) * keys[r * stride + d];
    p[r] = s * scale;
    max = std::max(max, p[r]);
  }
  for (auto& v : p) z += (v = std::exp(v - max));
  for (int64_t r = 0; r < rows; ++r) CHECK(scores[r] == doctest::Approx(p[r] / z).epsilon(1e-5));
  for (int64_t d = 0; d < head_dim; ++d) {
    double exact = 0;
    for (int64_t r = 0; r < rows; ++r) exact += p[r] / z * values[r * stride + d];
    CHECK(std::fabs(out[d] - exact) <= 1e-6);
  }
}

TEST_CASE("swiglu is h * sigmoid(h) * gate") {
  std::vector<float> h = random_floats(29, 6, 8.0f), gate = random_floats(29, 7, 1.0f), out = h;
  portable().swiglu(out.data(), gate.data(), 29);
  for (size_t j = 0; j < h.size(); ++j) {
    const double exact = h[j] / (1.0 + std::exp(-static_cast<double>(h[j]))) * gate[j];
    CHECK(out[j] == doctest::Approx(exact).epsilon(1e-6));
  }
}

TEST_CASE("the AVX2+FMA kernels give the portable kernels' bits on a grid of shapes") {
  const DecoderKernels* fast = decoder_kernels_avx2_fma();
  if (!fast) {
    MESSAGE("no AVX2+FMA on this CPU (or not an x86-64 build): nothing to compare");
    return;
  }
  for (int64_t cols = 1; cols <= 40; ++cols)
    for (int64_t rows : {1, 3, 8, 9, 17}) {
      CAPTURE(cols);
      CAPTURE(rows);
      const int64_t stride = cols + (cols % 3);
      std::vector<float> w = random_floats(static_cast<size_t>(rows * stride + 8), static_cast<unsigned>(cols), 3.0f);
      std::vector<float> x = random_floats(static_cast<size_t>(cols), static_cast<unsigned>(rows + 100), 3.0f);
      std::vector<float> a(static_cast<size_t>(rows)), b(a.size());
      portable().matvec(a.data(), w.data(), stride, x.data(), rows, cols);
      fast->matvec(b.data(), w.data(), stride, x.data(), rows, cols);
      CHECK(same_bits(a.data(), b.data(), a.size()));
      CHECK(portable().dot(w.data(), x.data(), cols) == fast->dot(w.data(), x.data(), cols));
      // attention with head_dim = cols over `rows * 3` rows
      const int64_t context = rows * 3;
      std::vector<float> kv = random_floats(static_cast<size_t>(context * stride + 8), 9, 4.0f);
      std::vector<float> sa(static_cast<size_t>(context)), sb(sa.size()), oa(static_cast<size_t>(cols)),
          ob(oa.size());
      portable().attend(oa.data(), sa.data(), x.data(), kv.data(), kv.data() + 1, context, stride, cols, 0.37f);
      fast->attend(ob.data(), sb.data(), x.data(), kv.data(), kv.data() + 1, context, stride, cols, 0.37f);
      CHECK(same_bits(sa.data(), sb.data(), sa.size()));
      CHECK(same_bits(oa.data(), ob.data(), oa.size()));
      std::vector<float> ha = w, hb = w;
      portable().swiglu(ha.data(), x.data(), cols);
      fast->swiglu(hb.data(), x.data(), cols);
      CHECK(same_bits(ha.data(), hb.data(), static_cast<size_t>(cols)));
      std::vector<float> ea(w.size()), eb(w.size());
      for (auto& v : w) v *= 30.0f;  // spans the clamp
      portable().exp(ea.data(), w.data(), static_cast<int64_t>(w.size()));
      fast->exp(eb.data(), w.data(), static_cast<int64_t>(w.size()));
      CHECK(same_bits(ea.data(), eb.data(), ea.size()));
    }
}

TEST_CASE("stories260K decodes to the same bits with the AVX2+FMA and the portable kernels") {
  const DecoderKernels* fast = decoder_kernels_avx2_fma();
  if (!fast) {
    MESSAGE("no AVX2+FMA on this CPU (or not an x86-64 build): nothing to compare");
    return;
  }
  std::vector<int> tokens =
      tokenizer_encode(test::tok512(), "One day, a little dog named Max found a big red ball in the garden.", true,
                       false);
  const int64_t n = static_cast<int64_t>(tokens.size());
  for (const char* format : {"fp32", "lynx-a4r4-g64"}) {
    CAPTURE(format);
    Decoder slow(test::stories260k(), portable()), quick(test::stories260k(), *fast);
    KvCache a = slow.make_cache(kv_format_parse(format)), b = quick.make_cache(kv_format_parse(format));
    slow.prefill(a, tokens.data(), 4);
    quick.prefill(b, tokens.data(), 4);
    const float* la = slow.forward(a, tokens.data() + 4, n - 4);
    const float* lb = quick.forward(b, tokens.data() + 4, n - 4);
    CHECK(same_bits(la, lb, static_cast<size_t>((n - 4) * 512)));
  }
}
