#include "traces/trace_reader.hpp"

#include <memory>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "traces/json_line.hpp"
#include "traces/line_reader.hpp"
#include "traces/trace_schema.hpp"

namespace lynx {

namespace {
constexpr size_t kBadRowMessagesKept = 5;

int unit_exp10(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::s: return 9;
    case TimeUnit::ms: return 6;
    case TimeUnit::us: return 3;
    default: return 0;
  }
}

// Nanoseconds as seconds: correctly rounded below 2^53 ns (104 days); above, whole seconds plus the rounded
// fraction (epoch times that were not rebased).
double ns_to_seconds(int64_t ns) {
  if (ns < (int64_t{1} << 53)) return static_cast<double>(ns) / 1e9;
  return static_cast<double>(ns / 1000000000) + static_cast<double>(ns % 1000000000) / 1e9;
}

const char* status_text(ParseStatus status) {
  switch (status) {
    case ParseStatus::not_a_number: return "is not a number";
    case ParseStatus::negative: return "is negative";
    case ParseStatus::out_of_range: return "is out of range";
    case ParseStatus::ok: break;
  }
  return "is fine";
}

// Checks each row of one file against its schema and hands the valid requests over.
class RowChecker {
 public:
  RowChecker(const TraceSchema& schema, const TraceReadOptions& options, TraceReadReport& report,
             const std::function<bool(Request&&)>& on_request)
      : schema_(schema), options_(options), report_(report), on_request_(on_request) {}

  // A row whose structure is broken: "file:line: what: "row" (expected row form)".
  void structural(size_t line, const std::string& what, std::string_view row_text) {
    bad(line, what + ": \"" + text_excerpt(row_text) + "\" (expected " + schema_.row_form + ")");
  }

  // The fields of one row; hashes_text is null when the schema has none. Returns false when the caller asked to
  // stop.
  bool row(size_t line, std::string_view time_text, std::string_view input_text, std::string_view output_text,
           const std::string_view* hashes_text) {
    int64_t time_ns = 0;
    if (schema_.time_unit == TimeUnit::datetime) {
      if (!parse_datetime_ns(time_text, time_ns))
        return field_error(line, schema_.arrival, "is not a date-time", time_text, trace_schema_time_form(schema_));
    } else {
      ParseStatus status = parse_decimal_ns(time_text, unit_exp10(schema_.time_unit), time_ns);
      if (status != ParseStatus::ok)
        return field_error(line, schema_.arrival, status_text(status), time_text, trace_schema_time_form(schema_));
    }
    int64_t input = 0, output = 0;
    ParseStatus status = parse_count(input_text, input);
    if (status != ParseStatus::ok)
      return field_error(line, schema_.input_tokens, status_text(status), input_text, "a positive integer token count");
    if (input == 0)
      return field_error(line, schema_.input_tokens, "is zero", input_text, "a positive integer token count");
    status = parse_count(output_text, output);
    if (status != ParseStatus::ok)
      return field_error(line, schema_.output_tokens, status_text(status), output_text,
                         "a non-negative integer token count");
    hashes_.clear();
    if (hashes_text != nullptr && !json_parse_id_array(*hashes_text, hashes_))
      return field_error(line, schema_.prefix_hashes, "is not a list of block ids", *hashes_text,
                         "a JSON array of non-negative integers");
    if (have_previous_ && time_ns < previous_ns_) {
      std::string what = "goes backwards: \"" + text_excerpt(text_trim(time_text)) + "\" comes after \"" +
                         previous_text_ + "\" on line " + std::to_string(previous_line_);
      bad(line, schema_.arrival + " " + what + " (expected rows in non-decreasing time order)");
      return true;
    }
    // A valid row.
    have_previous_ = true;
    previous_ns_ = time_ns;
    previous_text_.assign(text_trim(time_text));
    previous_line_ = line;
    if (!have_origin_) {
      have_origin_ = true;
      origin_ns_ = schema_.rebase_to_first_row ? time_ns : 0;
    }
    if (output == 0) {
      ++report_.failed_rows;
      if (!options_.keep_failed) return true;
    }
    Request request;
    request.id = report_.requests;
    request.arrival_s = ns_to_seconds(time_ns - origin_ns_);
    request.input_tokens = input;
    request.output_tokens = output;
    request.source_line = static_cast<int64_t>(line);
    if (options_.keep_prefix_hashes) request.prefix_block_hashes.assign(hashes_.begin(), hashes_.end());
    ++report_.requests;
    return on_request_(std::move(request));
  }

