#include "models/decoder/safetensors.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <utility>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"

namespace lynx {

namespace {

// A header beyond this is not a checkpoint's (the reference reader refuses 100 MB, safetensors' MAX_HEADER_SIZE).
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

}  // namespace

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int safetensors_dtype_bytes(const std::string& d) {
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
  if (d == "I8" || d == "U8" || d == "BOOL" || d == "F8_E4M3" || d == "F8_E5M2") return 1;
  return 0;
}

SafetensorsFile::SafetensorsFile(const std::string& path) : path_(path) {
  const int fd = open_input_fd(path);  // a regular file only (common/atomic_file.hpp)
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw_error("%s: cannot stat: %s", path.c_str(), std::strerror(errno));
  }
  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ < 8) {
    ::close(fd);
    throw_error("%s: %llu bytes is too short for a safetensors file (8-byte header length, JSON header, data)",
                path.c_str(), static_cast<unsigned long long>(size_));
  }
  void* base = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (base == MAP_FAILED) throw_error("%s: cannot map: %s", path.c_str(), std::strerror(errno));
  const uint64_t size = size_;
  mapping_ = std::shared_ptr<const void>(base, [size](const void* p) { ::munmap(const_cast<void*>(p), size); });
  const auto* bytes = static_cast<const uint8_t*>(base);

  tensors_ = safetensors_parse(bytes, size_, path_);
}

