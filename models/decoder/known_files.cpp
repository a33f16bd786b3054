#include "models/decoder/known_files.hpp"

#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "common/sha256.hpp"

namespace lynx {

namespace {
struct KnownFile {
  const char* name;
  const char* sha256;
  const char* source;
};
constexpr KnownFile kKnownFiles[] = {
    {"stories260K.bin", "b0a507e7ad0f626624f17112325e66691f9076d622e1d3274d103d00299f2696",
     "huggingface.co/karpathy/tinyllamas, stories260K, rev 0bd21da7"},
    {"tok512.bin", "037cb335abb25d1fa9e8ecae30ed2a3a8ace9302862ebcdc05d51a6bbb10c312",
     "huggingface.co/karpathy/tinyllamas, stories260K, rev 0bd21da7"},
    {"tinystories_v2_validation_100.txt", "18ba82c47581aa02eef2fac23c31f092e17335af4fc361c0be3d94e2bc6a7c9f",
     "the first 100 stories of roneneldan/TinyStories TinyStoriesV2-GPT4-valid.txt"},
};

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
}  // namespace

std::string known_file_sha256(const std::string& file_name) {
  for (const auto& f : kKnownFiles)
    if (file_name == f.name) return f.sha256;
  return "";
}

void check_known_sha256(const std::string& path, const std::string& sha256, uint64_t size) {
  const std::string name = base_name(path);
  for (const auto& f : kKnownFiles) {
    if (name != f.name) continue;
    if (sha256 != f.sha256)
      throw_error("%s: sha256 %s is not the known %s of the shipped %s (%llu bytes read); this is a different file "
                  "with the same name: use the one from %s",
                  path.c_str(), sha256.c_str(), f.sha256, f.name, static_cast<unsigned long long>(size), f.source);
    return;
  }
}

void check_known_file(const std::string& path, const std::string& bytes) {
  if (!known_file_sha256(base_name(path)).empty()) check_known_sha256(path, sha256_hex(bytes), bytes.size());
}

std::string shipped_model_path() { return data_file("models/stories260K/stories260K.bin"); }
std::string shipped_tokenizer_path() { return data_file("models/stories260K/tok512.bin"); }
std::string shipped_text_path() { return data_file("text/tinystories_v2_validation_100.txt"); }

}  // namespace lynx
