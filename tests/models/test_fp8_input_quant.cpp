// The dynamic input quantization inside AIConfigurator's per-tensor fp8 GEMM rows (models/cost/engine/fp8_input_quant.hpp):
// the bandwidth fit recovers a synthetic table's line exactly and reads only the weight-bandwidth-bound rows; the
// static-scale GEMM is the closed form, floored at the roofline; on the real tables the fitted intercepts and
// bandwidths are the header's figures, and the fp8 and bf16 rows reach the same bandwidth (the assumption).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "common/error.hpp"
#include "models/cost/engine/aic_database.hpp"
#include "models/readers/csv_table.hpp"
#include "models/cost/engine/fp8_input_quant.hpp"
#include "tests/models/shipped_catalogs.hpp"

using namespace lynx;

namespace {

// A synthetic GEMM table (axes n, k, m) on a line in the weight bytes, plus rows the fit must not read (m > 16,
// n < 1024, over 512 MB), set far off the line.
AicGrid synthetic(double intercept_ms, double ms_per_byte, double bytes_per_weight) {
  std::vector<AicPoint> pts;
  for (double n : {512.0, 1024.0, 4096.0, 8192.0, 16384.0, 65536.0})
    for (double k : {1024.0, 4096.0, 14336.0})
      for (double m : {1.0, 8.0, 16.0, 64.0}) {
        const double bytes = n * k * bytes_per_weight;
        const bool fitted = m <= 16 && n >= 1024 && bytes >= 8e6 && bytes <= 512e6;
        AicPoint p;
        p.x = {n, k, m};
        p.ms = fitted ? intercept_ms + bytes * ms_per_byte : 100;
        pts.push_back(p);
      }
  return AicGrid(3, pts, "synthetic gemm");
}

}  // namespace

TEST_CASE("fp8 input quantization: the fit recovers a synthetic line and reads only the bandwidth-bound rows") {
  const double per_byte = 1e3 / 2.8e12;  // ms per byte at 2.8 TB/s
  const GemmBandwidthFit bf16 = fit_gemm_bandwidth(synthetic(0.0043, per_byte, 2), 2);
  const GemmBandwidthFit fp8 = fit_gemm_bandwidth(synthetic(0.0132, per_byte, 1), 1);
  CHECK(bf16.intercept_ms == doctest::Approx(0.0043).epsilon(1e-9));
  CHECK(bf16.ms_per_weight_byte == doctest::Approx(per_byte).epsilon(1e-9));
  CHECK(fp8.intercept_ms == doctest::Approx(0.0132).epsilon(1e-9));
  // bf16: the 12 (n, k) of n >= 1024 within 8..512 MB (n 1024: k 4096, 14336; 4096, 8192, 16384: every k;
  // 65536: k 1024), at m 1, 8, 16
  CHECK(bf16.points == 3 * 12);
  // fixed part: 13.2 - 4.3 - 3 us
  CHECK(fp8_dynamic_quant_fixed_ms(bf16, fp8) == doctest::Approx(0.0059).epsilon(1e-9));
  // never negative: an fp8 intercept within one element-wise kernel of bf16's removes nothing
  GemmBandwidthFit close = fp8;
  close.intercept_ms = bf16.intercept_ms + 0.002;
  CHECK(fp8_dynamic_quant_fixed_ms(bf16, close) == 0);
  // a table with no bandwidth-bound rows is refused by name
  AicPoint lone;
  lone.x = {512, 512, 64}, lone.ms = 1;
  CHECK_THROWS_WITH_AS(fit_gemm_bandwidth(AicGrid(3, {lone}, "tiny gemm"), 2),
                       doctest::Contains("tiny gemm: 0 weight-bandwidth-bound rows"), LynxError);
}

