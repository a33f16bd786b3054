// Parquet reading (parquet_reader.hpp), from the format specification: parquet-format's parquet.thrift (the field
// ids of FileMetaData, SchemaElement, RowGroup, ColumnChunk, ColumnMetaData, PageHeader and the page headers) and
// Encodings.md (PLAIN, the RLE/bit-packed hybrid, dictionary encoding). Layout of a file:
//   "PAR1" | column chunks (pages: PageHeader in Thrift compact, then its bytes) | FileMetaData | u32 len | "PAR1"
// Each column chunk is read from its first page (the dictionary page when there is one) until it has delivered the
// chunk's num_values values; every page header and page body must lie inside the file before the footer.
#include "common/atomic_file.hpp"
#include "models/readers/parquet_reader.hpp"

#include <snappy-c.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "models/readers/thrift_compact.hpp"

namespace lynx {
namespace {
using TR = ThriftCompactReader;

// parquet.thrift enums.
enum PhysicalType { kBoolean = 0, kInt32 = 1, kInt64 = 2, kInt96 = 3, kFloat = 4, kDouble = 5, kByteArray = 6,
                    kFixedLenByteArray = 7 };
enum Repetition { kRequired = 0, kOptional = 1, kRepeated = 2 };
enum Codec { kUncompressed = 0, kSnappy = 1, kGzip = 2, kLzo = 3, kBrotli = 4, kLz4 = 5, kZstd = 6, kLz4Raw = 7 };
enum Encoding { kPlain = 0, kPlainDictionary = 2, kRle = 3, kBitPacked = 4, kRleDictionary = 8 };
enum PageType { kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3 };

const char* type_name(int t) {
  static const char* names[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY",
                                "FIXED_LEN_BYTE_ARRAY"};
  return t >= 0 && t <= 7 ? names[t] : "an unknown type";
}
std::string codec_name(int c) {
  static const char* names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};
  return c >= 0 && c <= 7 ? names[c] : "codec " + std::to_string(c);
}
std::string encoding_name(int e) {
  static const char* names[] = {"PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED",
                                "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
                                "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"};
  return e >= 0 && e <= 9 ? names[e] : "encoding " + std::to_string(e);
}

struct SchemaLeaf {
  std::string name;
  int type = -1;
  int repetition = kRequired;
};

struct ChunkMeta {
  int type = -1;
  int codec = -1;
  int64_t num_values = -1;
  int64_t data_page_offset = -1;
  int64_t dictionary_page_offset = -1;
  std::vector<std::string> path;
};

struct DataPageV1 {
  int32_t num_values = -1, encoding = -1, def_encoding = -1, rep_encoding = -1;
};
struct DataPageV2 {
  int32_t num_values = -1, num_nulls = -1, num_rows = -1, encoding = -1, def_bytes = -1, rep_bytes = -1;
  bool is_compressed = true;
};
struct DictPage {
  int32_t num_values = -1, encoding = -1;
};
struct PageHeader {
  int type = -1;
  int32_t uncompressed_size = -1, compressed_size = -1;
  bool has_v1 = false, has_v2 = false, has_dict = false;
  DataPageV1 v1;
  DataPageV2 v2;
  DictPage dict;
};

// A bounded cursor over bytes; fail() names the file and the column being read.
struct Bytes {
  const uint8_t* p;
  const uint8_t* end;
  size_t left() const { return static_cast<size_t>(end - p); }
};

class ColumnReader {
 public:
  ColumnReader(const std::string& file, const std::string& bytes, size_t data_end, const SchemaLeaf& leaf,
               ParquetColumn& out, const ParquetLimits& limits)
      : file_(file), bytes_(bytes), data_end_(data_end), leaf_(leaf), out_(out), limits_(limits) {}