  void bad(size_t line, const std::string& message) {
    std::string full = report_.path + ":" + std::to_string(line) + ": " + message;
    if (!options_.skip_bad_rows) throw LynxError(full);
    ++report_.bad_rows_skipped;
    if (report_.first_bad_rows.size() < kBadRowMessagesKept) report_.first_bad_rows.push_back(full);
  }

 private:
  bool field_error(size_t line, const std::string& column, const char* what, std::string_view text,
                   const std::string& expected) {
    bad(line, column + " " + what + ": \"" + text_excerpt(text_trim(text)) + "\" (expected " + expected + ")");
    return true;
  }

  const TraceSchema& schema_;
  const TraceReadOptions& options_;
  TraceReadReport& report_;
  const std::function<bool(Request&&)>& on_request_;
  std::vector<uint64_t> hashes_;
  bool have_previous_ = false;
  int64_t previous_ns_ = 0;
  std::string previous_text_;
  size_t previous_line_ = 0;
  bool have_origin_ = false;
  int64_t origin_ns_ = 0;
};

bool is_blank(std::string_view line) { return text_trim(line).empty(); }
}  // namespace

// The reader's state between two pulls: the file, its schema, the row checker and, for CSV, the header's columns.
struct TraceRowStream::State {
  TraceReadReport report;
  TraceReadOptions options;
  LineReader reader;
  TraceSchema schema;
  RowChecker checker;
  Request pending;             // the request the checker handed over last
  bool have_pending = false;
  std::string first_row;       // JSONL: the first non-blank line is already a row
  bool first_row_unread = false;
  bool finished = false;
  std::vector<JsonMember> members;  // JSONL scratch
  JsonLineError json_error;
  std::vector<std::string_view> fields;  // CSV scratch
  std::vector<std::string> names;        // CSV header
  size_t time_col = 0, input_col = 0, output_col = 0;
  std::function<bool(Request&&)> hand_over;

  State(const std::string& path, const TraceReadOptions& opts)
      : options(opts), reader(path), checker(schema, options, report, hand_over) {
    hand_over = [this](Request&& r) {
      pending = std::move(r);
      have_pending = true;
      return true;
    };
  }

  // CSV: `header` is the first non-blank line.
  void read_header(std::string_view header) {
    size_t header_line = reader.line_number();
    std::string header_text(header);
    if (!csv_split(header_text, fields))
      throw_error("%s:%zu: unterminated quoted field in the header: \"%s\" (expected %s)", report.path.c_str(),
                  header_line, text_excerpt(header_text).c_str(), schema.row_form.c_str());
    for (auto f : fields) names.emplace_back(text_trim(f));
    auto column_of = [&](const std::string& name) {
      for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return i;
      throw_error("%s:%zu: the header lacks column \"%s\": \"%s\" (expected %s)", report.path.c_str(), header_line,
                  name.c_str(), text_excerpt(header_text).c_str(), schema.row_form.c_str());
    };
    time_col = column_of(schema.arrival);
    input_col = column_of(schema.input_tokens);
    output_col = column_of(schema.output_tokens);
  }

  void jsonl_row(std::string_view line, size_t n) {
    if (!json_line_scan(line, members, json_error)) {
      checker.structural(n, "malformed JSON at column " + std::to_string(json_error.column) + " (" +
                                json_error.reason + ")",
                         line);
      return;
    }
    const JsonMember* time = json_member_find(members, schema.arrival);
    const JsonMember* input = json_member_find(members, schema.input_tokens);
    const JsonMember* output = json_member_find(members, schema.output_tokens);
    const JsonMember* hashes = schema.prefix_hashes.empty() ? nullptr : json_member_find(members, schema.prefix_hashes);
    const std::string* missing = !time ? &schema.arrival : !input ? &schema.input_tokens
                               : !output ? &schema.output_tokens : nullptr;
    if (!missing && !schema.prefix_hashes.empty() && !hashes) missing = &schema.prefix_hashes;
    if (missing) {
      checker.structural(n, "missing field \"" + *missing + "\"", line);
      return;
    }
    std::string_view hashes_text = hashes ? hashes->value : std::string_view();
    checker.row(n, time->value, input->value, output->value, hashes ? &hashes_text : nullptr);
  }

