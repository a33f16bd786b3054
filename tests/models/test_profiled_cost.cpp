// The profiled cost model against the published measurements it reads (files under the calibration data folder,
// ../shared/data/calibration beside the checkout or $LYNX_SOURCE_DIR/calibration): chosen measured points are
// reproduced exactly (file and line cited), the interpolation rules hold, derived GPUs say so, and the validation
// error against end-to-end measurements stays under the figures reached (README, "Calibrated compute").
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <tuple>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "models/arch/catalog.hpp"
#include "models/cost/compute_model.hpp"
#include "models/readers/csv_table.hpp"
#include "models/cost/profiled/curve.hpp"
#include "models/cost/profiled/gpu_profile.hpp"
#include "models/cost/profiled/profiled_cost.hpp"
#include "models/validation/validation.hpp"

#include "tests/models/shipped_catalogs.hpp"

using namespace lynx;

namespace {
const std::vector<ModelSpec>& models() { return test::shipped_models(); }
const std::vector<GpuSpec>& gpus() { return test::shipped_gpus(); }
std::shared_ptr<const GpuProfile> h100() {
  static auto p = std::make_shared<const GpuProfile>(
      load_gpu_profile(std::string(LYNX_SOURCE_DIR) + "/models/catalog/profiles.json", "h100-sxm", calibration_dir()));
  return p;
}
ProfiledCostModel on(const char* model, const char* gpu, int tp) {
  return ProfiledCostModel(find_model(models(), model), find_gpu(gpus(), gpu), tp, WeightsDtype::bf16, h100(),
                           find_gpu(gpus(), "h100-sxm"));
}
}  // namespace

TEST_CASE("curve: linear between points, proportional beyond the last, floor or proportional below the first") {
  Curve c({{100, 1.0}, {200, 3.0}, {200, 5.0}, {400, 6.0}}, Curve::Below::floor, "test");
  CHECK(c.at(150) == doctest::Approx(2.5));    // (100, 1) to (200, mean of 3 and 5)
  CHECK(c.at(300) == doctest::Approx(5.0));
  bool extrapolated = false;
  CHECK(c.at(400, &extrapolated) == doctest::Approx(6.0));
  CHECK(!extrapolated);
  CHECK(c.at(800, &extrapolated) == doctest::Approx(12.0));  // 6 s / 400 x 800
  CHECK(extrapolated);
  CHECK(c.at(10) == doctest::Approx(1.0));
  Curve p({{100, 1.0}, {200, 3.0}}, Curve::Below::proportional, "test");
  CHECK(p.at(10) == doctest::Approx(0.1));
  // Noise that makes more work cheaper is lifted to the running maximum: 3, 2 -> 3, 3.
  Curve n({{1, 1.0}, {2, 3.0}, {3, 2.0}, {4, 4.0}}, Curve::Below::floor, "test");
  CHECK(n.at(2) == doctest::Approx(3.0));
  CHECK(n.at(3) == doctest::Approx(3.0));
  CHECK_THROWS_AS(Curve({}, Curve::Below::floor, "empty"), LynxError);
}

