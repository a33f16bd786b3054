// The Chrome trace-event timeline (sim/output/timeline.hpp) of small closed-form runs, through run_config as `lynxsim
// simulate --timeline` writes it: valid JSON whose every track is named, spans that never overlap on a lane when
// ts and dur are read as doubles (as viewers read them), one flow per request linking all its spans when the flow
// events are resolved as Perfetto does, each request's spans in its state machine's order at the times of its
// requests.csv row (to the timeline's 1/8 us), a closed-form prefill and transfer, the same spans with one process
// per request, the same requests.csv and summary.json bytes as without a timeline, and nothing left behind on error.
// Also the progress meter's line and its pacing (sim/output/progress_meter.hpp).
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "common/atomic_file.hpp"
#include "models/cost/roofline/cost_model.hpp"
#include "models/arch/kv_size.hpp"
#include "sim/engine/isolated_run.hpp"
#include "sim/output/progress_meter.hpp"
#include "sim/output/requests_csv.hpp"
#include "sim/config/run_config.hpp"
#include "sim/output/timeline.hpp"
#include "sim_test_support.hpp"

using namespace lynx;
namespace fs = std::filesystem;

namespace {
constexpr int64_t kTokens = 8192;
constexpr double kNicGbps = 25, kLatencyS = 5e-6;
// requests.csv prints seconds to the nanosecond and the timeline rounds each time to 1/8 us: equal within half a
// tick plus the CSV's rounding.
constexpr double kUs = 0.5 / kTimelineTicksPerUs + 0.001;

// One prefill and one decode instance. Request 0 is alone (closed form); requests 1-3 arrive together later and
// queue for the prefill, share the link and the decode batch.
nlohmann::json timeline_config(const std::string& format, const std::string& trace) {
  return {{"model", "llama-3.1-8b"},
          {"compute_model", "roofline"},
          {"format", format},
          // The roofline's closed forms without an engine's scheduler, host and front-end terms: vidur-2024.
          {"cluster", {{"prefill", {{"engine", "vidur-2024"}}},
                       {"decode", {{"engine", "vidur-2024"}}},
                       {"network", {{"nic_gbps", kNicGbps}, {"latency_us", kLatencyS * 1e6}}}}},
          {"transfer", {{"chunk_layers", 4}, {"mode", "after-prefill"}, {"connector", "ideal"}}},  // closed forms
          {"lynx", {{"acceptance_rate", 0.9}}},
          {"workload", {{"trace", trace}}}};
}

std::string write_trace(const fs::path& dir) {
  fs::create_directories(dir);
  const std::string path = (dir / "trace.jsonl").string();
  std::ofstream out(path);
  for (int ms : {0, 20000, 20000, 20001})
    out << "{\"timestamp\": " << ms << ", \"input_length\": " << kTokens << ", \"output_length\": 64, \"hash_ids\": []}\n";
  return path;
}

// Runs `config` (in its own process) writing <dir>/requests.csv, summary.json and, when given, the timeline.
void run(const nlohmann::json& config, const std::string& dir, const std::string& timeline, bool per_request = false) {
  run_isolated([&] {
    RunExtras extras;
    extras.timeline_path = timeline;
    extras.timeline_per_request = per_request;
    run_config(resolve_config(config, "test.json", ""), dir, extras);
    return std::string();
  });
}

// requests.csv read back by its declared reader (sim/output/requests_csv.hpp), each row as its named cells (an empty cell
// is NaN).
std::vector<std::map<std::string, double>> read_requests_csv(const std::string& path) {
  RequestsCsvReader reader(path);
  RequestRow row;
  std::vector<std::map<std::string, double>> rows;
  while (reader.next(row)) {
    std::map<std::string, double> named;
    for (size_t i = 0; i < kRequestColumnCount; ++i) named[kRequestColumns[i].name] = row.cells[i];
    rows.push_back(named);
  }
  return rows;
}

struct Span {
  std::string name;
  int pid = 0, tid = 0;
  double ts_us = 0, dur_us = 0;
  double end_us() const { return ts_us + dur_us; }  // in double arithmetic, as a viewer computes it
};

// The flow links (from span index, to span index, into `spans`, file order) resolved as Perfetto's FlowTracker does
// for version-2 flows on "X" events: events taken in time order (stable); "flow_out" alone begins the flow of its
// bind_id at that slice; "flow_in" with "flow_out" steps it, linking the flow's last slice to this one (a step with no
// begun flow is dropped).
std::vector<std::pair<size_t, size_t>> resolve_flows(const std::vector<nlohmann::json>& spans) {
  std::vector<size_t> order(spans.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return spans[a]["ts"].get<double>() < spans[b]["ts"].get<double>();
  });
  std::map<uint64_t, size_t> last;
  std::vector<std::pair<size_t, size_t>> links;
  for (const size_t i : order) {
    const nlohmann::json& e = spans[i];
    if (!e.contains("bind_id")) continue;
    const uint64_t id = e["bind_id"].get<uint64_t>();
    const bool in = e.value("flow_in", false), out = e.value("flow_out", false);
    if (out && !in) {
      last[id] = i;
    } else if (in && out && last.count(id) == 1) {
      links.emplace_back(last[id], i);
      last[id] = i;
    }
  }
  return links;
}

