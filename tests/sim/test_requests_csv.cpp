// requests.csv is derived from one declaration (sim/output/request_columns.hpp): every RequestRecord member has exactly one
// entry (this file does not compile while a member has none), the header and a row are the bytes results have
// always had, and a record survives the writer and the reader, field by field, empty cells included.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "sim/output/requests_csv.hpp"

using namespace lynx;

namespace {
// The address of every member of `r`, by a structured binding: it names exactly as many members as RequestRecord
// has, so adding a member without declaring its column stops this file compiling (and the count below says
// where to look).
std::vector<const void*> member_addresses(const RequestRecord& r) {
  const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21,
               m22, m23] = r;  // 24 members: a new one needs its entry in kRequestColumns, then a name here
  return {&m0,  &m1,  &m2,  &m3,  &m4,  &m5,  &m6,  &m7,  &m8,  &m9,  &m10, &m11,
          &m12, &m13, &m14, &m15, &m16, &m17, &m18, &m19, &m20, &m21, &m22, &m23};
}

// The address of each member the columns hold (stored, or restored from a derived column), one per entry.
std::vector<const void*> declared_addresses(const RequestRecord& r) {
  std::vector<const void*> addresses;
  for (const RequestColumn& c : kRequestColumns) {
    if (c.count != nullptr) addresses.push_back(&(r.*c.count));
    if (c.index != nullptr) addresses.push_back(&(r.*c.index));
    if (c.seconds != nullptr) addresses.push_back(&(r.*c.seconds));
    if (c.restores != nullptr) addresses.push_back(&(r.*c.restores));
  }
  return addresses;
}

// Every member set, each to its own value, all exact in nanoseconds (multiples of 2^-9 s) so that "%.9f" and the
// reader give them back bit for bit.
RequestRecord full_record() {
  RequestRecord r;
  r.id = 7;
  r.arrival_s = 1.5;
  r.input_tokens = 4096;
  r.output_tokens = 33;
  r.prefill_instance = 3;
  r.decode_instance = 5;
  r.prefill_start_s = 1.75;
  r.prefill_end_s = 2.125;
  r.prefill_memory_wait_s = 0.0625;
  r.decode_memory_wait_s = 0.03125;
  r.cached_tokens = 512;
  r.transfer_start_s = 2.0;
  r.anchor_arrival_s = 2.5;
  r.residual_arrival_s = 2.75;
  r.decode_start_s = 2.515625;
  r.first_spec_token_s = 2.53125;
  r.first_correct_token_s = 2.546875;
  r.first_token_s = 2.8125;
  r.verify_s = 2.8125;
  r.end_s = 3.8125;
  r.spec_tokens = 6;
  r.accepted_tokens = 4;
  r.rolled_back_tokens = 2;
  r.first_draft_kept = 1;
  return r;
}

// Two records are equal member by member (NaN equal to NaN), by the columns' member pointers.
void check_same(const RequestRecord& a, const RequestRecord& b) {
  for (const RequestColumn& c : kRequestColumns) {
    CAPTURE(c.name);
    if (c.count != nullptr) CHECK(a.*c.count == b.*c.count);
    if (c.index != nullptr) CHECK(a.*c.index == b.*c.index);
    for (double RequestRecord::*m : {c.seconds, c.restores})
      if (m != nullptr) CHECK(((std::isnan(a.*m) && std::isnan(b.*m)) || a.*m == b.*m));
  }
}

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path =
      (std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()) + ".csv")).string();
  write_file_atomic(path, text);
  return path;
}

std::string read_error(const std::string& text) {
  const std::string path = temp_file("lynx_requests_csv_bad", text);
  std::string message;
  try {
    requests_csv_read(path);
  } catch (const LynxError& e) {
    message = e.what();
  }
  std::remove(path.c_str());
  return message;
}
}  // namespace

TEST_CASE("every RequestRecord member is declared by exactly one requests.csv column") {
  const RequestRecord r;
  const std::vector<const void*> members = member_addresses(r), declared = declared_addresses(r);
  CHECK(declared.size() == members.size());
  CHECK(std::set<const void*>(declared.begin(), declared.end()).size() == declared.size());  // none twice
  for (const void* m : members) CHECK(std::set<const void*>(declared.begin(), declared.end()).count(m) == 1);
  std::set<std::string> names;
  for (const RequestColumn& c : kRequestColumns) {
    CAPTURE(c.name);
    CHECK(names.insert(c.name).second);
    CHECK(request_column(c.name) == &c);
    const int pointers = (c.count != nullptr) + (c.index != nullptr) + (c.seconds != nullptr) + (c.derived != nullptr);
    CHECK(pointers == 1);  // one source per cell, as its kind says
    CHECK((c.restores == nullptr || c.kind == RequestColumnKind::derived));
  }
}

