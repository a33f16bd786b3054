#include "traces/random.hpp"

#include <cmath>

namespace lynx {

uint64_t seed_derive(uint64_t seed, uint64_t stream) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double Rng::uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

double Rng::uniform01_open_low() { return 1.0 - uniform01(); }

uint64_t Rng::below(uint64_t n) {
  // Accept x < limit, where limit is the largest multiple of n that fits: each residue is equally likely.
  uint64_t limit = UINT64_MAX - (UINT64_MAX % n + 1) % n;
  for (;;) {
    uint64_t x = engine_();
    if (x <= limit) return x % n;
  }
}

double Rng::exponential(double mean) { return -mean * std::log(uniform01_open_low()); }

double Rng::normal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  for (;;) {
    double u = 2.0 * uniform01() - 1.0;
    double v = 2.0 * uniform01() - 1.0;
    double s = u * u + v * v;
    if (s >= 1.0 || s == 0.0) continue;
    double factor = std::sqrt(-2.0 * std::log(s) / s);
    spare_normal_ = v * factor;
    has_spare_normal_ = true;
    return u * factor;
  }
}

double Rng::gamma(double shape, double scale) {
  if (shape < 1.0) {
    double boost = std::pow(uniform01_open_low(), 1.0 / shape);
    return gamma(shape + 1.0, scale) * boost;
  }
  double d = shape - 1.0 / 3.0;
  double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = normal();
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    double u = uniform01_open_low();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v * scale;
  }
}

}  // namespace lynx
