// A tiny Parquet writer, for the reader's tests and the fuzz seeds only: it writes the parts of the format that the
// real AIConfigurator tables do not use (data page v2, UNCOMPRESSED and SNAPPY pages, INT32/FLOAT/BOOLEAN columns,
// OPTIONAL columns with nulls, PLAIN strings, RLE booleans), from the format specification (parquet.thrift field
// ids, Encodings.md), so that the reader is checked on them against values the test chose. Not a general writer:
// one row group, one page per column.
#pragma once
#include <snappy.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace lynx::test_parquet {

// Thrift compact protocol, written.
struct ThriftWriter {
  std::string out;
  std::vector<int> stack;
  int last = 0;
  void varint(uint64_t v) {
    while (v >= 0x80) {
      out += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out += static_cast<char>(v);
  }
  void zigzag(int64_t v) { varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void field(int id, int type) {
    const int delta = id - last;
    if (delta > 0 && delta <= 15) {
      out += static_cast<char>((delta << 4) | type);
    } else {
      out += static_cast<char>(type);
      zigzag(id);
    }
    last = id;
  }
  void i32(int id, int64_t v) { field(id, 5), zigzag(v); }
  void i64(int id, int64_t v) { field(id, 6), zigzag(v); }
  void boolean(int id, bool v) { field(id, v ? 1 : 2); }
  void str(int id, const std::string& s) { field(id, 8), varint(s.size()), out += s; }
  void begin_struct(int id) { field(id, 12), open(); }
  void open() { stack.push_back(last), last = 0; }  // a struct that is a list element
  void end_struct() { out += '\0', last = stack.back(), stack.pop_back(); }
  void begin_list(int id, int elem_type, size_t n) {
    field(id, 9);
    if (n < 15) {
      out += static_cast<char>((n << 4) | elem_type);
    } else {
      out += static_cast<char>(0xf0 | elem_type);
      varint(n);
    }
  }
};

inline void put_u32(std::string& s, uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); }

// The RLE/bit-packed hybrid: one bit-packed run of all the values (padded to a multiple of 8).
inline std::string bitpacked_run(const std::vector<uint32_t>& values, int bit_width) {
  std::string s;
  const size_t groups = (values.size() + 7) / 8;
  ThriftWriter w;
  w.varint((groups << 1) | 1);
  s += w.out;
  std::string bits(groups * bit_width, '\0');
  for (size_t i = 0; i < values.size(); i++)
    for (int b = 0; b < bit_width; b++)
      if ((values[i] >> b) & 1) bits[(i * bit_width + b) / 8] |= static_cast<char>(1 << ((i * bit_width + b) % 8));
  return s + bits;
}
// The hybrid as RLE runs (one per value: repeated value of ceil(bit_width/8) bytes).
inline std::string rle_runs(const std::vector<uint32_t>& values, int bit_width) {
  ThriftWriter w;
  for (uint32_t v : values) {
    w.varint(1 << 1);
    for (int b = 0; b < (bit_width + 7) / 8; b++) w.out += static_cast<char>((v >> (8 * b)) & 0xff);
  }
  return w.out;
}

struct Column {
  std::string name;
  int type = 2;        // parquet.thrift Type: 0 BOOLEAN, 1 INT32, 2 INT64, 4 FLOAT, 5 DOUBLE, 6 BYTE_ARRAY
  bool optional = false;
  int codec = 0;       // 0 UNCOMPRESSED, 1 SNAPPY, 6 ZSTD
  bool v2 = false;     // data page v2
  bool dictionary = false;  // a dictionary page and RLE_DICTIONARY values (BYTE_ARRAY or INT64)
  int dictionary_bit_width = 4;  // the indices' bit width (at least what the dictionary's size needs)
  bool rle_booleans = false;
  std::vector<int64_t> ints{};       // one per row (BOOLEAN 0/1, INT32, INT64)
  std::vector<double> reals{};       // FLOAT, DOUBLE
  std::vector<std::string> texts{};  // BYTE_ARRAY
  std::vector<bool> nulls{};         // per row, for an optional column
};

inline std::string compress(int codec, const std::string& raw) {
  if (codec == 0) return raw;
  std::string out;
  if (codec == 1) {
    snappy::Compress(raw.data(), raw.size(), &out);
    return out;
  }
  out.resize(ZSTD_compressBound(raw.size()));
  out.resize(ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), 3));
  return out;
}