TEST_CASE("fp8 input quantization: a static-scale GEMM is the row less the fixed part and the amax read") {
  // m 256, k 4096: the amax pass reads 256 x 4096 x 2 bytes at 0.8 x 3350 GB/s
  const double amax_ms = 256.0 * 4096 * 2 / (0.8 * 3350e9) * 1e3;
  CHECK(static_fp8_gemm_ms(0.030, 256, 4096, 0.006, 3350, 0.001) == doctest::Approx(0.030 - 0.006 - amax_ms));
  // floored at the roofline
  CHECK(static_fp8_gemm_ms(0.008, 256, 4096, 0.006, 3350, 0.005) == 0.005);
  // a row already below the roofline is kept, never raised
  CHECK(static_fp8_gemm_ms(0.004, 256, 4096, 0.006, 3350, 0.005) == 0.004);
}

TEST_CASE("fp8 input quantization: the tables' fits (H100, H200 and B200, every engine)") {
  const std::string root = calibration_dir() + "/aiconfigurator";
  struct Case {
    const char* gpu;  // the table folder; its catalog GPU is the same name with a dash
    ServingEngine engine;
    double bf16_us, fp8_us, fixed_us;
  };
  // the fitted intercepts and fixed parts, rounded to 0.1 us (fp8_input_quant.hpp quotes them)
  for (const Case& c : {Case{"h100_sxm", ServingEngine::trtllm, 4.3, 13.4, 6.1}, Case{"h100_sxm", ServingEngine::vllm, 3.6, 7.5, 0.9},
                        Case{"h100_sxm", ServingEngine::sglang, 4.2, 7.1, 0.0}, Case{"h200_sxm", ServingEngine::trtllm, 4.8, 13.7, 5.9},
                        Case{"h200_sxm", ServingEngine::vllm, 4.0, 8.0, 1.0}, Case{"h200_sxm", ServingEngine::sglang, 4.6, 7.6, 0.0},
                        Case{"b200_sxm", ServingEngine::trtllm, 4.1, 15.6, 8.5}, Case{"b200_sxm", ServingEngine::vllm, 4.2, 9.4, 2.2},
                        Case{"b200_sxm", ServingEngine::sglang, 4.7, 9.3, 1.6}}) {
    CAPTURE(c.gpu);
    CAPTURE(serving_engine_name(c.engine));
    std::string catalog_name = c.gpu;
    catalog_name[4] = '-';  // h100_sxm -> h100-sxm
    const GpuSpec& g = find_gpu(test::shipped_gpus(), catalog_name);
    const AicDatabase db(root, c.gpu, c.engine,
                         AicPeaks{g.bf16_dense_tflops, g.fp8_dense_tflops, g.hbm_gb_per_s, g.nvlink_gb_per_s});
    const GemmBandwidthFit bf16 = fit_gemm_bandwidth(db.grid("gemm"), 2);
    const GemmBandwidthFit fp8 = fit_gemm_bandwidth(db.grid("gemm_fp8"), 1);
    CHECK(std::fabs(bf16.intercept_ms * 1e3 - c.bf16_us) <= 0.05);
    CHECK(std::fabs(fp8.intercept_ms * 1e3 - c.fp8_us) <= 0.05);
    CHECK(std::fabs(db.fp8_dynamic_quant_fixed_ms() * 1e3 - c.fixed_us) <= 0.05);
    // the assumption: the fp8 rows reach the bf16 rows' weight bandwidth (within 10% on H100 and H200; B200's
    // vLLM and SGLang rows 16-24% below it), the fixed cost differs
    const double bandwidth_ratio = bf16.ms_per_weight_byte / fp8.ms_per_weight_byte;
    CHECK(bandwidth_ratio <= 1.0);
    CHECK(bandwidth_ratio >= (std::string(c.gpu) == "b200_sxm" ? 0.75 : 0.90));
    // a static-scale GEMM of an 8B's o projection at 256 tokens: the row less at least the fixed part
    const double row = db.gemm_ms(256, 4096, 4096, AicGemmDtype::fp8);
    CHECK(db.static_fp8_gemm_ms(256, 4096, 4096) <= row - db.fp8_dynamic_quant_fixed_ms());
  }
}