  void read_chunk(const ChunkMeta& m, int64_t rg_rows, int rg_index) {
    where_ = file_ + ": column '" + printable(leaf_.name) + "', row group " + std::to_string(rg_index);
    if (m.type != leaf_.type)
      fail(std::string("the column chunk says ") + type_name(m.type) + " but the schema says " +
           type_name(leaf_.type));
    if (m.num_values != rg_rows)
      fail("the column chunk has " + std::to_string(m.num_values) + " values for a row group of " +
           std::to_string(rg_rows) + " rows");
    if (m.codec != kUncompressed && m.codec != kSnappy && m.codec != kZstd)
      fail("compression " + codec_name(m.codec) + " is not read (UNCOMPRESSED, SNAPPY and ZSTD are)");
    codec_ = m.codec;
    int64_t offset = m.data_page_offset;
    if (m.dictionary_page_offset > 0 && m.dictionary_page_offset < offset) offset = m.dictionary_page_offset;
    if (offset < 4 || static_cast<uint64_t>(offset) >= data_end_)
      fail("the first page offset " + std::to_string(offset) + " lies outside the file's data (4.." +
           std::to_string(data_end_) + ")");
    dictionary_.clear();
    dict_ints_.clear();
    dict_reals_.clear();
    have_dictionary_ = false;
    int64_t done = 0;
    size_t pos = static_cast<size_t>(offset);
    int pages = 0;
    while (done < rg_rows) {
      if (pos >= data_end_) fail("the pages end before the chunk's " + std::to_string(rg_rows) + " values");
      page_where_ = where_ + ", page " + std::to_string(pages) + " at byte " + std::to_string(pos);
      const auto* base = reinterpret_cast<const uint8_t*>(bytes_.data());
      TR tr(base + pos, base + data_end_, page_where_ + " header");
      PageHeader h = read_page_header(tr);
      pos += tr.consumed();
      if (h.compressed_size < 0 || h.uncompressed_size < 0) page_fail("a negative page size");
      if (static_cast<uint64_t>(h.compressed_size) > data_end_ - pos)
        page_fail("the page's " + std::to_string(h.compressed_size) + " bytes run past the end of the data (" +
                  std::to_string(data_end_ - pos) + " bytes left)");
      if (h.uncompressed_size > limits_.max_page_bytes)
        page_fail("an uncompressed page size of " + std::to_string(h.uncompressed_size) + " bytes (at most " +
                  std::to_string(limits_.max_page_bytes) + " read)");
      Bytes body{base + pos, base + pos + h.compressed_size};
      pos += static_cast<size_t>(h.compressed_size);
      pages++;
      if (h.type == kDictionaryPage) {
        if (!h.has_dict) page_fail("a dictionary page without its header");
        if (have_dictionary_) page_fail("a second dictionary page in one column chunk");
        read_dictionary(h, body);
      } else if (h.type == kDataPage) {
        if (!h.has_v1) page_fail("a data page without its header");
        done += read_data_v1(h, body, rg_rows - done);
      } else if (h.type == kDataPageV2) {
        if (!h.has_v2) page_fail("a data page v2 without its header");
        done += read_data_v2(h, body, rg_rows - done);
      } else if (h.type == kIndexPage) {
        // An index page carries no values.
      } else {
        page_fail("an unknown page type " + std::to_string(h.type));
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw LynxError(where_ + ": " + what); }
  [[noreturn]] void page_fail(const std::string& what) const { throw LynxError(page_where_ + ": " + what); }

  static PageHeader read_page_header(TR& tr) {
    PageHeader h;
    tr.struct_fields([&](int id, int t) {
      if (id == 1 && t == TR::kI32) h.type = tr.i32();
      else if (id == 2 && t == TR::kI32) h.uncompressed_size = tr.i32();
      else if (id == 3 && t == TR::kI32) h.compressed_size = tr.i32();
      else if (id == 5 && t == TR::kStruct) {
        h.has_v1 = true;
        tr.struct_fields([&](int f, int ft) {
          if (f == 1 && ft == TR::kI32) h.v1.num_values = tr.i32();
          else if (f == 2 && ft == TR::kI32) h.v1.encoding = tr.i32();
          else if (f == 3 && ft == TR::kI32) h.v1.def_encoding = tr.i32();
          else if (f == 4 && ft == TR::kI32) h.v1.rep_encoding = tr.i32();
          else tr.skip(ft);
        });
      } else if (id == 7 && t == TR::kStruct) {
        h.has_dict = true;
        tr.struct_fields([&](int f, int ft) {
          if (f == 1 && ft == TR::kI32) h.dict.num_values = tr.i32();
          else if (f == 2 && ft == TR::kI32) h.dict.encoding = tr.i32();
          else tr.skip(ft);
        });
      } else if (id == 8 && t == TR::kStruct) {
        h.has_v2 = true;
        tr.struct_fields([&](int f, int ft) {
          if (f == 1 && ft == TR::kI32) h.v2.num_values = tr.i32();
          else if (f == 2 && ft == TR::kI32) h.v2.num_nulls = tr.i32();
          else if (f == 3 && ft == TR::kI32) h.v2.num_rows = tr.i32();
          else if (f == 4 && ft == TR::kI32) h.v2.encoding = tr.i32();
          else if (f == 5 && ft == TR::kI32) h.v2.def_bytes = tr.i32();
          else if (f == 6 && ft == TR::kI32) h.v2.rep_bytes = tr.i32();
          else if (f == 7 && (ft == TR::kTrue || ft == TR::kFalse)) h.v2.is_compressed = tr.boolean_field(ft);
          else tr.skip(ft);
        });
      } else {
        tr.skip(t);
      }
    });
    return h;
  }

  // The page's bytes after decompression (exactly `size` of them, or an error).
  std::string decompress(Bytes in, int64_t size) {
    std::string out;
    if (codec_ == kUncompressed) {
      if (static_cast<int64_t>(in.left()) != size)
        page_fail("an uncompressed page of " + std::to_string(in.left()) + " bytes that says " +
                  std::to_string(size));
      out.assign(reinterpret_cast<const char*>(in.p), in.left());
      return out;
    }
    if (codec_ == kSnappy) {
      size_t n = 0;
      if (snappy_uncompressed_length(reinterpret_cast<const char*>(in.p), in.left(), &n) != SNAPPY_OK)
        page_fail("a damaged SNAPPY block (its length header does not read)");
      if (static_cast<int64_t>(n) != size)
        page_fail("a SNAPPY block of " + std::to_string(n) + " bytes where the page header says " +
                  std::to_string(size));
      out.resize(n);
      size_t written = n;
      if (snappy_uncompress(reinterpret_cast<const char*>(in.p), in.left(), out.data(), &written) != SNAPPY_OK ||
          written != n)
        page_fail("a damaged SNAPPY block");
      return out;
    }
    // ZSTD: the frame's declared content size, when it has one, must be the page's.
    const unsigned long long declared = ZSTD_getFrameContentSize(in.p, in.left());
    if (declared == ZSTD_CONTENTSIZE_ERROR) page_fail("a damaged ZSTD frame (its header does not read)");
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != static_cast<unsigned long long>(size))
      page_fail("a ZSTD frame of " + std::to_string(declared) + " bytes where the page header says " +
                std::to_string(size));
    out.resize(static_cast<size_t>(size));
    const size_t got = ZSTD_decompress(out.data(), out.size(), in.p, in.left());
    if (ZSTD_isError(got)) page_fail(std::string("a damaged ZSTD frame (") + ZSTD_getErrorName(got) + ")");
    if (static_cast<int64_t>(got) != size)
      page_fail("a ZSTD frame of " + std::to_string(got) + " bytes where the page header says " +
                std::to_string(size));
    return out;
  }

  // `n` little-endian values of type T (bounds already checked), appended to `out` as its element type.
  template <class T, class Out>
  static void fixed_width(Bytes& in, int64_t n, std::vector<Out>& out) {
    for (int64_t i = 0; i < n; i++, in.p += sizeof(T)) {
      T v;
      std::memcpy(&v, in.p, sizeof(T));
      out.push_back(static_cast<Out>(v));
    }
  }

  // Reads `n` PLAIN values of the column's type into the given vectors (text values are appended to `pool`).
  void plain(Bytes& in, int64_t n, std::vector<int64_t>* ints, std::vector<double>* reals,
             std::vector<std::string>* pool, std::vector<int32_t>* text_index) {
    const int t = leaf_.type;
    auto need = [&](uint64_t bytes, const char* what) {
      if (bytes > in.left()) page_fail(std::string("PLAIN ") + what + " values run past the end of the page");
    };
    if (t == kBoolean) {
      need((static_cast<uint64_t>(n) + 7) / 8, "BOOLEAN");
      for (int64_t i = 0; i < n; i++) ints->push_back((in.p[i / 8] >> (i % 8)) & 1);
      in.p += (n + 7) / 8;
    } else if (t == kInt32 || t == kFloat || t == kInt64 || t == kDouble) {
      const uint64_t width = t == kInt32 || t == kFloat ? 4 : 8;
      need(static_cast<uint64_t>(n) * width, type_name(t));
      if (t == kInt32) fixed_width<int32_t>(in, n, *ints);
      if (t == kInt64) fixed_width<int64_t>(in, n, *ints);
      if (t == kFloat) fixed_width<float>(in, n, *reals);
      if (t == kDouble) fixed_width<double>(in, n, *reals);
    } else {  // BYTE_ARRAY: u32 length, bytes
      for (int64_t i = 0; i < n; i++) {
        need(4, "BYTE_ARRAY");
        uint32_t len;
        std::memcpy(&len, in.p, 4);
        in.p += 4;
        need(len, "BYTE_ARRAY");
        if (pool->size() >= static_cast<size_t>(INT32_MAX)) page_fail("too many strings");
        text_index->push_back(static_cast<int32_t>(pool->size()));
        pool->emplace_back(reinterpret_cast<const char*>(in.p), len);
        in.p += len;
      }
    }
  }

  // The RLE/bit-packed hybrid (Encodings.md): runs of `header` varints; header & 1 = bit-packed groups of 8 values,
  // else a repeated value of ceil(bit_width/8) bytes. Appends exactly n values, each < 2^bit_width.
  void hybrid(Bytes& in, int bit_width, int64_t n, std::vector<uint32_t>& out) {
    if (bit_width < 0 || bit_width > 32) page_fail("an RLE bit width of " + std::to_string(bit_width));
    const int64_t target = static_cast<int64_t>(out.size()) + n;
    while (static_cast<int64_t>(out.size()) < target) {
      uint64_t header = 0;
      for (int shift = 0;; shift += 7) {
        if (shift > 63) page_fail("an RLE run header longer than 10 bytes");
        if (in.p >= in.end) page_fail("the RLE runs end before their " + std::to_string(n) + " values");
        const uint8_t b = *in.p++;
        header |= static_cast<uint64_t>(b & 0x7f) << shift;
        if ((b & 0x80) == 0) break;
      }
      const int64_t want = target - static_cast<int64_t>(out.size());
      if (header & 1) {
        const uint64_t groups = header >> 1;
        if (groups == 0) page_fail("an empty bit-packed RLE run");
        if (bit_width > 0 && groups > in.left()) page_fail("a bit-packed RLE run past the end of the page");
        const uint64_t bytes = groups * static_cast<uint64_t>(bit_width);  // 8 values x bit_width bits / 8
        if (bytes > in.left()) page_fail("a bit-packed RLE run past the end of the page");
        const uint64_t count = groups * 8;
        const int64_t take = std::min<int64_t>(want, static_cast<int64_t>(count));
        // Value i occupies bits [i*w, i*w + w) of the run, least significant first: at most 39 bits from its first
        // byte (w <= 32, offset <= 7), so one little-endian window of up to 8 bytes, clipped at the run's end, holds it.
        const uint64_t mask = bit_width == 32 ? 0xffffffffULL : (uint64_t{1} << bit_width) - 1;
        const size_t first = out.size();
        out.resize(first + static_cast<size_t>(take));
        uint32_t* dst = out.data() + first;
        for (int64_t i = 0; i < take; i++) {
          const uint64_t bit = static_cast<uint64_t>(i) * static_cast<uint64_t>(bit_width);
          const uint64_t byte = bit / 8;
          uint64_t window = 0;
          const uint64_t avail = bytes - byte;
          if (avail >= 8) {
            std::memcpy(&window, in.p + byte, 8);
          } else {
            for (uint64_t b = 0; b < avail; b++) window |= static_cast<uint64_t>(in.p[byte + b]) << (8 * b);
          }
          dst[i] = static_cast<uint32_t>((window >> (bit % 8)) & mask);
        }
        in.p += bytes;
      } else {
        const uint64_t count = header >> 1;
        if (count == 0) page_fail("an empty RLE run");
        const int value_bytes = (bit_width + 7) / 8;
        if (static_cast<size_t>(value_bytes) > in.left()) page_fail("an RLE run value past the end of the page");
        uint32_t v = 0;
        for (int b = 0; b < value_bytes; b++) v |= static_cast<uint32_t>(in.p[b]) << (8 * b);
        in.p += value_bytes;
        if (bit_width < 32 && (v >> bit_width) != 0) page_fail("an RLE run value wider than its bit width");
        const int64_t take = std::min<int64_t>(want, count > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX
                                                                                             : static_cast<int64_t>(count));
        out.insert(out.end(), static_cast<size_t>(take), v);
      }
    }
  }

  void read_dictionary(const PageHeader& h, Bytes body) {
    if (h.dict.encoding != kPlain && h.dict.encoding != kPlainDictionary)
      page_fail("a dictionary page in " + encoding_name(h.dict.encoding) + " (PLAIN expected)");
    if (h.dict.num_values < 0) page_fail("a negative dictionary size");
    const std::string data = decompress(body, h.uncompressed_size);
    Bytes in{reinterpret_cast<const uint8_t*>(data.data()),
             reinterpret_cast<const uint8_t*>(data.data()) + data.size()};
    // Each entry takes at least one byte (a BOOLEAN dictionary is not written by Parquet writers).
    if (static_cast<uint64_t>(h.dict.num_values) > data.size() * 8 + 8) page_fail("a dictionary larger than its page");
    std::vector<int32_t> unused;
    if (leaf_.type == kByteArray) {
      // Strings go straight into the column's pool; the dictionary maps index -> pool entry.
      const size_t first = out_.pool.size();
      plain(in, h.dict.num_values, nullptr, nullptr, &out_.pool, &unused);
      dictionary_.resize(static_cast<size_t>(h.dict.num_values));
      for (int32_t i = 0; i < h.dict.num_values; i++) dictionary_[i] = static_cast<int32_t>(first + i);
    } else {
      plain(in, h.dict.num_values, &dict_ints_, &dict_reals_, nullptr, nullptr);
    }
    dict_size_ = h.dict.num_values;
    have_dictionary_ = true;
  }

  // Definition levels of an OPTIONAL column (max level 1, bit width 1): 1 = a value, 0 = null.
  void check_levels(const std::vector<uint32_t>& levels) {
    for (uint32_t l : levels)
      if (l > 1) page_fail("a definition level above 1 in a flat column");
  }

  // Values of one page (the part after the levels), `n_values` non-null of them, placed by `levels`.
  void read_values(Bytes in, int encoding, int64_t rows, const std::vector<uint32_t>& levels) {
    int64_t n_values = rows;
    if (leaf_.repetition == kOptional) {
      n_values = 0;
      for (uint32_t l : levels) n_values += l;
    }
    std::vector<int64_t> ints;
    std::vector<double> reals;
    std::vector<int32_t> text;
    if (leaf_.type == kByteArray) text.reserve(static_cast<size_t>(n_values));
    else if (leaf_.type == kFloat || leaf_.type == kDouble) reals.reserve(static_cast<size_t>(n_values));
    else ints.reserve(static_cast<size_t>(n_values));
    if (encoding == kPlain) {
      if (leaf_.type != kBoolean && leaf_.type != kByteArray) {
        const uint64_t width = leaf_.type == kInt32 || leaf_.type == kFloat ? 4 : 8;
        if (static_cast<uint64_t>(n_values) > in.left() / width) page_fail("PLAIN values run past the end of the page");
      }
      plain(in, n_values, &ints, &reals, &out_.pool, &text);
    } else if (encoding == kRleDictionary || encoding == kPlainDictionary) {
      if (!have_dictionary_) page_fail("dictionary-encoded values without a dictionary page");
      if (in.left() < 1) page_fail("a dictionary-encoded page without its bit width");
      const int bit_width = *in.p++;
      std::vector<uint32_t> idx;
      idx.reserve(static_cast<size_t>(n_values));
      hybrid(in, bit_width, n_values, idx);
      uint32_t largest = 0;
      for (uint32_t i : idx) largest = std::max(largest, i);
      if (!idx.empty() && static_cast<int64_t>(largest) >= dict_size_)
        page_fail("a dictionary index " + std::to_string(largest) + " beyond the dictionary's " +
                  std::to_string(dict_size_) + " entries");
      if (leaf_.type == kByteArray) for (uint32_t i : idx) text.push_back(dictionary_[i]);
      else if (leaf_.type == kFloat || leaf_.type == kDouble) for (uint32_t i : idx) reals.push_back(dict_reals_[i]);
      else for (uint32_t i : idx) ints.push_back(dict_ints_[i]);
    } else if (encoding == kRle && leaf_.type == kBoolean) {
      if (in.left() < 4) page_fail("an RLE boolean page without its length");
      uint32_t len;
      std::memcpy(&len, in.p, 4);
      in.p += 4;
      if (len > in.left()) page_fail("RLE booleans longer than the page");
      Bytes run{in.p, in.p + len};
      std::vector<uint32_t> bits;
      bits.reserve(static_cast<size_t>(n_values));
      hybrid(run, 1, n_values, bits);
      for (uint32_t b : bits) ints.push_back(b);
    } else {
      page_fail("values in " + encoding_name(encoding) + " are not read (PLAIN, RLE_DICTIONARY, PLAIN_DICTIONARY" +
                (leaf_.type == kBoolean ? ", RLE" : "") + " are)");
    }
    // Place them: a null row gets a zero / -1 and present 0. A REQUIRED column's values are its rows, and so are an
    // OPTIONAL page's when it has no null.
    if (leaf_.repetition != kOptional || n_values == rows) {
      out_.present.insert(out_.present.end(), static_cast<size_t>(rows), uint8_t{1});
      if (leaf_.type == kByteArray) out_.text_index.insert(out_.text_index.end(), text.begin(), text.end());
      else if (leaf_.type == kFloat || leaf_.type == kDouble) out_.reals.insert(out_.reals.end(), reals.begin(), reals.end());
      else out_.ints.insert(out_.ints.end(), ints.begin(), ints.end());
      return;
    }
    // An OPTIONAL column: levels are 0 or 1 (check_levels), and exactly n_values of them are 1.
    const size_t base = out_.present.size();
    out_.present.resize(base + static_cast<size_t>(rows));
    uint8_t* present = out_.present.data() + base;
    for (int64_t r = 0; r < rows; r++) present[r] = static_cast<uint8_t>(levels[static_cast<size_t>(r)]);
    auto scatter = [&](auto& column, const auto& values, auto null_value) {
      column.resize(base + static_cast<size_t>(rows));
      auto* dst = column.data() + base;
      size_t next = 0;
      for (int64_t r = 0; r < rows; r++) dst[r] = present[r] ? values[next++] : null_value;
    };
    if (leaf_.type == kByteArray) scatter(out_.text_index, text, int32_t{-1});
    else if (leaf_.type == kFloat || leaf_.type == kDouble) scatter(out_.reals, reals, 0.0);
    else scatter(out_.ints, ints, int64_t{0});
  }

  int64_t check_page_rows(int64_t rows, int64_t left) {
    if (rows <= 0) page_fail("a data page of " + std::to_string(rows) + " values");
    if (rows > left)
      page_fail("a data page of " + std::to_string(rows) + " values where the chunk has " + std::to_string(left) +
                " left");
    return rows;
  }

  int64_t read_data_v1(const PageHeader& h, Bytes body, int64_t left) {
    const int64_t rows = check_page_rows(h.v1.num_values, left);
    const std::string data = decompress(body, h.uncompressed_size);
    Bytes in{reinterpret_cast<const uint8_t*>(data.data()),
             reinterpret_cast<const uint8_t*>(data.data()) + data.size()};
    std::vector<uint32_t> levels;
    if (leaf_.repetition == kOptional) {
      if (h.v1.def_encoding != kRle)
        page_fail("definition levels in " + encoding_name(h.v1.def_encoding) + " (RLE expected)");
      if (in.left() < 4) page_fail("definition levels without their length");
      uint32_t len;
      std::memcpy(&len, in.p, 4);
      in.p += 4;
      if (len > in.left()) page_fail("definition levels longer than the page");
      Bytes lv{in.p, in.p + len};
      levels.reserve(static_cast<size_t>(rows));
      hybrid(lv, 1, rows, levels);
      check_levels(levels);
      in.p += len;
    }
    read_values(in, h.v1.encoding, rows, levels);
    return rows;
  }

  int64_t read_data_v2(const PageHeader& h, Bytes body, int64_t left) {
    const int64_t rows = check_page_rows(h.v2.num_values, left);
    if (h.v2.num_rows != h.v2.num_values) page_fail("a data page v2 whose rows and values differ in a flat column");
    if (h.v2.rep_bytes != 0) page_fail("repetition levels in a flat column");
    if (h.v2.def_bytes < 0 || static_cast<size_t>(h.v2.def_bytes) > body.left())
      page_fail("definition levels longer than the page");
    if (leaf_.repetition == kRequired && h.v2.def_bytes != 0) page_fail("definition levels in a REQUIRED column");
    Bytes lv{body.p, body.p + h.v2.def_bytes};
    std::vector<uint32_t> levels;
    if (leaf_.repetition == kOptional) {
      levels.reserve(static_cast<size_t>(rows));
      hybrid(lv, 1, rows, levels);
      check_levels(levels);
      int64_t nulls = 0;
      for (uint32_t l : levels) nulls += l == 0;
      if (nulls != h.v2.num_nulls) page_fail("a data page v2 whose null count differs from its definition levels");
    }
    Bytes rest{body.p + h.v2.def_bytes, body.end};
    const int64_t values_size = static_cast<int64_t>(h.uncompressed_size) - h.v2.def_bytes;
    if (values_size < 0) page_fail("an uncompressed size smaller than its levels");
    std::string data;
    if (h.v2.is_compressed && codec_ != kUncompressed) {
      data = decompress(rest, values_size);
    } else {
      if (static_cast<int64_t>(rest.left()) != values_size) page_fail("an uncompressed page of the wrong size");
      data.assign(reinterpret_cast<const char*>(rest.p), rest.left());
    }
    Bytes in{reinterpret_cast<const uint8_t*>(data.data()),
             reinterpret_cast<const uint8_t*>(data.data()) + data.size()};
    read_values(in, h.v2.encoding, rows, levels);
    return rows;
  }

  const std::string& file_;
  const std::string& bytes_;
  size_t data_end_;
  const SchemaLeaf& leaf_;
  ParquetColumn& out_;
  const ParquetLimits& limits_;
  std::string where_, page_where_;
  int codec_ = kUncompressed;
  bool have_dictionary_ = false;
  int64_t dict_size_ = 0;
  std::vector<int32_t> dictionary_;
  std::vector<int64_t> dict_ints_;
  std::vector<double> dict_reals_;
};

ChunkMeta read_column_meta(TR& tr) {
  ChunkMeta m;
  tr.struct_fields([&](int id, int t) {
    if (id == 1 && t == TR::kI32) m.type = tr.i32();
    else if (id == 3 && t == TR::kList) tr.list([&](int et) { et == TR::kBinary ? m.path.push_back(tr.binary()) : tr.skip(et); });
    else if (id == 4 && t == TR::kI32) m.codec = tr.i32();
    else if (id == 5 && t == TR::kI64) m.num_values = tr.i64();
    else if (id == 9 && t == TR::kI64) m.data_page_offset = tr.i64();
    else if (id == 11 && t == TR::kI64) m.dictionary_page_offset = tr.i64();
    else tr.skip(t);
  });
  return m;
}

}  // namespace

namespace {
std::string read_file_bytes(const std::string& path) {
  return read_file(path);  // a regular file only, named when it cannot be read (common/atomic_file.hpp)
}
}  // namespace

ParquetTable::ParquetTable(const std::string& path, const ParquetLimits& limits) : path_(path) {
  parse(read_file_bytes(path), limits, nullptr);
}

ParquetTable::ParquetTable(const std::string& path, const std::vector<std::string>& only_columns,
                           const ParquetLimits& limits)
    : path_(path) {
  parse(read_file_bytes(path), limits, &only_columns);
}

ParquetTable ParquetTable::from_bytes(const std::string& bytes, const std::string& name, const ParquetLimits& limits,
                                      const std::vector<std::string>* only_columns) {
  ParquetTable t;
  t.path_ = name;
  t.parse(bytes, limits, only_columns);
  return t;
}

void ParquetTable::parse(const std::string& bytes, const ParquetLimits& limits,
                         const std::vector<std::string>* only_columns) {
  const std::string& f = path_;
  if (bytes.size() < 12) throw LynxError(f + ": not a Parquet file (" + std::to_string(bytes.size()) + " bytes; " +
                                         "a Parquet file has at least 12)");
  if (bytes.compare(0, 4, "PAR1") != 0) throw LynxError(f + ": not a Parquet file (it does not start with PAR1)");
  if (bytes.compare(bytes.size() - 4, 4, "PAR1") != 0)
    throw LynxError(f + ": a truncated or damaged Parquet file (it does not end with PAR1)");
  uint32_t footer_len;
  std::memcpy(&footer_len, bytes.data() + bytes.size() - 8, 4);
  if (footer_len > bytes.size() - 12)
    throw LynxError(f + ": a damaged Parquet footer (its length " + std::to_string(footer_len) +
                    " exceeds the file's " + std::to_string(bytes.size()) + " bytes)");
  const size_t footer_start = bytes.size() - 8 - footer_len;
  const auto* base = reinterpret_cast<const uint8_t*>(bytes.data());
  TR tr(base + footer_start, base + footer_start + footer_len, f + ": footer (FileMetaData)");

  std::vector<SchemaLeaf> leaves;
  int64_t num_rows = -1;
  int schema_elements = 0;
  int root_children = -1;
  struct RowGroupMeta {
    int64_t rows = -1;
    std::vector<ChunkMeta> chunks;
  };
  std::vector<RowGroupMeta> groups;
  tr.struct_fields([&](int id, int t) {
    if (id == 2 && t == TR::kList) {
      tr.list([&](int et) {
        if (et != TR::kStruct) tr.fail("a schema element that is not a struct");
        SchemaLeaf leaf;
        int children = -1;
        tr.struct_fields([&](int fid, int ft) {
          if (fid == 1 && ft == TR::kI32) leaf.type = tr.i32();
          else if (fid == 3 && ft == TR::kI32) leaf.repetition = tr.i32();
          else if (fid == 4 && ft == TR::kBinary) leaf.name = tr.binary();
          else if (fid == 5 && ft == TR::kI32) children = tr.i32();
          else tr.skip(ft);
        });
        if (schema_elements++ == 0) {
          root_children = children;
          return;
        }
        if (children > 0) tr.fail("column '" + leaf.name + "' is a nested group (only flat schemas are read)");
        leaves.push_back(leaf);
      });
    } else if (id == 3 && t == TR::kI64) {
      num_rows = tr.i64();
    } else if (id == 4 && t == TR::kList) {
      tr.list([&](int et) {
        if (et != TR::kStruct) tr.fail("a row group that is not a struct");
        RowGroupMeta g;
        tr.struct_fields([&](int fid, int ft) {
          if (fid == 1 && ft == TR::kList) {
            tr.list([&](int ct) {
              if (ct != TR::kStruct) tr.fail("a column chunk that is not a struct");
              ChunkMeta m;
              bool has_meta = false;
              tr.struct_fields([&](int cid, int cft) {
                if (cid == 1 && cft == TR::kBinary) {
                  if (!tr.binary().empty()) tr.fail("a column chunk in another file (file_path is not read)");
                } else if (cid == 3 && cft == TR::kStruct) {
                  m = read_column_meta(tr);
                  has_meta = true;
                } else {
                  tr.skip(cft);
                }
              });
              if (!has_meta) tr.fail("a column chunk without its metadata");
              g.chunks.push_back(std::move(m));
            });
          } else if (fid == 3 && ft == TR::kI64) {
            g.rows = tr.i64();
          } else {
            tr.skip(ft);
          }
        });
        groups.push_back(std::move(g));
      });
    } else if (id == 6 && t == TR::kBinary) {
      created_by_ = tr.binary();
    } else {
      tr.skip(t);
    }
  });
  for (char& c : created_by_)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) == 0x7f) c = '?';

  if (schema_elements == 0) throw LynxError(f + ": the footer has no schema");
  if (root_children != static_cast<int>(leaves.size()))
    throw LynxError(f + ": the schema's root says " + std::to_string(root_children) + " columns but " +
                    std::to_string(leaves.size()) + " follow (only flat schemas are read)");
  if (num_rows < 0) throw LynxError(f + ": the footer has no row count");
  for (const SchemaLeaf& l : leaves) {
    if (l.repetition == kRepeated) throw LynxError(f + ": column '" + printable(l.name) + "' is REPEATED (only flat schemas are read)");
    if (l.repetition != kRequired && l.repetition != kOptional)
      throw LynxError(f + ": column '" + printable(l.name) + "' has an unknown repetition " + std::to_string(l.repetition));
    if (l.type != kBoolean && l.type != kInt32 && l.type != kInt64 && l.type != kFloat && l.type != kDouble &&
        l.type != kByteArray)
      throw LynxError(f + ": column '" + printable(l.name) + "' is of type " + type_name(l.type) +
                      " (BOOLEAN, INT32, INT64, FLOAT, DOUBLE and BYTE_ARRAY are read)");
  }
  const int64_t cols = static_cast<int64_t>(leaves.size());
  if (cols > 0 && num_rows > limits.max_cells / cols)
    throw LynxError(f + ": " + std::to_string(num_rows) + " rows of " + std::to_string(cols) +
                    " columns is more than this reader reads (" + std::to_string(limits.max_cells) + " cells)");
  int64_t group_rows = 0;
  for (const RowGroupMeta& g : groups) {
    if (g.rows < 0) throw LynxError(f + ": a row group without its row count");
    if (g.chunks.size() != leaves.size())
      throw LynxError(f + ": a row group of " + std::to_string(g.chunks.size()) + " column chunks for " +
                      std::to_string(leaves.size()) + " columns");
    if (g.rows > num_rows - group_rows) throw LynxError(f + ": the row groups hold more rows than the footer's " +
                                                        std::to_string(num_rows));
    group_rows += g.rows;
  }
  if (group_rows != num_rows)
    throw LynxError(f + ": the row groups hold " + std::to_string(group_rows) + " rows, the footer says " +
                    std::to_string(num_rows));

  // The leaves read (all, or those named) and where each goes in columns_.
  std::vector<int> slot(leaves.size(), -1);
  int kept = 0;
  for (size_t c = 0; c < leaves.size(); c++) {
    file_columns_.push_back(leaves[c].name);
    if (!only_columns || std::find(only_columns->begin(), only_columns->end(), leaves[c].name) != only_columns->end())
      slot[c] = kept++;
  }
  columns_.resize(static_cast<size_t>(kept));
  for (size_t c = 0; c < leaves.size(); c++) {
    if (slot[c] < 0) continue;
    ParquetColumn& col = columns_[static_cast<size_t>(slot[c])];
    col.name = leaves[c].name;
    col.physical_type = type_name(leaves[c].type);
    col.optional = leaves[c].repetition == kOptional;
    col.kind = leaves[c].type == kByteArray                              ? ParquetColumn::Kind::text
               : leaves[c].type == kFloat || leaves[c].type == kDouble ? ParquetColumn::Kind::real
                                                                         : ParquetColumn::Kind::integer;
    // Room for the rows the footer claims, up to a million (a forged count must not allocate before the pages
    // prove it; beyond that the vectors grow as values arrive).
    const size_t n = static_cast<size_t>(std::min<int64_t>(num_rows, int64_t{1} << 20));
    col.present.reserve(n);
    if (col.kind == ParquetColumn::Kind::text) col.text_index.reserve(n);
    else if (col.kind == ParquetColumn::Kind::real) col.reals.reserve(n);
    else col.ints.reserve(n);
  }
  for (size_t g = 0; g < groups.size(); g++) {
    for (size_t c = 0; c < leaves.size(); c++) {
      const ChunkMeta& m = groups[g].chunks[c];
      if (m.path.size() != 1 || m.path[0] != leaves[c].name)
        throw LynxError(f + ": row group " + std::to_string(g) + " column chunk " + std::to_string(c) +
                        " is not for column '" + printable(leaves[c].name) + "'");
      if (slot[c] < 0) continue;
      ColumnReader reader(f, bytes, footer_start, leaves[c], columns_[static_cast<size_t>(slot[c])], limits);
      reader.read_chunk(m, groups[g].rows, static_cast<int>(g));
    }
  }
  rows_ = num_rows;
}

