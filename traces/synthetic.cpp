#include "traces/synthetic.hpp"

#include <algorithm>
#include <cmath>

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
    case LengthSpec::Kind::fixed: {
      if (spec.range_ratio <= 0) return spec.fixed_tokens;
      const double l = static_cast<double>(spec.fixed_tokens);
      const int64_t low = std::max<int64_t>(1, static_cast<int64_t>(std::floor(l * (1 - spec.range_ratio))));
      const int64_t high = static_cast<int64_t>(std::ceil(l * (1 + spec.range_ratio)));
      return low + static_cast<int64_t>(rng.below(static_cast<uint64_t>(high - low + 1)));
    }
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

const char* arrival_process_name(ArrivalProcess process) { return kArrivalProcessNames.name(process); }

SyntheticStream::SyntheticStream(const SyntheticSpec& spec, uint64_t seed)
    : spec_(spec), arrivals_(seed_derive(seed, kArrivalStream)), lengths_(seed_derive(seed, kLengthStream)) {
  if (!(spec.rate_per_s > 0) || spec.count < 1 || !(spec.cv > 0))
    throw_error("synthetic workload: expected rate_per_s > 0, count >= 1 and cv > 0 (got %g, %lld, %g)",
                spec.rate_per_s, static_cast<long long>(spec.count), spec.cv);
  validate(spec.input_tokens, "input_tokens");
  validate(spec.output_tokens, "output_tokens");
  joint_ = same_trace(spec.input_tokens, spec.output_tokens);
  if (spec.input_tokens.kind == LengthSpec::Kind::empirical) {
    Empirical e = empirical_load(spec.input_tokens);
    input_input_ = std::move(e.input);
    if (joint_) output_output_ = std::move(e.output);
  }
  if (spec.output_tokens.kind == LengthSpec::Kind::empirical && !joint_)
    output_output_ = empirical_load(spec.output_tokens).output;
  mean_gap_s_ = 1.0 / spec.rate_per_s;
  shape_ = 1.0 / (spec.cv * spec.cv);
}

bool SyntheticStream::next(Request& r) {
  if (next_id_ >= spec_.count) return false;
  if (spec_.arrival == ArrivalProcess::poisson) t_ += arrivals_.exponential(mean_gap_s_);
  else if (spec_.arrival == ArrivalProcess::gamma) t_ += arrivals_.gamma(shape_, mean_gap_s_ / shape_);
  r = Request{};
  r.id = next_id_++;
  r.arrival_s = t_;
  if (joint_) {
    size_t row = lengths_.below(input_input_.size());
    r.input_tokens = input_input_[row];
    r.output_tokens = output_output_[row];
  } else {
    r.input_tokens = draw(spec_.input_tokens, input_input_, lengths_);
    r.output_tokens = draw(spec_.output_tokens, output_output_, lengths_);
  }
  return true;
}

std::vector<Request> synthetic_generate(const SyntheticSpec& spec, uint64_t seed) {
  SyntheticStream stream(spec, seed);
  std::vector<Request> requests(static_cast<size_t>(spec.count));
  for (Request& r : requests) stream.next(r);
  return requests;
}

}  // namespace lynx
