// The output rule (common/output_paths.hpp), the rename-time check of write_file_atomic, read_file's refusal of
// what is not a regular file, and the data manifest check with its size+mtime cache (common/data_manifest.hpp).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "common/atomic_file.hpp"
#include "common/data_manifest.hpp"
#include "common/error.hpp"
#include "common/output_paths.hpp"
#include "common/sha256.hpp"

using namespace lynx;
namespace fs = std::filesystem;

namespace {
struct Folder {
  fs::path dir;
  explicit Folder(const char* name) : dir(fs::temp_directory_path() / (std::string(name) + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Folder() { fs::remove_all(dir); }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};
std::string message_of(const OutputPlan& plan) {
  try {
    plan.check();
  } catch (const LynxError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("resolved_path: spellings and links of one file are one path") {
  Folder f("lynx_output_paths_");
  write_file_atomic(f / "c.json", "{}");
  fs::create_symlink(f / "c.json", f / "link.json");
  const std::string real = resolved_path(f / "c.json");
  CHECK(resolved_path(f.dir.string() + "/./c.json") == real);
  CHECK(resolved_path(f / "link.json") == real);
  CHECK(resolved_path(f.dir.string() + "/sub/../c.json") == real);
  CHECK(resolved_path(f / "missing/x.json") == resolved_path(f.dir.string()) + "/missing/x.json");
}

TEST_CASE("output rule: each case refused with the options named, a clean plan passes") {
  Folder f("lynx_output_rule_");
  write_file_atomic(f / "c.json", "{}");
  fs::create_symlink(f / "c.json", f / "link.json");
  fs::create_directories(f / "adir");
  REQUIRE(::mkfifo((f / "fifo").c_str(), 0600) == 0);

  OutputPlan ok;
  ok.input_file("--config", f / "c.json");
  ok.output_folder("--out", f / "run", {"config.json", "summary.json"});
  ok.output_file("--timeline", f / "t.json");
  CHECK(message_of(ok).empty());

  OutputPlan same_as_input;
  same_as_input.input_file("--config", f / "c.json");
  same_as_input.output_file("--timeline", f / "link.json");
  CHECK(message_of(same_as_input) == "--timeline " + (f / "link.json") + " would replace the input --config " +
                                         (f / "c.json") + ": choose another output path");

  OutputPlan two_outputs;
  two_outputs.output_folder("--out", f / "run", {"config.json"});
  two_outputs.output_file("--timeline", f / "run/config.json");
  CHECK(message_of(two_outputs).find("are the same file") != std::string::npos);

  OutputPlan device;
  device.output_file("--timeline", "/dev/null");
  CHECK(message_of(device) == "--timeline /dev/null: is a character device, not a regular file; lynxsim writes only "
                              "regular files (choose a file path)");
  OutputPlan fifo;
  fifo.output_file("--data", f / "fifo");
  CHECK(message_of(fifo).find("is a FIFO") != std::string::npos);

  OutputPlan folder_for_file;
  folder_for_file.output_file("--out", f / "adir");
  CHECK(message_of(folder_for_file).find("is a folder, expected a file path") != std::string::npos);
  OutputPlan file_for_folder;
  file_for_folder.output_folder("--out", f / "c.json");
  CHECK(message_of(file_for_folder).find("exists and is not a folder") != std::string::npos);

  fs::create_directories(f / "run/config.json");
  OutputPlan folder_inside;
  folder_inside.output_folder("--out", f / "run", {"config.json"});
  CHECK(message_of(folder_inside).find("run/config.json is a folder, where lynxsim writes a regular file") !=
        std::string::npos);

  OutputPlan into_input_folder;
  into_input_folder.input_folder("shard", f / "adir");
  into_input_folder.output_folder("--out", f.dir.string() + "/./adir");
  CHECK(message_of(into_input_folder).find("is also the input folder shard") != std::string::npos);

  OutputPlan result_file;
  result_file.input_folder("results", f / "adir", {"summary.csv", "p0/summary.json"});
  result_file.output_file("--data", f / "adir/p0/summary.json");
  CHECK(message_of(result_file).find("an input of this command") != std::string::npos);
  OutputPlan other_file;
  other_file.input_folder("results", f / "adir", {"summary.csv"});
  other_file.output_file("--data", f / "adir/data.json");
  CHECK(message_of(other_file).empty());
}

TEST_CASE("write_file_atomic never renames over a non-regular file, and writes through a link") {
  Folder f("lynx_atomic_rule_");
  REQUIRE(::mkfifo((f / "fifo").c_str(), 0600) == 0);
  CHECK_THROWS_WITH_AS(write_file_atomic(f / "fifo", "x"), doctest::Contains("exists and is not a regular file"),
                       LynxError);
  struct stat info {};
  REQUIRE(::lstat((f / "fifo").c_str(), &info) == 0);
  CHECK(S_ISFIFO(info.st_mode));
  fs::create_directories(f / "adir");
  CHECK_THROWS_AS(write_file_atomic(f / "adir", "x"), LynxError);
  CHECK(fs::is_directory(f / "adir"));
  write_file_atomic(f / "real.txt", "old");
  fs::create_symlink(f / "real.txt", f / "link.txt");
  write_file_atomic(f / "link.txt", "new");
  CHECK(fs::is_symlink(f / "link.txt"));
  CHECK(read_file(f / "real.txt") == "new");
  int temporaries = 0;
  for (const auto& e : fs::directory_iterator(f.dir)) temporaries += e.path().string().find(".tmp.") != std::string::npos;
  CHECK(temporaries == 0);
}

TEST_CASE("output rule: an input tree (a model folder, the data folder) keeps every file below it, new files go") {
  Folder f("lynx_input_tree_");
  fs::create_directories(f / "model/sub");
  write_file_atomic(f / "model/model.safetensors", "w");
  write_file_atomic(f / "model/sub/table.csv", "t");
  auto plan_writing = [&](const std::string& out) {
    OutputPlan plan;
    plan.input_tree("the model folder --model", f / "model");
    plan.output_file("--out", out);
    return message_of(plan);
  };
  CHECK(plan_writing(f / "model/model.safetensors") ==
        "--out " + (f / "model/model.safetensors") + " would replace " + resolved_path(f / "model/model.safetensors") +
            ", a file of the model folder --model (" + (f / "model") + "), which this command reads: choose another "
            "output path");
  CHECK(plan_writing(f / "model/sub/table.csv").find("would replace") != std::string::npos);  // any depth
  CHECK(plan_writing(f.dir.string() + "/model/../model/sub/table.csv").find("would replace") != std::string::npos);
  CHECK(plan_writing(f / "model/accuracy.json").empty());  // a new file beside the inputs
  CHECK(plan_writing(f / "elsewhere.json").empty());
  // An output folder's files too.
  OutputPlan folder;
  folder.input_tree("the data folder", f / "model");
  folder.output_folder("--out", f / "model/sub", {"table.csv"});
  CHECK(message_of(folder).find("--out " + (f / "model/sub") + " (its table.csv) would replace") == 0);
}

TEST_CASE("open_input_fd: a FIFO with no writer is refused at once, never waited on") {
  Folder f("lynx_open_input_");
  REQUIRE(::mkfifo((f / "fifo").c_str(), 0600) == 0);
  const std::string fifo_error = (f / "fifo") + ": is a FIFO, not a regular file; lynxsim reads only regular files";
  const std::string missing_error = (f / "missing") + ": cannot open file: No such file or directory";
  CHECK_THROWS_WITH_AS(open_input_fd(f / "fifo"), fifo_error.c_str(), LynxError);
  CHECK_THROWS_WITH_AS(open_input_file(f / "missing"), missing_error.c_str(), LynxError);
  write_file_atomic(f / "x", "abc");
  std::FILE* file = open_input_file(f / "x");
  char text[4] = {};
  CHECK(std::fread(text, 1, 3, file) == 3);  // blocking again: an ordinary read
  std::fclose(file);
  CHECK(std::string(text) == "abc");
}

TEST_CASE("read_file refuses a FIFO, a device and a folder before opening them") {
  Folder f("lynx_read_rule_");
  REQUIRE(::mkfifo((f / "fifo").c_str(), 0600) == 0);
  const std::string fifo_error = (f / "fifo") + ": is a FIFO, not a regular file; lynxsim reads only regular files";
  CHECK_THROWS_WITH_AS(read_file(f / "fifo"), fifo_error.c_str(), LynxError);
  CHECK_THROWS_WITH_AS(read_file("/dev/zero"),
                       "/dev/zero: is a character device, not a regular file; lynxsim reads only regular files",
                       LynxError);
  CHECK_THROWS_WITH_AS(read_file(f.dir.string()), doctest::Contains("is a directory"), LynxError);
}

TEST_CASE("data manifest: a changed file is named, an unchanged one is hashed once (size+mtime cache)") {
  Folder f("lynx_manifest_");
  fs::create_directories(f / "data/traces");
  write_file_atomic(f / "data/traces/t.jsonl", "row\n");
  const DataManifest manifest = {{"traces/t.jsonl", sha256_hex(std::string("row\n"))}};
  const std::string cache = f / "cache/data-sha256.tsv";
  // Modified less than 2 s ago: checked, not cached (it could change again within a coarse mtime tick).
  CHECK(data_manifest_check(f / "data", "traces/t.jsonl", manifest, cache));
  CHECK(!fs::exists(cache));
  fs::last_write_time(f / "data/traces/t.jsonl", fs::last_write_time(f / "data/traces/t.jsonl") - std::chrono::hours(1));
  CHECK(data_manifest_check(f / "data", "traces/t.jsonl", manifest, cache));
  const std::string cached = read_file(cache);
  CHECK(cached.find("/traces/t.jsonl\t4\t") != std::string::npos);
  CHECK(cached.find(manifest.at("traces/t.jsonl") + "\n") != std::string::npos);
  data_manifest_check(f / "data", "traces/t.jsonl", manifest, cache);  // from the cache
  CHECK(read_file(cache) == cached);
  CHECK(!data_manifest_check(f / "data", "traces/unlisted.csv", manifest, cache));  // not listed: not checked
  write_file_atomic(f / "data/traces/t.jsonl", "ROW\n");  // same size, new mtime: hashed again
  const std::string changed = "/traces/t.jsonl: changed: its sha256 is " + sha256_hex(std::string("ROW\n")) +
                              ", scripts/data-manifest.tsv gives " + manifest.at("traces/t.jsonl");
  CHECK(data_file_sha256(f / "data/traces/t.jsonl") == manifest.at("traces/t.jsonl"));  // not read
  CHECK_THROWS_WITH_AS(data_manifest_check(f / "data", "traces/t.jsonl", manifest, cache),
                       doctest::Contains(changed.c_str()), LynxError);
  // Found changed: its digest is no longer taken from the manifest but hashed.
  CHECK(data_file_sha256(f / "data/traces/t.jsonl") == sha256_hex(std::string("ROW\n")));
  write_file_atomic(f / "manifest.tsv", "# comment\ntraces/t.jsonl\tabc\n");
  CHECK_THROWS_WITH_AS(data_manifest_read(f / "manifest.tsv"), doctest::Contains("manifest.tsv:2: expected PATH"),
                       LynxError);
}

TEST_CASE("printable: control bytes escaped, text kept") {
  CHECK(printable("a\x1b[31mred\x7f\tb\n") == "a\\x1b[31mred\\x7f\tb\n");
}