TEST_CASE("requests.csv keeps its bytes: the header and a row, empty cells where a step does not apply") {
  CHECK(requests_csv_header() ==
        "id,arrival_s,input_tokens,output_tokens,cached_tokens,prefill_instance,decode_instance,prefill_start_s,"
        "prefill_end_s,prefill_memory_wait_s,decode_memory_wait_s,transfer_start_s,anchor_arrival_s,"
        "residual_arrival_s,decode_start_s,first_spec_token_s,first_token_s,verify_s,end_s,ttft_spec_s,"
        "ttft_correct_s,ttft_s,tpot_s,e2el_s,spec_tokens,accepted_tokens,rolled_back_tokens,first_draft_kept\n");
  std::string row;
  append_requests_csv_row(row, full_record());
  CHECK(row ==
        "7,1.500000000,4096,33,512,3,5,1.750000000,2.125000000,0.062500000,0.031250000,2.000000000,2.500000000,"
        "2.750000000,2.515625000,2.531250000,2.812500000,2.812500000,3.812500000,1.031250000,1.046875000,"
        "1.312500000,0.031250000,2.312500000,6,4,2,1\n");
  RequestRecord plain;  // single stream, no draft: NaN times and first_draft_kept -1 are empty cells
  plain.id = 0;
  plain.arrival_s = 0.1;
  plain.output_tokens = 1;
  plain.prefill_instance = 0;
  plain.decode_instance = 1;
  plain.first_token_s = plain.end_s = 0.25;
  row.clear();
  append_requests_csv_row(row, plain);
  CHECK(row == "0,0.100000000,0,1,0,0,1,,,0.000000000,0.000000000,,,,,,0.250000000,,0.250000000,,,0.150000000,"
               "0.000000000,0.150000000,0,0,0,\n");
}

TEST_CASE("a record goes through the writer and the reader field by field") {
  RequestRecord single = full_record();
  single.id = 8;
  single.residual_arrival_s = single.verify_s = single.first_spec_token_s = NAN;
  single.first_correct_token_s = single.first_token_s;
  single.spec_tokens = single.accepted_tokens = single.rolled_back_tokens = 0;
  single.first_draft_kept = -1;
  const std::vector<RequestRecord> records = {full_record(), single, RequestRecord{}};
  const std::string path = temp_file("lynx_requests_csv_round_trip", requests_csv(records));
  RequestsCsvReader reader(path);
  RequestRow row;
  for (const RequestRecord& written : records) {
    CAPTURE(written.id);
    REQUIRE(reader.next(row));
    check_same(row.record, written);
    // Each cell holds what the record gives, derived columns included.
    for (size_t i = 0; i < kRequestColumnCount; ++i) {
      const RequestColumn& c = kRequestColumns[i];
      CAPTURE(c.name);
      const double expected = c.count     ? static_cast<double>(written.*c.count)
                              : c.index   ? (c.kind == RequestColumnKind::flag && written.*c.index < 0
                                                 ? NAN
                                                 : static_cast<double>(written.*c.index))
                              : c.seconds ? written.*c.seconds
                                          : (written.*c.derived)();
      CHECK(((std::isnan(expected) && std::isnan(row.cells[i])) || row.cells[i] == expected));
      if (c.derived != nullptr) CHECK(((std::isnan(expected) && std::isnan(row.value(c.derived))) ||
                                       row.value(c.derived) == expected));
    }
    // A method without a column is computed from the record read back.
    CHECK(((std::isnan(written.kv_transfer_s()) && std::isnan(row.value(&RequestRecord::kv_transfer_s))) ||
           row.value(&RequestRecord::kv_transfer_s) == written.kv_transfer_s()));
  }
  CHECK_FALSE(reader.next(row));
  std::remove(path.c_str());
}

TEST_CASE("a requests.csv that is not one is an error naming the file, the line and the column") {
  std::string header = requests_csv_header();
  std::string renamed = header;
  renamed.replace(renamed.find("cached_tokens"), 13, "cache_tokens");
  CHECK(read_error(renamed).find(":1: not the header of requests.csv: column 5 is \"cache_tokens\", expected "
                                 "\"cached_tokens\"") != std::string::npos);
  std::string row;
  append_requests_csv_row(row, full_record());
  std::string bad = row;
  bad.replace(bad.find(",4096,"), 6, ",40x6,");
  CHECK(read_error(header + row + bad).find(":3: column input_tokens: expected an integer, got \"40x6\"") !=
        std::string::npos);
  CHECK(read_error(header + "1,2,3\n").find(":2: expected 28 comma-separated cells") != std::string::npos);
  CHECK(read_error(header + row.substr(0, row.size() - 1) + ",9\n").find(":2: expected 28 comma-separated cells") !=
        std::string::npos);
}

TEST_CASE("the writer gives requests_csv()'s bytes over many of its 64 KiB flushes") {
  std::vector<RequestRecord> records;
  for (int i = 0; i < 2000; ++i) {  // about 490 KB: seven flushes and a tail
    RequestRecord r = full_record();
    r.id = i;
    r.arrival_s += 0.001 * i;
    records.push_back(r);
  }
  const std::string expected = requests_csv(records);
  REQUIRE(expected.size() > 7 * (size_t{64} << 10));
  const std::string path = temp_file("lynx_requests_csv_flushes", "");
  {
    RequestsCsvWriter writer(path);
    for (const RequestRecord& r : records) writer.add(r);
    writer.commit();
  }
  CHECK(read_file(path) == expected);
  std::remove(path.c_str());
}
