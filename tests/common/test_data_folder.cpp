// The project folder's rule (common/data_folder.hpp): $LYNX_PROJECT_DIR first, else the checkout that holds the
// running binary (this test binary lies in the build folder of the checkout it was built from), found by its marker
// files; the data folder beside it. tests/cli/where_check.sh checks the same from outside, with copied binaries.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/data_folder.hpp"

using namespace lynx;
namespace fs = std::filesystem;

TEST_CASE("the project folder is $LYNX_PROJECT_DIR, else the checkout that holds the running binary") {
  unsetenv("LYNX_PROJECT_DIR");
  const ProjectFolder running = project_folder();
  CHECK(fs::equivalent(running.path, LYNX_SOURCE_DIR));
  CHECK(running.chosen_by.rfind("the checkout that holds the running lynxsim (", 0) == 0);
  CHECK(project_dir() == running.path);

  setenv("LYNX_PROJECT_DIR", "/some/where/else/", 1);
  const ProjectFolder env = project_folder();
  CHECK(env.path == "/some/where/else/");
  CHECK(env.chosen_by == "$LYNX_PROJECT_DIR");
  CHECK(project_dir() == "/some/where/else/");  // read each time: a test or a caller may set it
  unsetenv("LYNX_PROJECT_DIR");
}

TEST_CASE("a checkout is the nearest parent folder with the project's marker files") {
  const fs::path root = fs::temp_directory_path() / "lynx_checkout_test";
  fs::remove_all(root);
  fs::create_directories(root / "models" / "catalog");
  fs::create_directories(root / "experiments");
  fs::create_directories(root / "build" / "app");
  CHECK(checkout_holding((root / "build" / "app" / "lynxsim").string()).empty());  // no marker files yet
  std::ofstream(root / "models" / "catalog" / "models.json") << "{}";
  CHECK(checkout_holding((root / "build" / "app" / "lynxsim").string()).empty());  // one of the two
  std::ofstream(root / "experiments" / "plot_results.py") << "";
  CHECK(checkout_holding((root / "build" / "app" / "lynxsim").string()) == root.string());
  CHECK(checkout_holding((root / "lynxsim").string()) == root.string());
  CHECK(checkout_holding("/lynxsim").empty());
  fs::remove_all(root);
}