// Checks the structure every timeline has; returns each request's events (spans and instants) in file order.
std::map<int64_t, std::vector<Span>> check_structure(const nlohmann::json& trace, std::map<int, std::string>& processes) {
  REQUIRE(trace.is_object());
  CHECK(trace["displayTimeUnit"] == "ms");
  REQUIRE(trace["traceEvents"].is_array());
  std::set<std::pair<int, int>> threads;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] != "M") continue;
    const int pid = e["pid"].get<int>(), tid = e["tid"].get<int>();
    if (e["name"] == "process_name") processes[pid] = e["args"]["name"].get<std::string>();
    if (e["name"] == "thread_name") threads.insert({pid, tid});
  }
  // Perfetto names a thread by its tid alone and gives a process's own metadata the tid of its pid: each tid is one
  // thread of one process, and no pid.
  std::map<int, int> process_of_tid;
  for (const auto& [pid, tid] : threads) {
    CHECK(process_of_tid.emplace(tid, pid).second);
    CHECK(processes.count(tid) == 0);
  }
  std::map<int64_t, std::vector<Span>> by_request;
  std::map<std::pair<int, int>, std::vector<Span>> by_track;
  std::vector<nlohmann::json> x_events;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] == "M") continue;
    if (e["ph"] == "X") x_events.push_back(e);
    CAPTURE(e.dump());
    REQUIRE((e["ph"] == "X" || e["ph"] == "i"));
    Span s{e["name"].get<std::string>(), e["pid"].get<int>(), e["tid"].get<int>(), e["ts"].get<double>(),
           e["ph"] == "X" ? e["dur"].get<double>() : 0.0};
    CHECK(processes.count(s.pid) == 1);             // every track is named: its process
    CHECK(threads.count({s.pid, s.tid}) == 1);      // and its thread (lane)
    CHECK(s.ts_us >= 0);
    CHECK((e["ph"] == "i" || s.dur_us > 0));
    // On the timeline's grid: whole eighths of a microsecond (so ts + dur and ts * 1000 are exact in doubles).
    CHECK(s.ts_us * kTimelineTicksPerUs == std::floor(s.ts_us * kTimelineTicksPerUs));
    CHECK(s.dur_us * kTimelineTicksPerUs == std::floor(s.dur_us * kTimelineTicksPerUs));
    by_request[e["args"]["request"].get<int64_t>()].push_back(s);
    if (e["ph"] == "X") by_track[{s.pid, s.tid}].push_back(s);
  }
  for (auto& [track, spans] : by_track) {  // "X" events on one thread never overlap
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.ts_us < b.ts_us; });
    // exactly, with ts and dur read as doubles and added as a viewer adds them: a viewer nests or drops slices that
    // overlap by a rounding error (and does the same in its nanoseconds, ts * 1000)
    for (size_t i = 1; i < spans.size(); ++i) {
      CHECK(spans[i - 1].end_us() <= spans[i].ts_us);
      CHECK(spans[i - 1].ts_us * 1e3 + spans[i - 1].dur_us * 1e3 <= spans[i].ts_us * 1e3);
    }
  }
  // One flow per request through all its spans: each span's bind_id is its request, and Perfetto's resolution links
  // them in one chain, from the request's earliest span, each span entered once.
  std::map<int64_t, size_t> spans_of, links_of;
  std::set<size_t> entered;
  for (const nlohmann::json& e : x_events) {
    REQUIRE(e.contains("bind_id"));
    CHECK(e["bind_id"].get<int64_t>() == e["args"]["request"].get<int64_t>());
    ++spans_of[e["args"]["request"].get<int64_t>()];
  }
  for (const auto& [from, to] : resolve_flows(x_events)) {
    const int64_t request = x_events[from]["args"]["request"].get<int64_t>();
    CHECK(x_events[to]["args"]["request"].get<int64_t>() == request);
    CHECK(x_events[from]["ts"].get<double>() <= x_events[to]["ts"].get<double>());
    CHECK(entered.insert(to).second);
    ++links_of[request];
  }
  for (const auto& [request_bound, count] : spans_of) {
    const auto& request = request_bound;  // clang 14: a structured binding cannot be captured
    CAPTURE(request);
    CHECK(links_of[request] + 1 == count);
  }
  return by_request;
}