TEST_CASE("a curve's segment lookup gives at()'s bits, power-of-two widths by their exact reciprocal") {
  CHECK(exact_inverse(4096) == 1.0 / 4096);
  CHECK(exact_inverse(0.25) == 4.0);
  CHECK(exact_inverse(3072) == 0);  // not a power of two: divided
  CHECK(exact_inverse(0) == 0);
  CHECK(exact_inverse(-2) == 0);
  CHECK(exact_inverse(std::ldexp(1.0, 1023)) == 0);  // its reciprocal is subnormal
  // Multiplying by it gives the division's bits (the decode attention's size: KV tokens x heads / measured heads).
  for (double x = 0.37; x < 1e9; x = x * 1.37 + 0.11) {
    CHECK(x * 1024 * exact_inverse(1024) == x * 1024 / 1024);
    CHECK(x * 640 * exact_inverse(512) == x * 640 / 512);
  }
  // Sizes as the decode attention tables measure them (batch x KV length): widths 3072 (divided), then powers of
  // two (multiplied); odd times, so that every product rounds.
  const Curve c({{1024, 3.9718e-5}, {4096, 2.3498e-5}, {8192, 2.4828e-5}, {16384, 3.6332e-5}, {32768, 5.1113e-5},
                 {65536, 9.7127e-5}, {131072, 1.71231e-4}, {196608, 2.6e-4}},
                Curve::Below::floor, "test");
  size_t segment = 0;
  int compared = 0, held = 0;
  for (double size = 1000.37; size < 200000; size = size * 1.0007 + 0.913) {
    bool a = false, b = false;
    const double searched = c.at(size, &b);
    CHECK(c.at(size, segment, &a) == searched);  // exact: the hint path against the searching one
    CHECK(a == b);
    // The segment as a Span (a decode run's loop) holds the size exactly when it is an interior one, and gives the
    // same bits.
    const Curve::Span span = c.span(segment);
    CHECK(span.holds(size) == (size > 1024 && size < 196608));
    if (span.holds(size)) {
      CHECK(span.at(size) == searched);
      ++held;
    }
    ++compared;
  }
  CHECK(compared > 1000);
  CHECK(held > 1000);
  // Outside the interior (the first size itself, below it, the last and beyond): held by no segment's Span.
  for (size_t i = 0; i <= 8; ++i)
    for (double size : {500.0, 1024.0, 196608.0, 3e5}) CHECK(!c.span(i).holds(size));
  CHECK(c.span(2).holds(4096.0));  // [4096, 8192): its lower end is in
  CHECK(c.span(2).at(4096.0) == c.at(4096.0));
  CHECK(!c.span(2).holds(8192.0));
}

TEST_CASE("curves measured at the same sizes: one segment search gives each curve's at() to the bit") {
  // Two ops of one dense table (the same token sizes, different times; the repeated size averaged in both); a layer's
  // ops are looked up with the first one's segment.
  const Curve a({{1, 2e-6}, {16, 3.1e-6}, {16, 3.3e-6}, {128, 9.7e-6}, {1000, 6.1e-5}, {8192, 4.9e-4}},
                Curve::Below::floor, "a");
  const Curve b({{1, 5e-6}, {16, 5.3e-6}, {128, 2.9e-5}, {1000, 1.7e-4}, {8192, 1.31e-3}}, Curve::Below::floor, "b");
  const Curve other({{2, 5e-6}, {16, 5.3e-6}}, Curve::Below::floor, "other");
  CHECK(a.same_sizes(b));
  CHECK(!a.same_sizes(other));
  int interior = 0;
  for (double size = 0.3; size < 20000; size = size * 1.013 + 0.29) {
    const size_t segment = a.interior_segment(size);
    CHECK((segment != 0) == (size > 1 && size < 8192));  // 0 at the ends and beyond: at()'s other branches
    if (segment == 0) continue;
    CHECK(a.at_interior(size, segment) == a.at(size));
    CHECK(b.at_interior(size, segment) == b.at(size));
    ++interior;
  }
  for (double size : {1.0, 8192.0, 0.0, -3.0}) CHECK(a.interior_segment(size) == 0);
  CHECK(interior > 400);
}

TEST_CASE("a measured CSV with a bad field is one error naming the file and line") {
  const std::string path = "/tmp/lynx_bad_profile.csv";
  std::ofstream(path) << "num_tokens,time\n1,0.5\n2,x7\n";
  CsvTable t(path);
  CHECK(t.number(0, "time") == 0.5);
  CHECK_THROWS_WITH_AS(t.number(1, "time"), doctest::Contains("lynx_bad_profile.csv:3: column time is not a number"),
                       LynxError);
  CHECK_THROWS_WITH_AS(t.number(0, "tokens"), doctest::Contains("lynx_bad_profile.csv:1: no column \"tokens\""),
                       LynxError);
  std::ofstream(path) << "a,b\n1\n";
  CHECK_THROWS_WITH_AS(CsvTable{path}, doctest::Contains("lynx_bad_profile.csv:2: 1 fields, expected 2"), LynxError);
}

