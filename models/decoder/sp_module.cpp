// The SentencePiece module (liblynx_sentencepiece.so): SentencePiece's C++ processor behind a few C functions, in
// a library of its own that sp_tokenizer.cpp opens when a .model tokenizer is first used. libsentencepiece is a
// C++ library with its own relocations and static constructors; linked into lynxsim it was loaded at every start
// (about 0.5 ms, a fiftieth of a one-request simulation's start-up, issue 29), though only the decoder's
// tokenizer uses it. Errors come back as text for the caller's LynxError.
#include <sentencepiece_processor.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {
void set_error(const std::string& text, char* error, size_t error_bytes) {
  if (error_bytes == 0) return;
  const size_t n = std::min(text.size(), error_bytes - 1);
  std::memcpy(error, text.data(), n);
  error[n] = '\0';
}
const sentencepiece::SentencePieceProcessor& processor(const void* p) {
  return *static_cast<const sentencepiece::SentencePieceProcessor*>(p);
}

// `status`'s result, or its reason: the `count` elements at `data` copied into a malloc'd array (*out, *out_count;
// at least one element allocated, so that an empty result is not a null pointer) and 0, or 1 with the reason.
template <class T>
int malloc_copy(const sentencepiece::util::Status& status, const T* data, size_t count, T** out, size_t* out_count,
                char* error, size_t error_bytes) {
  if (!status.ok()) {
    set_error(status.ToString(), error, error_bytes);
    return 1;
  }
  *out = static_cast<T*>(std::malloc(std::max<size_t>(count, 1) * sizeof(T)));
  if (*out == nullptr) {
    set_error("out of memory", error, error_bytes);
    return 1;
  }
  *out_count = count;
  if (count > 0) std::memcpy(*out, data, count * sizeof(T));  // an empty vector's data() may be null
  return 0;
}
}  // namespace

extern "C" {

// A processor loaded from `path`, or null with the reason in `error`.
void* lynx_sp_load(const char* path, char* error, size_t error_bytes) {
  auto* p = new sentencepiece::SentencePieceProcessor();
  const auto status = p->Load(path);
  if (status.ok()) return p;
  set_error(status.ToString(), error, error_bytes);
  delete p;
  return nullptr;
}

void lynx_sp_free(void* p) { delete static_cast<sentencepiece::SentencePieceProcessor*>(p); }
int lynx_sp_piece_size(const void* p) { return processor(p).GetPieceSize(); }
int lynx_sp_bos_id(const void* p) { return processor(p).bos_id(); }
int lynx_sp_eos_id(const void* p) { return processor(p).eos_id(); }

// The ids of text[0, bytes) in a malloc'd array (*ids, *count; free with std::free): 0, or 1 with the reason.
int lynx_sp_encode(const void* p, const char* text, size_t bytes, int** ids, size_t* count, char* error,
                   size_t error_bytes) {
  std::vector<int> out;
  const auto status = processor(p).Encode(std::string(text, bytes), &out);
  return malloc_copy(status, out.data(), out.size(), ids, count, error, error_bytes);
}

// The text of ids[0, count) in a malloc'd buffer (*text, *bytes; free with std::free): 0, or 1 with the reason.
int lynx_sp_decode(const void* p, const int* ids, size_t count, char** text, size_t* bytes, char* error,
                   size_t error_bytes) {
  std::string out;
  const auto status = processor(p).Decode(std::vector<int>(ids, ids + count), &out);
  return malloc_copy(status, out.data(), out.size(), text, bytes, error, error_bytes);
}

}  // extern "C"