inline size_t rows_of(const Column& c) {
  return c.type == 6 ? c.texts.size() : (c.type == 4 || c.type == 5) ? c.reals.size() : c.ints.size();
}

// PLAIN bytes of the non-null values of rows [all] (or of the given text dictionary).
inline std::string plain_values(const Column& c) {
  std::string s;
  std::vector<bool> bools;
  for (size_t r = 0; r < rows_of(c); r++) {
    if (c.optional && c.nulls[r]) continue;
    switch (c.type) {
      case 0: bools.push_back(c.ints[r] != 0); break;
      case 1: { int32_t v = static_cast<int32_t>(c.ints[r]); s.append(reinterpret_cast<const char*>(&v), 4); break; }
      case 2: s.append(reinterpret_cast<const char*>(&c.ints[r]), 8); break;
      case 4: { float v = static_cast<float>(c.reals[r]); s.append(reinterpret_cast<const char*>(&v), 4); break; }
      case 5: s.append(reinterpret_cast<const char*>(&c.reals[r]), 8); break;
      case 6: put_u32(s, static_cast<uint32_t>(c.texts[r].size())), s += c.texts[r]; break;
    }
  }
  if (c.type == 0) {
    std::string bits((bools.size() + 7) / 8, '\0');
    for (size_t i = 0; i < bools.size(); i++)
      if (bools[i]) bits[i / 8] |= static_cast<char>(1 << (i % 8));
    s = bits;
  }
  return s;
}

inline std::string page_header(int type, size_t uncompressed, size_t compressed, int sub_id,
                               const std::function<void(ThriftWriter&)>& sub) {
  ThriftWriter w;
  w.i32(1, type);
  w.i32(2, static_cast<int64_t>(uncompressed));
  w.i32(3, static_cast<int64_t>(compressed));
  w.begin_struct(sub_id);
  sub(w);
  w.end_struct();
  w.out += '\0';
  return w.out;
}