TEST_CASE("a measured CSV: every field of a wide row found from either end, field counts checked 8 bytes at a time") {
  // 23 columns (an odd count: the middle one is found from the start), empty fields, a CRLF line, commas at every
  // offset of an 8-byte word: field c of row r is r * 100 + c, or empty where (r + c) % 7 == 0
  const std::string path = "/tmp/lynx_wide_profile.csv";
  const int columns = 23, rows = 9;
  {
    std::ofstream out(path);
    for (int c = 0; c < columns; c++) out << (c ? "," : "") << "c" << c;
    out << "\n";
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c < columns; c++) {
        out << (c ? "," : "");
        if ((r + c) % 7 != 0) out << r * 100 + c;
      }
      out << (r == 3 ? "\r\n" : "\n");
    }
  }
  CsvTable t(path);
  REQUIRE(t.rows() == rows);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < columns; c++) {
      CAPTURE(r);
      CAPTURE(c);
      if ((r + c) % 7 == 0) CHECK(t.text(r, "c" + std::to_string(c)).empty());
      else CHECK(t.number_at(r, t.column_index("c" + std::to_string(c))) == r * 100 + c);
    }
  // a row one field short or long, anywhere in a long line, is the same error as before
  for (const char* bad : {"1,2,3,4,5,6,7,8,9,10\n", "1,2,3,4,5,6,7,8,9,10,11,12\n"}) {
    std::ofstream(path) << "a,b,c,d,e,f,g,h,i,j,k\n1,2,3,4,5,6,7,8,9,10,11\n" << bad;
    CHECK_THROWS_WITH_AS(CsvTable{path}, doctest::Contains("lynx_wide_profile.csv:3: "), LynxError);
  }
}

TEST_CASE("Llama-3.1-70B on H100 reproduces the measured points of the same GEMM shapes and kernels") {
  // vidur data/profiling/compute/h100/meta-llama/Llama-2-70b-hf/mlp.csv line 538 (3680 tokens, TP 4; Llama-2-70B's
  // layer has Llama-3.1-70B's shapes): medians of input_layernorm, attn_pre_proj, attn_rope, attn_post_proj,
  // post_attention_layernorm, mlp_up_proj, mlp_act, mlp_down_proj, and add twice (two residual adds).
  ProfiledCostModel m = on("llama-3.1-70b", "h100-sxm", 4);
  const double layer_ms = 0.106 + 0.2545 + 0.022 + 0.189 + 0.106 + 1.243 + 0.083 + 0.6175 + 2 * 0.056;
  CHECK(m.dense_layer_seconds(3680) == doctest::Approx(layer_ms * 1e-3).epsilon(1e-9));
  // inference-sim bench_data/mha/decode/h100/64-8-128-tp4.csv: 2^21 KV tokens read by lines 15 (16 x 131072),
  // 21 (32 x 65536), 27 (64 x 32768), 33 (128 x 16384), 38 (256 x 8192), 42 (512 x 4096): their mean.
  const double decode_us = (686.792 + 684.115 + 685.374 + 684.264 + 687.995 + 693.345) / 6;
  CHECK(m.decode_attention_seconds(16.0 * 131072) == doctest::Approx(decode_us * 1e-6).epsilon(1e-9));
  // TP 1: inference-sim bench_data/mha/prefill/h100/64-8-128.csv line 4 (8192 tokens, 1538.317 us).
  ProfiledCostModel one = on("llama-3.1-70b", "h100-sxm", 1);
  CHECK(one.prefill_attention_seconds(8192, 0) == doctest::Approx(1538.317e-6).epsilon(1e-9));
  // TP 4 holds 16 query heads: the nearest measured kernel is 28-4-128.csv (line 4: 8192 tokens, 662.37 us),
  // scaled by 16/28 query heads (its FLOPs).
  CHECK(m.prefill_attention_seconds(8192, 0) == doctest::Approx(662.37e-6 * 16 / 28).epsilon(1e-9));
  CHECK(one.all_reduce_seconds(1000) == 0);
  CHECK(m.source().find("profiled (llama-3.1-70b on h100-sxm x4") == 0);
}