std::map<std::string, SafetensorsTensor> safetensors_parse(const uint8_t* bytes, uint64_t size,
                                                          const std::string& path) {
  if (size < 8)
    throw_error("%s: %llu bytes is too short for a safetensors file (8-byte header length, JSON header, data)",
                path.c_str(), static_cast<unsigned long long>(size));
  std::map<std::string, SafetensorsTensor> tensors;
  uint64_t header_bytes = 0;
  for (int i = 7; i >= 0; --i) header_bytes = header_bytes << 8 | bytes[i];
  if (header_bytes > kMaxHeaderBytes || header_bytes > size - 8)
    throw_error("%s: malformed safetensors header: its length field says %llu bytes, the file has %llu after it%s",
                path.c_str(), static_cast<unsigned long long>(header_bytes),
                static_cast<unsigned long long>(size - 8),
                header_bytes > kMaxHeaderBytes ? " (and a header is at most 100,000,000 bytes)" : " (truncated?)");
  nlohmann::json header;
  try {
    // A tensor named twice would otherwise be the last one silently (nlohmann keeps the last key).
    std::set<std::string> names;
    auto listed_once = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
      if (event == nlohmann::json::parse_event_t::key && depth == 1 &&
          !names.insert(parsed.get<std::string>()).second)
        throw_error("%s: malformed safetensors header: tensor \"%s\" is listed twice (each name once)",
                    path.c_str(), printable(parsed.get<std::string>()).c_str());
      return true;
    };
    header = nlohmann::json::parse(reinterpret_cast<const char*>(bytes + 8),
                                   reinterpret_cast<const char*>(bytes + 8 + header_bytes), listed_once);
  } catch (const nlohmann::json::exception& e) {
    throw_error("%s: malformed safetensors header: not JSON (%s)", path.c_str(), e.what());
  }
  if (!header.is_object())
    throw_error("%s: malformed safetensors header: expected a JSON object of tensors, got %s", path.c_str(),
                header.type_name());
  const uint64_t data_start = 8 + header_bytes, data_bytes = size - data_start;
  for (const auto& item : header.items()) {
    const std::string& name = item.key();  // a plain reference: clang 14 cannot capture a structured binding
    const nlohmann::json& entry = item.value();
    if (name == "__metadata__") continue;
    auto bad = [&](const std::string& why) {
      throw_error("%s: malformed safetensors header: tensor \"%s\": %s (expected {\"dtype\": \"F32\", \"shape\": "
                  "[...], \"data_offsets\": [begin, end]})",
                  path.c_str(), name.c_str(), why.c_str());
    };
    if (!entry.is_object()) bad("not an object");
    SafetensorsTensor t;
    if (!entry.contains("dtype") || !entry["dtype"].is_string()) bad("no dtype string");
    t.dtype = entry["dtype"].get<std::string>();
    const int element_bytes = safetensors_dtype_bytes(t.dtype);
    if (element_bytes == 0) bad("unknown dtype \"" + t.dtype + "\"");
    if (!entry.contains("shape") || !entry["shape"].is_array()) bad("no shape array");
    uint64_t elements = 1;
    for (const auto& d : entry["shape"]) {
      if (!d.is_number_unsigned()) bad("shape " + entry["shape"].dump() + " holds a non-integer or negative size");
      t.shape.push_back(d.get<int64_t>());
      // A count that wraps could pass the size check below and then be read past the mapping.
      if (d.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX) ||
          __builtin_mul_overflow(elements, d.get<uint64_t>(), &elements) || elements > size)
        bad("shape " + entry["shape"].dump() + " holds more elements than the file has bytes");
    }
    const auto& offsets = entry.contains("data_offsets") ? entry["data_offsets"] : nlohmann::json();
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned())
      bad("data_offsets is not [begin, end]");
    const uint64_t begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
    if (end < begin) bad("data_offsets " + offsets.dump() + " end before begin");
    if (end - begin != elements * static_cast<uint64_t>(element_bytes))
      bad("data_offsets " + offsets.dump() + " hold " + std::to_string(end - begin) + " bytes, but " + t.dtype + " " +
          shape_text(t.shape) + " needs " + std::to_string(elements * static_cast<uint64_t>(element_bytes)));
    if (end > data_bytes)
      throw_error("%s: truncated: tensor \"%s\" ends at data byte %llu, the file holds %llu bytes of data (%llu "
                  "bytes in all, the header says at least %llu)",
                  path.c_str(), name.c_str(), static_cast<unsigned long long>(end),
                  static_cast<unsigned long long>(data_bytes), static_cast<unsigned long long>(size),
                  static_cast<unsigned long long>(data_start + end));
    t.file_offset = data_start + begin;
    t.data = bytes + t.file_offset;
    t.bytes = end - begin;
    tensors.emplace(name, std::move(t));
  }
  // No two tensors share a byte: a header whose offsets point one tensor into another's bytes would decode with
  // the wrong weights (the reference reader refuses it too). Empty tensors hold no byte.
  std::vector<std::pair<const SafetensorsTensor*, const std::string*>> by_offset;
  for (const auto& [name, t] : tensors)
    if (t.bytes > 0) by_offset.emplace_back(&t, &name);
  std::stable_sort(by_offset.begin(), by_offset.end(),
            [](const auto& a, const auto& b) { return a.first->file_offset < b.first->file_offset; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    const SafetensorsTensor& before = *by_offset[i - 1].first;
    const SafetensorsTensor& t = *by_offset[i].first;
    if (t.file_offset < before.file_offset + before.bytes)
      throw_error("%s: malformed safetensors header: tensors \"%s\" (data bytes [%llu, %llu)) and \"%s\" (data bytes "
                  "[%llu, %llu)) overlap; each tensor has bytes of its own",
                  path.c_str(), printable(*by_offset[i - 1].second).c_str(),
                  static_cast<unsigned long long>(before.file_offset - data_start),
                  static_cast<unsigned long long>(before.file_offset - data_start + before.bytes),
                  printable(*by_offset[i].second).c_str(), static_cast<unsigned long long>(t.file_offset - data_start),
                  static_cast<unsigned long long>(t.file_offset - data_start + t.bytes));
  }
  return tensors;
}

const SafetensorsTensor& SafetensorsFile::tensor(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) throw_error("%s: tensor \"%s\" is missing", path_.c_str(), name.c_str());
  return it->second;
}

void safetensors_write(const std::string& path, const std::vector<SafetensorsEntry>& tensors) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  uint64_t offset = 0;
  for (const auto& t : tensors) {
    uint64_t elements = 1;
    for (int64_t d : t.shape) elements *= static_cast<uint64_t>(d);
    const int element_bytes = safetensors_dtype_bytes(t.dtype);
    if (element_bytes == 0 || elements * static_cast<uint64_t>(element_bytes) != t.bytes.size())
      throw_internal_error("safetensors_write: %s: %zu bytes for %s %s", t.name.c_str(), t.bytes.size(),
                           t.dtype.c_str(), shape_text(t.shape).c_str());
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  std::string text = header.dump();
  while ((8 + text.size()) % 8 != 0) text += ' ';
  std::string out(8, '\0');
  uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
  out += text;
  out.reserve(out.size() + offset);
  for (const auto& t : tensors) out += t.bytes;
  write_file_atomic(path, out);
}

}  // namespace lynx
