#include "traces/synthetic.hpp"

#include "common/error.hpp"
#include "traces/random.hpp"

namespace lynx {

namespace {
constexpr uint64_t kArrivalStream = 1, kLengthStream = 2;

bool same_trace(const LengthSpec& a, const LengthSpec& b) {
  const TraceReadOptions &x = a.trace_options, &y = b.trace_options;
  return a.kind == LengthSpec::Kind::empirical && b.kind == LengthSpec::Kind::empirical &&
         a.trace_path == b.trace_path && x.format == y.format && x.skip_bad_rows == y.skip_bad_rows &&
         x.keep_failed == y.keep_failed && x.columns.arrival == y.columns.arrival &&
         x.columns.input_tokens == y.columns.input_tokens && x.columns.output_tokens == y.columns.output_tokens &&
         x.columns.time_unit == y.columns.time_unit;
}

struct Empirical {
  std::vector<int64_t> input, output;
};

Empirical empirical_load(const LengthSpec& spec) {
  Empirical e;
  trace_read_each(spec.trace_path, spec.trace_options, [&](Request&& r) {
    e.input.push_back(r.input_tokens);
    e.output.push_back(r.output_tokens);
    return true;
  });
  return e;
}

int64_t draw(const LengthSpec& spec, const std::vector<int64_t>& values, Rng& rng) {
  switch (spec.kind) {
    case LengthSpec::Kind::fixed: return spec.fixed_tokens;
    case LengthSpec::Kind::uniform:
      return spec.low_tokens + static_cast<int64_t>(rng.below(static_cast<uint64_t>(spec.high_tokens - spec.low_tokens + 1)));
    case LengthSpec::Kind::empirical: return values[rng.below(values.size())];
  }
  return 0;
}

void validate(const LengthSpec& spec, const char* what) {
  if (spec.kind == LengthSpec::Kind::fixed && spec.fixed_tokens < 1)
    throw_error("synthetic %s: fixed length %lld, expected a positive integer", what,
                static_cast<long long>(spec.fixed_tokens));
  if (spec.kind == LengthSpec::Kind::uniform && (spec.low_tokens < 1 || spec.high_tokens < spec.low_tokens))
    throw_error("synthetic %s: uniform [%lld, %lld], expected 1 <= low <= high", what,
                static_cast<long long>(spec.low_tokens), static_cast<long long>(spec.high_tokens));
}
}  // namespace

const char* arrival_process_name(ArrivalProcess process) {
  return process == ArrivalProcess::poisson ? "poisson" : "gamma";
}

std::vector<Request> synthetic_generate(const SyntheticSpec& spec, uint64_t seed) {
  if (!(spec.rate_per_s > 0) || spec.count < 1 || !(spec.cv > 0))
    throw_error("synthetic workload: expected rate_per_s > 0, count >= 1 and cv > 0 (got %g, %lld, %g)",
                spec.rate_per_s, static_cast<long long>(spec.count), spec.cv);
  validate(spec.input_tokens, "input_tokens");
  validate(spec.output_tokens, "output_tokens");
  Empirical input_source, output_source;
  bool joint = same_trace(spec.input_tokens, spec.output_tokens);
  if (spec.input_tokens.kind == LengthSpec::Kind::empirical) input_source = empirical_load(spec.input_tokens);
  if (spec.output_tokens.kind == LengthSpec::Kind::empirical)
    output_source = joint ? input_source : empirical_load(spec.output_tokens);

  Rng arrivals(seed_derive(seed, kArrivalStream)), lengths(seed_derive(seed, kLengthStream));
  double mean_gap_s = 1.0 / spec.rate_per_s;
  double shape = 1.0 / (spec.cv * spec.cv);
  std::vector<Request> requests(static_cast<size_t>(spec.count));
  double t = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    Request& r = requests[i];
    t += spec.arrival == ArrivalProcess::poisson ? arrivals.exponential(mean_gap_s)
                                                 : arrivals.gamma(shape, mean_gap_s / shape);
    r.id = static_cast<int64_t>(i);
    r.arrival_s = t;
    if (joint) {
      size_t row = lengths.below(input_source.input.size());
      r.input_tokens = input_source.input[row];
      r.output_tokens = output_source.output[row];
    } else {
      r.input_tokens = draw(spec.input_tokens, input_source.input, lengths);
      r.output_tokens = draw(spec.output_tokens, output_source.output, lengths);
    }
  }
  return requests;
}

}  // namespace lynx
