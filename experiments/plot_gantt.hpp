// A per-request Gantt figure, readable offline (`lynxsim plot RUN --gantt ID,ID,...`): for each request named, one
// panel whose rows are its lanes (its prefill instance, its KV or anchor stream, Lynx's residual stream, its decode
// instance) and whose bars are its phases (sim/output/request_spans.hpp, the spans the timeline writes: queue wait,
// prefill, KV / anchor / residual transfer, decode memory wait, batch wait, drafting, verification, decode) over
// the milliseconds since its arrival, with the first draft and first token marked. RUN is a folder holding a
// requests.csv: a `lynxsim simulate --out` folder, or one point's folder of a results directory. The C++ side reads
// requests.csv (sim/output/requests_csv.hpp), checks the ids and hands the spans to experiments/plot_gantt.py, which
// draws them (PNG and SVG, gantt_<ids>.png) and, with --data, writes what it drew.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace lynx {

// At most this many requests in one figure (a panel each).
constexpr int kGanttMaxRequests = 12;

// The script's input: each request's record fields and spans, the span meanings, out_dir, the file stem and the
// --data path ("" for none). `ids`: --gantt's text ("3,17"); a LynxError names what is wrong (the option, the file).
nlohmann::json gantt_request(const std::string& run_dir, const std::string& ids, const std::string& out_dir,
                             const std::string& data_file);

}  // namespace lynx
