// The llama2.c checkpoint loader: the shipped stories260K (shape, tied classifier, sha256), clear errors for a size
// that does not match the header and for a shipped name with other contents, and checkpoints of other shapes
// written here with random weights (multi-head attention, more layers, a separate classifier), whose logits must
// match the independent plain-C reference forward pass.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "decoder_test_util.hpp"
#include "models/decoder/decoder.hpp"
#include "models/decoder/reference_forward.hpp"

using namespace lynx;

namespace {

// A checkpoint file of `config` with weights drawn uniformly from [-scale, scale] (norm weights around 1).
std::string random_checkpoint(const LlamaConfig& config, unsigned seed, float scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  std::string bytes = llama_header_bytes(config);
  const int64_t n = llama_weight_floats(config);
  std::string weights(static_cast<size_t>(n) * 4, '\0');
  for (int64_t i = 0; i < n; ++i) {
    float w = uniform(rng);
    std::memcpy(&weights[static_cast<size_t>(i) * 4], &w, 4);
  }
  return bytes + weights;
}

// Largest |a - b| over the logits of a token sequence decoded by both implementations, relative to max |b|.
double max_relative_difference(const LlamaModel& model, const std::vector<int>& tokens) {
  Decoder decoder(model);
  KvCache cache = decoder.make_cache(kv_format_parse("fp32"));
  ReferenceDecoder reference(model);
  double worst = 0;
  for (size_t pos = 0; pos < tokens.size(); ++pos) {
    const float* fast = decoder.step(cache, tokens[pos]);
    const float* slow = reference.step(tokens[pos], static_cast<int>(pos));
    double diff = 0, size = 0;
    for (int v = 0; v < model.config.vocab_size; ++v) {
      diff = std::max(diff, std::fabs(static_cast<double>(fast[v]) - slow[v]));
      size = std::max(size, std::fabs(static_cast<double>(slow[v])));
    }
    worst = std::max(worst, diff / size);
  }
  return worst;
}

std::string error_of(const std::string& bytes, const std::string& origin) {
  try {
    llama_from_bytes(bytes, origin);
  } catch (const LynxError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("stories260K loads with its header's shape, a tied classifier and the known sha256") {
  const LlamaModel& m = test::stories260k();
  const LlamaConfig& c = m.config;
  CHECK(c.dim == 64);
  CHECK(c.hidden_dim == 172);
  CHECK(c.n_layers == 5);
  CHECK(c.n_heads == 8);
  CHECK(c.n_kv_heads == 4);
  CHECK(c.vocab_size == 512);
  CHECK(c.seq_len == 512);
  CHECK(c.shared_classifier);
  CHECK(c.head_dim() == 8);
  CHECK(c.kv_dim() == 32);
  CHECK(m.classifier.data == m.token_embedding.data);
  CHECK(m.weights.size() == 264128);
  CHECK(m.sha256 == "b0a507e7ad0f626624f17112325e66691f9076d622e1d3274d103d00299f2696");
  LlamaModel from_bytes = llama_from_bytes(read_file(shipped_model_path()), "stories260K.bin");
  CHECK(from_bytes.weights == m.weights);
  CHECK(from_bytes.sha256 == m.sha256);
}

TEST_CASE("the decoder matches the plain-C reference forward pass on stories260K (grouped-query attention)") {
  std::vector<int> tokens =
      tokenizer_encode(test::tok512(), "Once upon a time, there was a big red ball.", true, false);
  CHECK(max_relative_difference(test::stories260k(), tokens) < 1e-5);
}

TEST_CASE("a file whose size does not match its header is a clear error") {
  const std::string bytes = read_file(shipped_model_path());
  std::string message = error_of(bytes.substr(0, bytes.size() - 4), "/tmp/model.bin");
  CHECK(message.find("/tmp/model.bin: size 1056536 bytes does not match its header (dim 64, hidden_dim 172, "
                     "n_layers 5, n_heads 8, n_kv_heads 4, vocab_size 512, seq_len 512, shared classifier), which "
                     "needs exactly 1056540 bytes") != std::string::npos);
  CHECK(error_of(bytes + "x", "/tmp/model.bin").find("does not match its header") != std::string::npos);
  CHECK(error_of(bytes.substr(0, 10), "/tmp/model.bin").find("too short") != std::string::npos);
  std::string bad_header = bytes;
  bad_header[12] = 7;  // n_heads 7: dim 64 is not a multiple
  CHECK(error_of(bad_header, "/tmp/model.bin").find("dim must be a multiple of n_heads") != std::string::npos);
  std::string versioned = "ak42" + std::string("\x01\x00\x00\x00", 4) + bytes.substr(8);
  CHECK(error_of(versioned, "/tmp/model.bin").find("llama2.c export of version 1") != std::string::npos);
}

TEST_CASE("a shipped file name with other contents is rejected by sha256") {
  std::string bytes = read_file(shipped_model_path());
  bytes[1000] = static_cast<char>(bytes[1000] ^ 1);  // same size, one weight differs
  std::string message = error_of(bytes, "/somewhere/stories260K.bin");
  CHECK(message.find("/somewhere/stories260K.bin: sha256 ") != std::string::npos);
  CHECK(message.find("is not the known b0a507e7ad0f626624f17112325e66691f9076d622e1d3274d103d00299f2696") !=
        std::string::npos);
  CHECK_NOTHROW(llama_from_bytes(bytes, "/somewhere/other-name.bin"));  // unknown names are not checked
  const std::string path = std::string(LYNX_BINARY_DIR) + "/stories260K.bin";  // read from disk, hashed on the way
  write_file_atomic(path, bytes);
  CHECK_THROWS_WITH_AS(llama_load(path), doctest::Contains("is not the known b0a507e7"), LynxError);
  std::string tokenizer = read_file(shipped_tokenizer_path());
  tokenizer.back() = 'X';
  write_file_atomic(std::string(LYNX_BINARY_DIR) + "/tok512.bin", tokenizer);
  CHECK_THROWS_WITH_AS(tokenizer_load(std::string(LYNX_BINARY_DIR) + "/tok512.bin", 512),
                       doctest::Contains("is not the known 037cb335"), LynxError);
}

TEST_CASE("checkpoints of other shapes, written with random weights, load and decode like the reference") {
  struct Shape {
    const char* what;
    LlamaConfig config;
  };
  const Shape shapes[] = {
      {"multi-head attention, 7 layers, separate classifier", {48, 100, 7, 6, 6, 300, 40, false}},
      {"grouped-query 4:1, 3 layers, separate classifier, odd hidden", {64, 75, 3, 8, 2, 97, 24, false}},
      {"multi-query, 2 layers, tied classifier", {32, 64, 2, 4, 1, 64, 16, true}},
  };
  unsigned seed = 1;
  for (const Shape& s : shapes) {
    CAPTURE(s.what);
    const std::string path = std::string(LYNX_BINARY_DIR) + "/random-" + std::to_string(seed) + ".bin";
    write_file_atomic(path, random_checkpoint(s.config, seed++, 0.2f));
    LlamaModel m = llama_load(path);
    CHECK(m.config.dim == s.config.dim);
    CHECK(m.config.n_layers == s.config.n_layers);
    CHECK(m.config.n_kv_heads == s.config.n_kv_heads);
    CHECK(m.config.vocab_size == s.config.vocab_size);
    CHECK(m.config.shared_classifier == s.config.shared_classifier);
    const float* end = m.weights.data() + m.weights.size();
    if (s.config.shared_classifier)
      CHECK(m.classifier.data == m.token_embedding.data);
    else
      CHECK(m.classifier.data == end - static_cast<int64_t>(s.config.vocab_size) * s.config.dim);
    std::vector<int> tokens;
    for (int i = 0; i < s.config.seq_len; ++i) tokens.push_back((i * 37 + 5) % s.config.vocab_size);
    CHECK(max_relative_difference(m, tokens) < 1e-5);
    Decoder decoder(m);
    KvCache cache = decoder.make_cache(kv_format_parse("int8-g16"));
    for (int t : tokens) decoder.step(cache, t);
    CHECK_THROWS_WITH_AS(decoder.step(cache, 0), doctest::Contains("past the model's context"), LynxError);
  }
}
