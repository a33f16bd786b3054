// The files lynxsim ships for its functional decoder (model, tokenizer, evaluation text), with their sha256.
// A same-named file with other contents is an error, not a warning: a stories260K.bin of the same size but
// wrong weights circulates and decodes gibberish, and every accuracy figure would silently change.
#pragma once
#include <cstdint>
#include <string>

namespace lynx {

// If the file name of `path` is one of the shipped files, checks that `bytes` hash to the known sha256 and throws
// LynxError naming the file, both hashes and where the right file comes from. Other names pass unchecked.
void check_known_file(const std::string& path, const std::string& bytes);
// Same, given the file's sha256 (hex) and size, for files hashed while they are read.
void check_known_sha256(const std::string& path, const std::string& sha256, uint64_t size);

// The known sha256 of a shipped file name ("stories260K.bin"), or "" for any other name.
std::string known_file_sha256(const std::string& file_name);

// Paths of the stories260K model, its tokenizer and the evaluation text in the data folder
// (common/data_folder.hpp); a missing file is an error that says how to fetch it.
std::string shipped_model_path();
std::string shipped_tokenizer_path();
std::string shipped_text_path();

}  // namespace lynx