TEST_CASE("an attention file is read when a model picks its curve, not before") {
  // The H100 profile with one more prefill curve whose file does not exist: for heads no shipped model has (1000
  // query heads a GPU), then for Llama-3.1-8B's at TP 2 (16 query and 4 KV heads a GPU, which no shipped curve has).
  nlohmann::json manifest =
      nlohmann::json::parse(std::ifstream(std::string(LYNX_SOURCE_DIR) + "/models/catalog/profiles.json"));
  nlohmann::json gpu;
  for (const nlohmann::json& g : manifest["gpus"])
    if (g["gpu"] == "h100-sxm") gpu = g;
  REQUIRE(gpu.is_object());
  const std::string name = "lynx_lazy_attention_" + std::to_string(::getpid()) + ".json";
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  auto with_missing = [&](double q_heads, double kv_heads) {
    nlohmann::json g = gpu;
    g["prefill_attention"].push_back({{"file", "missing/attention.csv"}, {"format", "blis-prefill"},
                                      {"q_heads_per_gpu", q_heads}, {"kv_heads_per_gpu", kv_heads}, {"head_dim", 128}});
    nlohmann::json m = manifest;
    m["gpus"] = nlohmann::json::array({g});
    std::ofstream(path) << m.dump(1);
    return std::make_shared<const GpuProfile>(load_gpu_profile(path, "h100-sxm", calibration_dir()));
  };
  const ModelSpec& llama = find_model(models(), "llama-3.1-8b");
  const GpuSpec& h100_spec = find_gpu(gpus(), "h100-sxm");
  const auto unused = with_missing(1000, 1000);  // loads: the file is not read
  const ProfiledCostModel fine(llama, h100_spec, 2, WeightsDtype::bf16, unused, h100_spec);
  const double shipped = on("llama-3.1-8b", "h100-sxm", 2).prefill_attention_seconds(4096, 0);
  CHECK(fine.prefill_attention_seconds(4096, 0) == shipped);
  const auto picked = with_missing(16, 4);  // loads too; the model picks it, and reads it then
  CHECK_THROWS_WITH_AS(ProfiledCostModel(llama, h100_spec, 2, WeightsDtype::bf16, picked, h100_spec),
                       doctest::Contains("missing/attention.csv"), LynxError);
  CHECK_NOTHROW(ProfiledCostModel(llama, h100_spec, 1, WeightsDtype::bf16, picked, h100_spec));  // TP 1: 32-8
  std::filesystem::remove(path);
}

TEST_CASE("H200 is derived from the H100 measurements by datasheet ratios and says so") {
  ProfiledCostModel h100_model = on("llama-3.1-8b", "h100-sxm", 1), h200_model = on("llama-3.1-8b", "h200-sxm", 1);
  // Decode attention and element-wise ops are bytes-bound: HBM 3.35 -> 4.8 TB/s.
  CHECK(h200_model.decode_attention_seconds(1e6) ==
        doctest::Approx(h100_model.decode_attention_seconds(1e6) * 3350.0 / 4800.0).epsilon(1e-12));
  // Prefill attention is FLOP-bound: the same bf16 peak, the same time.
  CHECK(h200_model.prefill_attention_seconds(4096, 0) == doctest::Approx(h100_model.prefill_attention_seconds(4096, 0)));
  // A 1-token GEMM is weight-bytes-bound (faster on H200), an 8K-token one FLOP-bound (unchanged).
  CHECK(h200_model.lm_head_seconds(1) < 0.75 * h100_model.lm_head_seconds(1));
  CHECK(h200_model.lm_head_seconds(8192) == doctest::Approx(h100_model.lm_head_seconds(8192)).epsilon(1e-9));
  CHECK(h200_model.source().find("derived from h100-sxm measurements") != std::string::npos);
}