const Span* find(const std::vector<Span>& spans, const std::string& name, const std::string& process_prefix,
                 const std::map<int, std::string>& processes) {
  for (const Span& s : spans)
    if (s.name == name && processes.at(s.pid).rfind(process_prefix, 0) == 0) return &s;
  return nullptr;
}

double prefill_with_quantize_s(const SimulationInputs& in, int64_t tokens) {
  ComputeCostModel cost(in.model, in.prefill_gpu, 1);
  const double elements = 2.0 * static_cast<double>(tokens * in.model.n_layers * in.model.n_kv_heads * in.model.head_dim);
  return cost.prefill_seconds(tokens, 0) + in.run_format.prefill_kernels.encode_seconds(elements);
}
}  // namespace

TEST_CASE("the timeline's spans are each request's state-machine phases at its requests.csv times") {
  const fs::path root = fs::temp_directory_path() / ("lynx_timeline_test_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::string trace = write_trace(root);
  for (const char* format : {"bf16", "lynx-a4r4-g64"}) {
    CAPTURE(format);
    const bool lynx = std::string(format).rfind("lynx", 0) == 0;
    const nlohmann::json config = timeline_config(format, trace);
    const std::string plain = (root / format / "plain").string(), with = (root / format / "with").string();
    const std::string timeline = with + "/timeline.json";
    run(config, plain, "");
    run(config, with, timeline);
    // --timeline changes no result byte.
    CHECK(read_file(plain + "/requests.csv") == read_file(with + "/requests.csv"));
    CHECK(read_file(plain + "/summary.json") == read_file(with + "/summary.json"));
    for (auto& entry : fs::directory_iterator(with)) CHECK(entry.path().string().find(".tmp") == std::string::npos);
    // Deterministic: a second run writes the same bytes.
    const std::string again = (root / format / "again.json").string();
    run(config, (root / format / "again").string(), again);
    CHECK(read_file(timeline) == read_file(again));

    std::map<int, std::string> processes;
    const auto by_request = check_structure(nlohmann::json::parse(read_file(timeline)), processes);
    const auto rows = read_requests_csv(with + "/requests.csv");
    REQUIRE(rows.size() == 4);
    REQUIRE(by_request.size() == 4);
    for (const auto& row : rows) {
      const auto id = static_cast<int64_t>(row.at("id"));
      CAPTURE(id);
      const std::vector<Span>& spans = by_request.at(id);
      auto at = [&](const char* column) { return row.at(column) * 1e6; };
      const std::string prefill = "prefill " + std::to_string(static_cast<int>(row.at("prefill_instance")));
      const std::string decode = "decode " + std::to_string(static_cast<int>(row.at("decode_instance")));
      // Prefill instance: queue wait (when it waited), then the prefill, on one lane.
      const Span* p = find(spans, "prefill", prefill, processes);
      REQUIRE(p != nullptr);
      CHECK(std::fabs(p->ts_us - at("prefill_start_s")) <= kUs);
      CHECK(std::fabs(p->end_us() - at("prefill_end_s")) <= kUs);
      const Span* q = find(spans, "queue wait", prefill, processes);
      CHECK((q != nullptr) == (row.at("prefill_start_s") > row.at("arrival_s")));
      if (q != nullptr) {
        CHECK(std::fabs(q->ts_us - at("arrival_s")) <= kUs);
        CHECK(std::fabs(q->end_us() - p->ts_us) <= kUs);
        CHECK(q->tid == p->tid);
      }
      // The transfer on the sending and the receiving NICs, after the prefill (mode after-prefill).
      const std::vector<std::pair<const char*, const char*>> streams =
          lynx ? std::vector<std::pair<const char*, const char*>>{{"anchor transfer", "anchor_arrival_s"},
                                                                  {"residual transfer", "residual_arrival_s"}}
               : std::vector<std::pair<const char*, const char*>>{{"KV transfer", "anchor_arrival_s"}};
      for (const auto& [name_bound, arrival] : streams) {
        const auto& name = name_bound;
        CAPTURE(name);
        for (const std::string& side : {"network: " + prefill + " sends (1 NIC)", "network: " + decode + " receives (1 NIC)"}) {
          const Span* t = find(spans, name, side, processes);
          REQUIRE(t != nullptr);
          CHECK(std::fabs(t->ts_us - at("transfer_start_s")) <= kUs);
          CHECK(std::fabs(t->end_us() - at(arrival)) <= kUs);
          CHECK(t->ts_us >= p->end_us() - kUs);
        }
      }
      // Decode instance: batch wait, [drafting, verification,] decode, in order on one lane; the first token. A
      // verification that makes the last token final leaves no decode span.
      const Span* d = find(spans, "decode", decode, processes);
      const Span* draft = find(spans, "drafting", decode, processes);
      const Span* verify = find(spans, "verification", decode, processes);
      CHECK((draft != nullptr) == (lynx && row.at("spec_tokens") > 0));
      CHECK((verify != nullptr) == (draft != nullptr));
      CHECK((d != nullptr) == (verify == nullptr || row.at("end_s") > row.at("verify_s")));
      if (d != nullptr) CHECK(std::fabs(d->end_us() - at("end_s")) <= kUs);
      if (draft != nullptr && verify != nullptr) {
        CHECK(std::fabs(draft->ts_us - at("decode_start_s")) <= kUs);
        // Drafting ends at the residual's arrival, or with the first draft iteration if that was still running.
        const double drafting_end_us = std::max(at("residual_arrival_s"), at("first_spec_token_s"));
        CHECK(std::fabs(draft->end_us() - drafting_end_us) <= kUs);
        CHECK(verify->ts_us == draft->end_us());
        CHECK(std::fabs(verify->end_us() - at("verify_s")) <= kUs);
        CHECK(verify->tid == draft->tid);
        if (d != nullptr) {
          CHECK(std::fabs(d->ts_us - at("verify_s")) <= kUs);
          CHECK(d->tid == draft->tid);
        }
      } else {
        REQUIRE(d != nullptr);
        CHECK(std::fabs(d->ts_us - at("decode_start_s")) <= kUs);
      }
      const int decode_lane = d != nullptr ? d->tid : draft->tid;
      const Span* wait = find(spans, "batch wait", decode, processes);
      CHECK((wait != nullptr) == (row.at("decode_start_s") > row.at("anchor_arrival_s")));
      const Span* first = find(spans, "first token", decode, processes);
      REQUIRE(first != nullptr);
      CHECK(std::fabs(first->ts_us - at("first_token_s")) <= kUs);
      CHECK(first->tid == decode_lane);
      const Span* first_draft = find(spans, "first draft", decode, processes);
      CHECK((first_draft != nullptr) == (draft != nullptr));
      if (first_draft != nullptr) {
        CHECK(std::fabs(first_draft->ts_us - at("first_spec_token_s")) <= kUs);
        // the mark lies in drafting (or at its end), never inside verification
        CHECK(first_draft->ts_us >= draft->ts_us);
        CHECK(first_draft->ts_us <= draft->end_us());
      }
      CHECK(find(spans, "decode memory wait", decode, processes) == nullptr);  // one request's KV at a time fits
    }

    // Request 0 is alone: its prefill and transfer are the closed forms (test_closed_form.cpp).
    nlohmann::json bare = config;
    bare.erase("workload");
    SimulationInputs in = test::make_inputs(bare, {test::make_request(0, 0, kTokens, 8)});
    const KvStreamBytes bytes = model_kv_bytes(in.model, in.run_format.format, kTokens);
    const double C = kNicGbps * 1e9 / 8, w = 1000;
    const std::vector<Span>& first = by_request.at(0);
    CHECK(std::fabs(find(first, "prefill", "prefill 0", processes)->dur_us - prefill_with_quantize_s(in, kTokens) * 1e6) <=
          kUs);
    const double anchor_s = lynx ? static_cast<double>(bytes.anchor) * (w + 1) / (w * C) : static_cast<double>(bytes.anchor) / C;
    CHECK(std::fabs(find(first, lynx ? "anchor transfer" : "KV transfer", "network: prefill 0", processes)->dur_us -
                    (anchor_s + kLatencyS) * 1e6) <= kUs);
    if (lynx)
      CHECK(std::fabs(find(first, "residual transfer", "network: decode 0", processes)->dur_us -
                      (static_cast<double>(bytes.total()) / C + kLatencyS) * 1e6) <= kUs);
    // Requests 1-3 arrive together: two of them wait for the prefill, so the prefill instance needs 3 lanes.
    std::set<int> prefill_lanes;
    for (int64_t id = 1; id <= 3; ++id)
      prefill_lanes.insert(find(by_request.at(id), "prefill", "prefill 0", processes)->tid);
    CHECK(prefill_lanes.size() == 3);

    // One process per request: the same spans and marks at the same times (each transfer once, not per side), all in
    // the request's own process, nesting on each of its threads.
    const std::string per_request = (root / format / "per_request.json").string();
    run(config, (root / format / "per_request").string(), per_request, true);
    std::map<int, std::string> request_processes;
    const auto by_request_alone = check_structure(nlohmann::json::parse(read_file(per_request)), request_processes);
    REQUIRE(by_request_alone.size() == 4);
    using Key = std::tuple<std::string, double, double>;
    for (const auto& [id_bound, spans] : by_request) {
      const auto& id = id_bound;
      CAPTURE(id);
      std::set<Key> expected, got;
      for (const Span& e : spans) expected.insert({e.name, e.ts_us, e.dur_us});
      for (const Span& e : by_request_alone.at(id)) {
        got.insert({e.name, e.ts_us, e.dur_us});
        CHECK(request_processes.at(e.pid) == "request " + std::to_string(id));
      }
      CHECK(got == expected);
    }
  }
  fs::remove_all(root);
}

TEST_CASE("a timeline that is not committed leaves no file and no folder behind") {
  const fs::path root = fs::temp_directory_path() / ("lynx_timeline_discard_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  SimConfig config;
  RequestRecord r;
  r.id = 7, r.arrival_s = 0, r.prefill_start_s = 0.5, r.prefill_end_s = 1, r.transfer_start_s = 1;
  r.anchor_arrival_s = 1.25, r.decode_start_s = 1.25, r.first_token_s = 1.3, r.end_s = 2;
  r.prefill_instance = 0, r.decode_instance = 0, r.output_tokens = 8;
  const std::string nested = (root / "a" / "b" / "timeline.json").string();
  {
    TimelineWriter writer(nested, config);
    writer.add(r);
    CHECK(fs::exists(root / "a" / "b"));
  }  // an error: no commit
  CHECK(!fs::exists(root / "a"));
  {
    TimelineWriter writer(nested, config);
    writer.add(r);
    writer.commit();
  }
  const nlohmann::json trace = nlohmann::json::parse(read_file(nested));
  std::map<int, std::string> processes;
  const auto by_request = check_structure(trace, processes);
  REQUIRE(by_request.count(7) == 1);
  std::vector<std::string> names;
  for (const Span& s : by_request.at(7)) names.push_back(s.name);
  // Both NIC tracks carry the transfer; the decode lane has its wait, then the decode, then the first token.
  CHECK(names == std::vector<std::string>{"queue wait", "prefill", "KV transfer", "KV transfer", "decode",
                                          "first token"});
  CHECK(trace["otherData"]["format"] == "bf16");
  size_t files = 0;
  for (auto& entry : fs::recursive_directory_iterator(root)) files += entry.is_regular_file() ? 1 : 0;
  CHECK(files == 1);
  fs::remove_all(root);
}

TEST_CASE("back-to-back spans at awkward times still nest when read as doubles, and each request is one flow") {
  // 2000 requests on one prefill lane, each arriving when the previous prefill ends, at times with every nanosecond
  // digit used: written as decimal microseconds to the nanosecond, about one pair in ten would overlap once ts + dur
  // is added in doubles (the 3,003 of 27,051).
  const fs::path root = fs::temp_directory_path() / ("lynx_timeline_doubles_" + std::to_string(::getpid()));
  fs::remove_all(root);
  SimConfig config;
  const std::string path = (root / "timeline.json").string();
  {
    TimelineWriter writer(path, config);
    double t_s = 0.000123457;
    for (int64_t id = 0; id < 2000; ++id) {
      RequestRecord r;
      r.id = id, r.prefill_instance = 0, r.decode_instance = 0, r.output_tokens = 4;
      r.arrival_s = t_s;
      r.prefill_start_s = t_s + 0.000987654321 * static_cast<double>(1 + id % 7);
      r.prefill_end_s = r.prefill_start_s + 0.0123456789 + 1e-9 * static_cast<double>(id % 13);
      r.transfer_start_s = r.prefill_end_s;
      r.anchor_arrival_s = r.prefill_end_s + 0.003456789;
      r.decode_start_s = r.anchor_arrival_s + 0.000001234;
      r.first_token_s = r.decode_start_s + 0.0203;
      r.end_s = r.decode_start_s + 0.0809;
      writer.add(r);
      t_s = r.prefill_end_s;
    }
    writer.commit();
  }
  std::map<int, std::string> processes;
  const auto by_request = check_structure(nlohmann::json::parse(read_file(path)), processes);
  CHECK(by_request.size() == 2000);
  std::set<int> prefill_lanes;
  for (const auto& [id, spans] : by_request) prefill_lanes.insert(find(spans, "prefill", "prefill 0", processes)->tid);
  CHECK(prefill_lanes.size() == 1);  // all back to back on one lane
  fs::remove_all(root);
}

TEST_CASE("the progress meter's line, and its pacing on a stream that is not a terminal") {
  CHECK(ProgressMeter::line(1234.56, 4321, 12031, 0.5) ==
        "simulated 1234.6 s | 4321 / 12031 requests (35.9%) | 8642 requests/s");
  CHECK(ProgressMeter::line(2, 10, 0, 0) == "simulated 2.0 s | 10 requests");
  RequestRecord r;
  r.end_s = 3;
  auto lines_written = [&](double interval_s, int records) {
    std::FILE* f = std::tmpfile();
    {
      ProgressMeter meter(f, interval_s);
      meter.add(r);  // before start(): counted, not shown
      meter.start(100);
      for (int i = 0; i < records; ++i) meter.add(r);
    }
    std::rewind(f);
    std::string text;
    for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) text += static_cast<char>(c);
    std::fclose(f);
    CHECK(text.find('\r') == std::string::npos);  // not a terminal: whole lines
    return text;
  };
  // start() shows the first line; with no pause between updates every record redraws, with a long one none does.
  const std::string every = lines_written(0, 3);
  CHECK(std::count(every.begin(), every.end(), '\n') == 4);
  CHECK(every.find("simulated 3.0 s | 4 / 100 requests (4.0%)") != std::string::npos);
  const std::string paced = lines_written(3600, 3);
  CHECK(paced.rfind("simulated 3.0 s | 1 / 100 requests (1.0%)", 0) == 0);
  CHECK(std::count(paced.begin(), paced.end(), '\n') == 1);
}
