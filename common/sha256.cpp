#include "common/sha256.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define LYNX_SHA256_X86 1
#endif

#include "common/error.hpp"

namespace lynx {

namespace {

constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compress(uint32_t state[8], const uint8_t block[64]) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = static_cast<uint32_t>(block[4 * i]) << 24 | static_cast<uint32_t>(block[4 * i + 1]) << 16 |
           static_cast<uint32_t>(block[4 * i + 2]) << 8 | static_cast<uint32_t>(block[4 * i + 3]);
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

void compress_portable(uint32_t state[8], const uint8_t* data, size_t blocks) {
  for (; blocks > 0; --blocks, data += 64) compress(state, data);
}

#ifdef LYNX_SHA256_X86
// The same compression with the x86 SHA extensions (Intel, "New Instructions Supporting the Secure Hash Algorithm
// on Intel Architecture Processors", 2013: state as ABEF/CDGH, two rounds per SHA256RNDS2, the message schedule by
// SHA256MSG1/MSG2), about 5x the portable loop here (the trace and table hashes of a run's start-up). Chosen at
// run time by CPUID; the test compares it with the portable loop on random inputs.
__attribute__((target("sha,sse4.1"))) void compress_x86(uint32_t state[8], const uint8_t* data, size_t blocks) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[0])), 0xB1);  // CDAB
  __m128i state1 = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[4])), 0x1B);  // EFGH
  __m128i state0 = _mm_alignr_epi8(tmp, state1, 8);  // ABEF
  state1 = _mm_blend_epi16(state1, tmp, 0xF0);       // CDGH
  for (; blocks > 0; --blocks, data += 64) {
    const __m128i abef = state0, cdgh = state1;
    __m128i m[4];  // words 4k..4k+3 of the schedule, group k in m[k % 4]
#pragma GCC unroll 16
    for (int k = 0; k < 16; ++k) {
      if (k < 4) {
        m[k] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * k)), byte_swap);
      } else {
        // W[i] = W[i-16] + s0(W[i-15]) + W[i-7] + s1(W[i-2]), four at a time.
        __m128i w = _mm_sha256msg1_epu32(m[k % 4], m[(k + 1) % 4]);
        w = _mm_add_epi32(w, _mm_alignr_epi8(m[(k + 3) % 4], m[(k + 2) % 4], 4));
        m[k % 4] = _mm_sha256msg2_epu32(w, m[(k + 3) % 4]);
      }
      __m128i msg = _mm_add_epi32(m[k % 4], _mm_loadu_si128(reinterpret_cast<const __m128i*>(&kRound[4 * k])));
      state1 = _mm_sha256rnds2_epu32(state1, state0, msg);
      state0 = _mm_sha256rnds2_epu32(state0, state1, _mm_shuffle_epi32(msg, 0x0E));
    }
    state0 = _mm_add_epi32(state0, abef);
    state1 = _mm_add_epi32(state1, cdgh);
  }
  tmp = _mm_shuffle_epi32(state0, 0x1B);        // FEBA
  state1 = _mm_shuffle_epi32(state1, 0xB1);     // DCHG
  state0 = _mm_blend_epi16(tmp, state1, 0xF0);  // DCBA
  state1 = _mm_alignr_epi8(state1, tmp, 8);     // HGFE
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[0]), state0);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[4]), state1);
}

// CPUID directly (clang 14 does not know "sha" in __builtin_cpu_supports): leaf 7 EBX bit 29 is SHA, leaf 1 ECX
// bit 19 SSE4.1 (Intel SDM vol. 2A, CPUID).
bool cpu_has_sha() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & (1u << 19)) == 0) return false;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  return (b & (1u << 29)) != 0;
}
#endif

using CompressFn = void (*)(uint32_t*, const uint8_t*, size_t);
CompressFn g_compress = nullptr;

CompressFn compress_blocks() {
  if (g_compress == nullptr) {
#ifdef LYNX_SHA256_X86
    g_compress = cpu_has_sha() ? compress_x86 : compress_portable;
#else
    g_compress = compress_portable;
#endif
  }
  return g_compress;
}

}  // namespace

bool sha256_use_hardware(bool use) {
#ifdef LYNX_SHA256_X86
  const bool available = cpu_has_sha();
  g_compress = use && available ? compress_x86 : compress_portable;
  return use && available;
#else
  (void)use;
  g_compress = compress_portable;
  return false;
#endif
}

Sha256::Sha256() {
  static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::memcpy(state_, initial, sizeof state_);
}

void Sha256::update(const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  size_ += size;
  if (buffered_ > 0) {
    size_t take = std::min(size, 64 - buffered_);
    std::memcpy(block_ + buffered_, p, take);
    buffered_ += take;
    p += take;
    size -= take;
    if (buffered_ < 64) return;
    compress_blocks()(state_, block_, 1);
    buffered_ = 0;
  }
  const size_t blocks = size / 64;
  if (blocks > 0) compress_blocks()(state_, p, blocks);
  p += 64 * blocks;
  size -= 64 * blocks;
  std::memcpy(block_, p, size);
  buffered_ = size;
}

std::string Sha256::hex() {
  // Padding: 0x80, zeros, then the message length in bits as a big-endian 64-bit integer.
  const uint64_t bits = size_ * 8;
  uint8_t tail[128] = {};
  std::memcpy(tail, block_, buffered_);
  tail[buffered_] = 0x80;
  const size_t tail_size = buffered_ + 1 + 8 <= 64 ? 64 : 128;
  for (int i = 0; i < 8; ++i) tail[tail_size - 1 - static_cast<size_t>(i)] = static_cast<uint8_t>(bits >> (8 * i));
  compress_blocks()(state_, tail, tail_size / 64);
  static const char* digits = "0123456789abcdef";
  std::string out(64, '0');
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) {
      uint8_t byte = static_cast<uint8_t>(state_[i] >> (24 - 8 * j));
      out[static_cast<size_t>(8 * i + 2 * j)] = digits[byte >> 4];
      out[static_cast<size_t>(8 * i + 2 * j + 1)] = digits[byte & 15];
    }
  return out;
}

std::string sha256_hex(const uint8_t* data, size_t size) {
  Sha256 h;
  h.update(data, size);
  return h.hex();
}

std::string sha256_file(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) throw_error("%s: cannot open file to hash it", path.c_str());
  Sha256 hash;
  uint8_t block[1 << 16];  // on the stack: a zeroed 1 MiB vector per file was half the hashing time of a small file
  size_t n = 0;
  while ((n = std::fread(block, 1, sizeof block, file)) > 0) hash.update(block, n);
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) throw_error("%s: cannot read file to hash it", path.c_str());
  return hash.hex();
}

}  // namespace lynx