// A whole file of the given columns (all of one length).
inline std::string write_file(const std::vector<Column>& columns) {
  std::string file = "PAR1";
  const size_t rows = columns.empty() ? 0 : rows_of(columns[0]);
  struct Chunk {
    int64_t data_offset, dict_offset, total;
  };
  std::vector<Chunk> chunks;
  for (const Column& c : columns) {
    Chunk ch{0, 0, 0};
    const size_t start = file.size();
    // Levels.
    std::vector<uint32_t> levels;
    size_t non_null = 0;
    for (size_t r = 0; r < rows; r++) {
      const bool here = !(c.optional && c.nulls[r]);
      levels.push_back(here ? 1 : 0);
      non_null += here;
    }
    std::string values;
    int encoding = 0;
    if (c.dictionary) {
      // Dictionary of the distinct non-null values, in first-seen order.
      std::vector<std::string> dict_text;
      std::vector<int64_t> dict_int;
      std::vector<uint32_t> idx;
      for (size_t r = 0; r < rows; r++) {
        if (!levels[r]) continue;
        size_t k = 0;
        if (c.type == 6) {
          for (; k < dict_text.size() && dict_text[k] != c.texts[r]; k++) {}
          if (k == dict_text.size()) dict_text.push_back(c.texts[r]);
        } else {
          for (; k < dict_int.size() && dict_int[k] != c.ints[r]; k++) {}
          if (k == dict_int.size()) dict_int.push_back(c.ints[r]);
        }
        idx.push_back(static_cast<uint32_t>(k));
      }
      Column d = c;
      d.optional = false;
      d.texts = dict_text;
      d.ints = dict_int;
      const std::string raw = plain_values(d);
      const std::string packed = compress(c.codec, raw);
      const size_t n = c.type == 6 ? dict_text.size() : dict_int.size();
      ch.dict_offset = static_cast<int64_t>(file.size());
      file += page_header(2, raw.size(), packed.size(), 7, [&](ThriftWriter& w) {
        w.i32(1, static_cast<int64_t>(n));
        w.i32(2, 0);
      });
      file += packed;
      values = std::string(1, static_cast<char>(c.dictionary_bit_width)) + bitpacked_run(idx, c.dictionary_bit_width);
      encoding = 8;
    } else if (c.rle_booleans) {
      std::vector<uint32_t> bits;
      for (size_t r = 0; r < rows; r++)
        if (levels[r]) bits.push_back(c.ints[r] != 0);
      const std::string run = rle_runs(bits, 1);
      put_u32(values, static_cast<uint32_t>(run.size()));
      values += run;
      encoding = 3;
    } else {
      values = plain_values(c);
    }
    ch.data_offset = static_cast<int64_t>(file.size());
    if (!c.v2) {
      std::string raw;
      if (c.optional) {
        const std::string lv = rle_runs(levels, 1);
        put_u32(raw, static_cast<uint32_t>(lv.size()));
        raw += lv;
      }
      raw += values;
      const std::string packed = compress(c.codec, raw);
      file += page_header(0, raw.size(), packed.size(), 5, [&](ThriftWriter& w) {
        w.i32(1, static_cast<int64_t>(rows));
        w.i32(2, encoding);
        w.i32(3, 3);
        w.i32(4, 3);
      });
      file += packed;
    } else {
      const std::string lv = c.optional ? bitpacked_run(levels, 1) : "";
      const std::string packed = compress(c.codec, values);
      file += page_header(3, lv.size() + values.size(), lv.size() + packed.size(), 8, [&](ThriftWriter& w) {
        w.i32(1, static_cast<int64_t>(rows));
        w.i32(2, static_cast<int64_t>(rows - non_null));
        w.i32(3, static_cast<int64_t>(rows));
        w.i32(4, encoding);
        w.i32(5, static_cast<int64_t>(lv.size()));
        w.i32(6, 0);
      });
      file += lv + packed;
    }
    ch.total = static_cast<int64_t>(file.size() - start);
    chunks.push_back(ch);
  }
  ThriftWriter w;
  w.i32(1, 2);
  w.begin_list(2, 12, columns.size() + 1);
  w.open();
  w.str(4, "schema");
  w.i32(5, static_cast<int64_t>(columns.size()));
  w.end_struct();
  for (const Column& c : columns) {
    w.open();
    w.i32(1, c.type);
    w.i32(3, c.optional ? 1 : 0);
    w.str(4, c.name);
    w.end_struct();
  }
  w.i64(3, static_cast<int64_t>(rows));
  w.begin_list(4, 12, 1);
  w.open();
  w.begin_list(1, 12, columns.size());
  for (size_t i = 0; i < columns.size(); i++) {
    w.open();
    w.i64(2, chunks[i].data_offset);
    w.begin_struct(3);
    w.i32(1, columns[i].type);
    w.begin_list(2, 5, 1);
    w.zigzag(0);
    w.begin_list(3, 8, 1);
    w.varint(columns[i].name.size());
    w.out += columns[i].name;
    w.i32(4, columns[i].codec);
    w.i64(5, static_cast<int64_t>(rows));
    w.i64(6, chunks[i].total);
    w.i64(7, chunks[i].total);
    w.i64(9, chunks[i].data_offset);
    if (columns[i].dictionary) w.i64(11, chunks[i].dict_offset);
    w.end_struct();
    w.end_struct();
  }
  w.i64(2, 0);
  w.i64(3, static_cast<int64_t>(rows));
  w.end_struct();
  w.str(6, "lynxsim test writer");
  w.out += '\0';
  file += w.out;
  put_u32(file, static_cast<uint32_t>(w.out.size()));
  file += "PAR1";
  return file;
}

}  // namespace lynx::test_parquet