  void csv_row(std::string_view line, size_t n) {
    if (!csv_split(line, fields)) {
      checker.structural(n, "unterminated quoted field", line);
      return;
    }
    if (fields.size() < names.size()) {
      // The header's own names may carry control bytes: shown escaped, like the row.
      checker.structural(n, "missing column \"" + text_excerpt(names[fields.size()]) + "\"", line);
      return;
    }
    if (fields.size() > names.size()) {
      checker.structural(n, std::to_string(fields.size()) + " fields where the header has " +
                                std::to_string(names.size()),
                         line);
      return;
    }
    checker.row(n, fields[time_col], fields[input_col], fields[output_col], nullptr);
  }

  // One line: a row is counted and checked; a valid one leaves `pending` set.
  void line(std::string_view text, size_t n) {
    if (is_blank(text)) return;
    ++report.rows;
    if (schema.jsonl) jsonl_row(text, n);
    else csv_row(text, n);
  }

  // The end of the file: the checks on the file as a whole.
  void finish() {
    finished = true;
    report.bytes = reader.bytes_read();
    const std::string& path = report.path;
    if (report.rows == 0)
      throw_error("%s: no rows after the header (expected %s)", path.c_str(), schema.row_form.c_str());
    if (report.requests == 0 && !report.stopped_early) {
      if (report.bad_rows_skipped == report.rows)
        throw_error("%s: no valid row: all %lld rows are bad (first: %s)", path.c_str(),
                    static_cast<long long>(report.rows), report.first_bad_rows.front().c_str());
      throw_error("%s: no request: every valid row is a failed request (0 output tokens); keep_failed keeps them",
                  path.c_str());
    }
  }
};

TraceRowStream::TraceRowStream(const std::string& path, const TraceReadOptions& options)
    : state_(std::make_unique<State>(path, options)) {
  State& s = *state_;
  s.report.path = path;
  s.report.failed_kept = options.keep_failed;
  std::string_view line;
  bool any = false, blank = false;
  while ((any = s.reader.next(line)) && is_blank(line)) blank = true;
  if (!any)
    throw_error("%s: %s (expected a trace: %s)", path.c_str(), blank ? "only blank lines, no row" : "empty file",
                trace_format_known_forms().c_str());
  s.report.format = options.format;
  if (s.report.format == TraceFormat::auto_detect) {
    s.report.format = trace_format_detect(line);
    if (s.report.format == TraceFormat::auto_detect)
      throw_error("%s:%zu: unknown trace format: \"%s\" (expected %s)", path.c_str(), s.reader.line_number(),
                  text_excerpt(line).c_str(), trace_format_known_forms().c_str());
  }
  s.schema = trace_schema_for(s.report.format, options.columns);
  if (s.schema.jsonl) {
    s.first_row.assign(line);
    s.first_row_unread = true;
  } else {
    s.read_header(line);
  }
}

TraceRowStream::~TraceRowStream() = default;

bool TraceRowStream::next(Request& out) {
  State& s = *state_;
  while (!s.have_pending) {
    if (s.finished) return false;
    if (s.first_row_unread) {
      s.first_row_unread = false;
      s.line(s.first_row, s.reader.line_number());
      continue;
    }
    std::string_view line;
    if (!s.reader.next(line)) {
      s.finish();
      return false;
    }
    s.line(line, s.reader.line_number());
  }
  out = std::move(s.pending);
  s.have_pending = false;
  return true;
}

void TraceRowStream::stop() {
  State& s = *state_;
  if (s.finished) return;
  s.report.stopped_early = true;
  s.finish();
}

const TraceReadReport& TraceRowStream::report() const { return state_->report; }

TraceReadReport trace_read_each(const std::string& path, const TraceReadOptions& options,
                                const std::function<bool(Request&&)>& on_request) {
  TraceRowStream stream(path, options);
  Request r;
  while (stream.next(r))
    if (!on_request(std::move(r))) {
      stream.stop();
      break;
    }
  return stream.report();
}

TraceReadResult trace_read(const std::string& path, const TraceReadOptions& options) {
  TraceReadResult result;
  result.report = trace_read_each(path, options, [&](Request&& r) {
    result.requests.push_back(std::move(r));
    return true;
  });
  return result;
}

}  // namespace lynx