TEST_CASE("auto chooses the profiled model where measurements cover the GPU and shape, else the roofline") {
  ComputeChoice choice;
  auto profiled = make_step_cost(find_model(models(), "llama-3.1-8b"), find_gpu(gpus(), "h200-sxm"), gpus(), 1, choice);
  CHECK(profiled->source().find("profiled") == 0);
  // stories260K's 64-wide layers are far from every measured GEMM.
  auto tiny = make_step_cost(find_model(models(), "stories260k"), find_gpu(gpus(), "h100-sxm"), gpus(), 1, choice);
  CHECK(tiny->source().find("roofline") == 0);
  CHECK(tiny->source().find("profiled model not used") != std::string::npos);
  choice.model = ComputeModelKind::profiled;
  CHECK_THROWS_WITH_AS(make_step_cost(find_model(models(), "stories260k"), find_gpu(gpus(), "h100-sxm"), gpus(), 1,
                                      choice),
                       doctest::Contains("compute_model \"profiled\""), LynxError);
  choice.model = ComputeModelKind::roofline;
  auto roofline = make_step_cost(find_model(models(), "llama-3.1-8b"), find_gpu(gpus(), "h200-sxm"), gpus(), 1, choice);
  CHECK(roofline->source().find("roofline") == 0);
  // Ascend 910B's nearest measured GPU by datasheet peaks is the A100.
  CHECK(profile_gpu_for(find_gpu(gpus(), "ascend-910b"), gpus(), {"h100-sxm", "a100-80gb-sxm"}) == "a100-80gb-sxm");
  CHECK(profile_gpu_for(find_gpu(gpus(), "h200-sxm"), gpus(), {"h100-sxm", "a100-80gb-sxm"}) == "h100-sxm");
}

namespace {
// The iteration ends that are not, to the last bit, `start_s` plus the running sum of `step_model`'s decode_seconds.
size_t ends_differing(const std::vector<double>& ends, const ProfiledCostModel& step_model, const DecodeRun& run,
                      double start_s) {
  double t = start_s;
  size_t differing = 0;
  for (size_t i = 0; i < ends.size(); ++i) {
    t += step_model.decode_seconds(run.at(i));
    if (ends[i] != t) ++differing;
  }
  return differing;
}
}  // namespace

TEST_CASE("a decode run's iteration ends are the running sum of its steps' decode_seconds, to the last bit") {
  // decode_run_ends repeats decode_seconds' expression with its lookups taken out of the loop: on a measured and a
  // derived GPU, at TP 1 and 4, over many attention segments and past the last measured size (extrapolated).
  for (const auto& [model_name, gpu_name, tp] : {std::tuple{"llama-3.1-8b", "h100-sxm", 1},
                                                 std::tuple{"llama-3.1-8b", "h200-sxm", 1},
                                                 std::tuple{"llama-3.1-70b", "h100-sxm", 4}}) {
    const char* const model = model_name;  // clang 14: a structured binding cannot be captured
    const char* const gpu = gpu_name;
    CAPTURE(model);
    CAPTURE(gpu);
    ProfiledCostModel run_model = on(model_name, gpu_name, tp), step_model = on(model_name, gpu_name, tp);
    DecodeRun run{24, 24, 0, 0, 0, 24 * 300.0, 24 * 2900.0};  // 24 sequences from 300 to ~12M tokens of context
    std::vector<double> ends;
    run_model.decode_run_ends(run, 0, 1500, 2.5, ends);
    run_model.decode_run_ends(run, 1500, 4096, ends.back(), ends);  // a plan's later chunk
    REQUIRE(ends.size() == 4096);
    CHECK(ends_differing(ends, step_model, run, 2.5) == 0);
    CHECK(run_model.extrapolated() == step_model.extrapolated());
    CHECK(run_model.extrapolated());
  }
}