bool ParquetTable::has_column(const std::string& name) const {
  for (const ParquetColumn& c : columns_)
    if (c.name == name) return true;
  return false;
}

const ParquetColumn& ParquetTable::column(const std::string& name) const {
  for (const ParquetColumn& c : columns_)
    if (c.name == name) return c;
  std::string names;
  for (const std::string& c : file_columns_) names += (names.empty() ? "" : ", ") + c;
  throw LynxError(path_ + ": no column '" + printable(name) + "' (the columns are: " + printable(names) + ")");
}

double ParquetTable::number(int64_t row, const ParquetColumn& c) const {
  if (row < 0 || row >= rows_) throw_internal_error("%s: row %lld out of range", path_.c_str(), (long long)row);
  if (c.kind == ParquetColumn::Kind::text)
    throw LynxError(path_ + ": column '" + c.name + "' holds strings where a number is needed");
  if (!c.present[static_cast<size_t>(row)])
    throw LynxError(path_ + ": column '" + c.name + "', row " + std::to_string(row) + " is null");
  return c.kind == ParquetColumn::Kind::real ? c.reals[static_cast<size_t>(row)]
                                             : static_cast<double>(c.ints[static_cast<size_t>(row)]);
}

const std::string& ParquetTable::text(int64_t row, const ParquetColumn& c) const {
  if (row < 0 || row >= rows_) throw_internal_error("%s: row %lld out of range", path_.c_str(), (long long)row);
  if (c.kind != ParquetColumn::Kind::text)
    throw LynxError(path_ + ": column '" + c.name + "' holds numbers where a string is needed");
  if (!c.present[static_cast<size_t>(row)])
    throw LynxError(path_ + ": column '" + c.name + "', row " + std::to_string(row) + " is null");
  return c.pool[static_cast<size_t>(c.text_index[static_cast<size_t>(row)])];
}

}  // namespace lynx
