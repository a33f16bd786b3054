#include "models/decoder/sp_tokenizer.hpp"

#include <cstdlib>

#include "common/error.hpp"
#include "common/shared_library.hpp"

namespace lynx {

#ifdef LYNX_HAVE_SENTENCEPIECE
namespace {
// The module's C functions (sp_module.cpp), looked up when the first SentencePiece model is opened.
struct SpFunctions {
  void* (*load)(const char*, char*, size_t);
  void (*free)(void*);
  int (*piece_size)(const void*);
  int (*bos_id)(const void*);
  int (*eos_id)(const void*);
  int (*encode)(const void*, const char*, size_t, int**, size_t*, char*, size_t);
  int (*decode)(const void*, const int*, size_t, char**, size_t*, char*, size_t);
};
const SpFunctions& sp() {
  static const SpFunctions f = [] {
    const SharedLibrary& lib = SharedLibrary::open(LYNX_SENTENCEPIECE_MODULE, "libsentencepiece0",
                                                   "SentencePiece tokenizer models (built with this lynxsim)");
    SpFunctions s;
    s.load = lib.function<decltype(s.load)>("lynx_sp_load");
    s.free = lib.function<decltype(s.free)>("lynx_sp_free");
    s.piece_size = lib.function<decltype(s.piece_size)>("lynx_sp_piece_size");
    s.bos_id = lib.function<decltype(s.bos_id)>("lynx_sp_bos_id");
    s.eos_id = lib.function<decltype(s.eos_id)>("lynx_sp_eos_id");
    s.encode = lib.function<decltype(s.encode)>("lynx_sp_encode");
    s.decode = lib.function<decltype(s.decode)>("lynx_sp_decode");
    return s;
  }();
  return f;
}
constexpr size_t kErrorBytes = 512;
}  // namespace

struct SpTokenizer::Impl {
  void* processor = nullptr;
  ~Impl() {
    if (processor) sp().free(processor);
  }
};

bool sentencepiece_available() { return true; }

SpTokenizer::SpTokenizer(const std::string& path) : impl_(std::make_unique<Impl>()), path_(path) {
  char error[kErrorBytes] = "";
  impl_->processor = sp().load(path.c_str(), error, sizeof error);
  if (!impl_->processor) throw_error("%s: not a SentencePiece model (%s)", path.c_str(), error);
}

int SpTokenizer::vocab_size() const { return sp().piece_size(impl_->processor); }
int SpTokenizer::bos_id() const { return sp().bos_id(impl_->processor); }
int SpTokenizer::eos_id() const { return sp().eos_id(impl_->processor); }

std::vector<int> SpTokenizer::encode(const std::string& text) const {
  char error[kErrorBytes] = "";
  int* ids = nullptr;
  size_t count = 0;
  if (sp().encode(impl_->processor, text.data(), text.size(), &ids, &count, error, sizeof error) != 0)
    throw_error("%s: cannot encode (%s)", path_.c_str(), error);
  std::vector<int> out(ids, ids + count);
  std::free(ids);
  return out;
}

std::string SpTokenizer::decode(const std::vector<int>& ids) const {
  char error[kErrorBytes] = "";
  char* text = nullptr;
  size_t bytes = 0;
  if (sp().decode(impl_->processor, ids.data(), ids.size(), &text, &bytes, error, sizeof error) != 0)
    throw_error("%s: cannot decode (%s)", path_.c_str(), error);
  std::string out(text, bytes);
  std::free(text);
  return out;
}
#else
struct SpTokenizer::Impl {};

bool sentencepiece_available() { return false; }

SpTokenizer::SpTokenizer(const std::string& path) : path_(path) {
  throw_error("%s: this lynxsim was built without SentencePiece (install libsentencepiece-dev, "
              "scripts/install-deps.sh, and rebuild), or pass the text pre-tokenized with --tokens",
              path.c_str());
}
int SpTokenizer::vocab_size() const { return 0; }
int SpTokenizer::bos_id() const { return -1; }
int SpTokenizer::eos_id() const { return -1; }
std::vector<int> SpTokenizer::encode(const std::string&) const { return {}; }
std::string SpTokenizer::decode(const std::vector<int>&) const { return ""; }
#endif

SpTokenizer::~SpTokenizer() = default;
SpTokenizer::SpTokenizer(SpTokenizer&&) noexcept = default;
SpTokenizer& SpTokenizer::operator=(SpTokenizer&&) noexcept = default;

}  // namespace lynx