TEST_CASE("a decode run's ends hold to the last bit whatever its chunks, its growth and where it starts") {
  // decode_run_ends goes by blocks of iterations inside one attention segment (halved at a segment's edge) and one
  // at a time elsewhere: chunks of every length from 1, runs that start inside a segment or on a measured size, a
  // run that does not grow, on a GPU measured and one derived. The second run crosses the measured sizes 1024 and
  // 4096 (KV tokens x 1024 = 8 heads x 128): a segment whose width, 3072, is not a power of two.
  for (const auto& [gpu_name, tp] : {std::pair{"h100-sxm", 1}, std::pair{"h200-sxm", 2}}) {
    const char* const gpu = gpu_name;  // clang 14: a structured binding cannot be captured
    CAPTURE(gpu);
    for (const DecodeRun& run : {DecodeRun{8, 8, 0, 0, 0, 8 * 1000.0, 8 * 1.0}, DecodeRun{1, 1, 0, 0, 0, 1100.0, 1.0},
                                 DecodeRun{16, 16, 0, 0, 0, 16 * 777.0, 16 * 37.0},
                                 DecodeRun{4, 4, 0, 0, 0, 4 * 5000.0, 0.0}}) {
      CAPTURE(run.attention_tokens);
      CAPTURE(run.attention_growth);
      ProfiledCostModel run_model = on("llama-3.1-8b", gpu_name, tp), step_model = on("llama-3.1-8b", gpu_name, tp);
      std::vector<double> ends;
      size_t first = 0;
      for (size_t chunk = 1; first < 3000; ++chunk) {  // chunks of 1, 2, 3, ... iterations
        run_model.decode_run_ends(run, first, first + chunk, ends.empty() ? 0.25 : ends.back(), ends);
        first += chunk;
      }
      REQUIRE(ends.size() == first);
      CHECK(ends_differing(ends, step_model, run, 0.25) == 0);
      CHECK(run_model.extrapolated() == step_model.extrapolated());
    }
  }
}

TEST_CASE("a prefill beyond the measured tokens is still timed, proportionally, and flagged as extrapolated") {
  ProfiledCostModel m = on("llama-3.1-8b", "h100-sxm", 1);
  m.prefill_seconds({PrefillPiece{2048, 0}});
  CHECK(!m.extrapolated());
  const double t = m.prefill_seconds({PrefillPiece{32768, 0}});
  CHECK(m.extrapolated());
  CHECK(t > 0);
  CHECK(m.source().find("extrapolated") != std::string::npos);
}

