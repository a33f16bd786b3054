// SHA-256 against the FIPS 180-4 / NIST example vectors, including messages whose padding needs a second block.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "common/sha256.hpp"

using lynx::sha256_hex;

TEST_CASE("sha256 of the NIST example messages") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmn"
                   "opqrstnopqrstu") == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256 of 55, 56 and 64 bytes: the padding boundaries") {
  CHECK(sha256_hex(std::string(55, 'a')) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  CHECK(sha256_hex(std::string(56, 'a')) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  CHECK(sha256_hex(std::string(64, 'a')) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST_CASE("incremental hashing in uneven pieces equals hashing at once") {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += static_cast<char>((i * 131 + 7) % 256);
  lynx::Sha256 h;
  size_t at = 0;
  for (size_t piece : {0, 1, 63, 64, 65, 3, 200, 500}) {
    h.update(text.data() + at, piece);
    at += piece;
  }
  h.update(text.data() + at, text.size() - at);
  CHECK(h.hex() == sha256_hex(text));
}

TEST_CASE("sha256_file: the hash of a file's bytes, past the 1 MiB read block, a missing file is named") {
  const std::string path = (std::filesystem::temp_directory_path() / "lynx_sha256_file_test.bin").string();
  std::ofstream(path, std::ios::binary) << std::string(1000000, 'a') << std::string(100000, 'b');
  CHECK(lynx::sha256_file(path) == sha256_hex(std::string(1000000, 'a') + std::string(100000, 'b')));
  std::ofstream(path, std::ios::binary) << std::string(1000000, 'a');
  CHECK(lynx::sha256_file(path) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  std::filesystem::remove(path);
  CHECK_THROWS_WITH_AS(lynx::sha256_file(path), doctest::Contains("lynx_sha256_file_test.bin: cannot open file"),
                       lynx::LynxError);
}
