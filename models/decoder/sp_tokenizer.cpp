#include "models/decoder/sp_tokenizer.hpp"

#ifdef LYNX_HAVE_SENTENCEPIECE
#include <sentencepiece_processor.h>
#endif

#include "common/atomic_file.hpp"
#include "common/error.hpp"

namespace lynx {

#ifdef LYNX_HAVE_SENTENCEPIECE
struct SpTokenizer::Impl {
  sentencepiece::SentencePieceProcessor processor;
};

bool sentencepiece_available() { return true; }

SpTokenizer::SpTokenizer(const std::string& path) : impl_(std::make_unique<Impl>()), path_(path) {
  // Read through the one checked open (common/atomic_file.hpp: a FIFO or device is refused, not waited on).
  const auto status = impl_->processor.LoadFromSerializedProto(read_file(path));
  if (!status.ok()) throw_error("%s: not a SentencePiece model (%s)", path.c_str(), status.ToString().c_str());
}

int SpTokenizer::vocab_size() const { return impl_->processor.GetPieceSize(); }
int SpTokenizer::bos_id() const { return impl_->processor.bos_id(); }
int SpTokenizer::eos_id() const { return impl_->processor.eos_id(); }

std::vector<int> SpTokenizer::encode(const std::string& text) const {
  std::vector<int> ids;
  const auto status = impl_->processor.Encode(text, &ids);
  if (!status.ok()) throw_error("%s: cannot encode (%s)", path_.c_str(), status.ToString().c_str());
  return ids;
}

std::string SpTokenizer::decode(const std::vector<int>& ids) const {
  std::string text;
  const auto status = impl_->processor.Decode(ids, &text);
  if (!status.ok()) throw_error("%s: cannot decode (%s)", path_.c_str(), status.ToString().c_str());
  return text;
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