TEST_CASE("validation: the MAPE against end-to-end measurements stays under the figures reached") {
  ValidationReport r = run_validation(calibration_dir(), std::string(LYNX_SOURCE_DIR) + "/models/catalog/profiles.json",
                                      std::string(LYNX_SOURCE_DIR) + "/models/catalog/models.json",
                                      std::string(LYNX_SOURCE_DIR) + "/models/catalog/gpus.json");
  auto mape = [&](const std::string& group) {
    for (const ValidationGroup& g : r.groups)
      if (g.group == group) return g.mape_percent;
    FAIL("no group " << group);
    return 0.0;
  };
  CHECK(mape("H100 decode (splitwise-sim)") < 7.0);
  CHECK(mape("A100 decode (splitwise-sim)") < 9.5);
  CHECK(mape("H100 prefill (splitwise-sim)") < 20.0);
  CHECK(mape("A100 prefill (splitwise-sim)") < 13.0);
  CHECK(mape("H100 prefill op sums (LLMServingSim)") < 21.0);
  int excluded = 0;
  for (const ValidationRow& row : r.rows) excluded += !row.excluded.empty();
  CHECK(excluded == 3);  // the batch-64 TP2 prefill rows (A100, H100, power-capped H100) below their batch-32 times
  // The diagnostic breakdown: up to 2048 batched prompt tokens the components predict prefill on A100 with 6.1% MAPE
  // and on H100 with 12.7% (TP 4/8 small prompts: the measured H100 prefill has a floor near 50 ms).
  auto part = [&](const std::string& name) {
    for (const ValidationGroup& g : r.breakdown)
      if (g.group == name) return g.mape_percent;
    FAIL("no breakdown " << name);
    return 0.0;
  };
  CHECK(part("A100 prefill (splitwise-sim), <= 2048 batched tokens") < 6.5);
  CHECK(part("H100 prefill (splitwise-sim), <= 2048 batched tokens") < 13.0);
  CHECK(part("H100 prefill (splitwise-sim), TP 2") < 10.5);

  // Why prefill above 2048 batched tokens is out of reach of the components (README, "Calibrated compute"): the
  // measured end-to-end prefill more than doubles from 4 to 8 prompts of 512 tokens at TP 8 (2.8x on H100,
  // splitwise-sim/data/perf_model.csv lines 447 and 457; 2.6x on A100, lines 442 and 452; the same at one prompt of
  // 2048 vs 4096 tokens, lines 537/547 and 532/542, whose attention differs 8x from the 512 x 8 batch's), but only
  // 2.0x at TP 2 (lines 27/37, 22/32)...
  auto measured = [&](const std::string& group, const std::string& condition) {
    for (const ValidationRow& row : r.rows)
      if (row.group == group && row.condition == condition) return row.measured_ms;
    FAIL("no row " << group << " " << condition);
    return 0.0;
  };
  for (const std::string gpu : {"H100", "A100"}) {
    const std::string g = gpu + " prefill (splitwise-sim)";
    CHECK(measured(g, "TP8 prompt 512 x batch 8 output 128") / measured(g, "TP8 prompt 512 x batch 4 output 128") > 2.5);
    CHECK(measured(g, "TP8 prompt 4096 x batch 1 output 128") / measured(g, "TP8 prompt 2048 x batch 1 output 128") >
          2.3);
    CHECK(measured(g, "TP2 prompt 512 x batch 8 output 128") / measured(g, "TP2 prompt 512 x batch 4 output 128") < 2.05);
  }
  // ... while every component stays linear in tokens there: vidur's A100 Meta-Llama-3-70B layer at TP 8 (mlp.csv,
  // measured to 32768 tokens: lines 1630-1631 at 2048, 1370-1371 at 32768) takes within 10% of the same time per
  // token at 2048, 4096 and 32768 tokens, and the NCCL all-reduce (vidur a100_dgx and h100_dgx all_reduce.csv, 8
  // GPUs) moves 64 MiB (4096 tokens of 8192 bf16) at least as fast per byte as 32 MiB.
  ProfiledCostModel a100(find_model(models(), "llama-2-70b"), find_gpu(gpus(), "a100-80gb-sxm"), 8, WeightsDtype::bf16,
                         std::make_shared<const GpuProfile>(load_gpu_profile(
                             std::string(LYNX_SOURCE_DIR) + "/models/catalog/profiles.json", "a100-80gb-sxm",
                             calibration_dir())),
                         find_gpu(gpus(), "a100-80gb-sxm"));
  const double per_token_2k = a100.dense_layer_seconds(2048) / 2048;
  CHECK(a100.dense_layer_seconds(4096) / 4096 == doctest::Approx(per_token_2k).epsilon(0.1));
  CHECK(a100.dense_layer_seconds(32768) / 32768 == doctest::Approx(per_token_2k).epsilon(0.1));
  CHECK(!a100.extrapolated());
  CHECK(a100.all_reduce_seconds(4096) <= 2 * a100.all_reduce_seconds(2048) * 1.001);
  ProfiledCostModel h100_tp8 = on("llama-2-70b", "h100-sxm", 8);
  CHECK(h100_tp8.all_reduce_seconds(4096) <= 2 * h100_tp8.all_reduce_seconds(2048) * 1.001);
}
