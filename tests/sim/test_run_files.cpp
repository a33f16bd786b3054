// A run's result files (sim/output/run_files.hpp): streaming the records to requests.csv and the summary as they finish
// writes the bytes that writing them from kept records does, and requests.csv reads back (sim/output/requests_csv.hpp) to
// the records the simulation made, to the nanosecond the file keeps.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "common/atomic_file.hpp"
#include "sim/engine/isolated_run.hpp"
#include "sim/output/request_columns.hpp"
#include "sim/output/requests_csv.hpp"
#include "sim/output/run_files.hpp"
#include "sim_test_support.hpp"

using namespace lynx;
namespace fs = std::filesystem;

namespace {
nlohmann::json lynx_config() {
  return {{"model", "llama-3.1-8b"},
          {"format", "lynx-a4r4-g64"},
          {"cluster",
           {{"prefill", {{"instances", 2}}}, {"decode", {{"instances", 2}}}, {"network", {{"nic_gbps", 25}}}}}};
}

std::vector<Request> requests() {
  std::vector<Request> out;
  for (int64_t i = 0; i < 24; ++i)
    out.push_back(test::make_request(i, 0.04 * static_cast<double>(i), 512 + 160 * i, 1 + i % 9));
  return out;
}
}  // namespace

TEST_CASE("streamed result files equal those written from kept records, and requests.csv reads back to them") {
  const fs::path root = fs::temp_directory_path() / ("lynx_run_files_test_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::string streamed = (root / "streamed").string(), kept = (root / "kept").string();
  run_isolated([&] {
    simulate_to_files(streamed, test::make_inputs(lynx_config(), requests()), "test");
    return std::string();
  });
  run_isolated([&] {
    const SimulationInputs inputs = test::make_inputs(lynx_config(), requests());
    write_simulation_results(kept, inputs, simulate(inputs), "test");
    return std::string();
  });
  for (const char* file : {"requests.csv", "summary.json"}) {
    CAPTURE(file);
    CHECK(read_file(streamed + "/" + file) == read_file(kept + "/" + file));
  }

  const std::vector<RequestRecord> simulated = test::run_simulation(lynx_config(), requests()).records;
  const std::vector<RequestRecord> read = requests_csv_read(streamed + "/requests.csv");
  REQUIRE(read.size() == simulated.size());
  for (size_t k = 0; k < read.size(); ++k) {
    CAPTURE(k);
    for (const RequestColumn& c : kRequestColumns) {
      CAPTURE(c.name);
      if (c.count != nullptr) CHECK(read[k].*c.count == simulated[k].*c.count);
      if (c.index != nullptr) CHECK(read[k].*c.index == simulated[k].*c.index);
      for (double RequestRecord::*m : {c.seconds, c.restores}) {
        if (m == nullptr) continue;
        const double a = read[k].*m, b = simulated[k].*m;
        CHECK(((std::isnan(a) && std::isnan(b)) || std::fabs(a - b) <= 1e-9));  // "%.9f": half a nanosecond, twice
      }
    }
  }
  fs::remove_all(root);
}
