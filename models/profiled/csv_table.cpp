#include "models/profiled/csv_table.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "common/data_folder.hpp"
#include "common/error.hpp"

namespace lynx {

std::string calibration_dir() { return data_folder().path + "/calibration"; }

namespace {
std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    const size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!fields.empty() && !fields.back().empty() && fields.back().back() == '\r') fields.back().pop_back();
  return fields;
}
}  // namespace

CsvTable::CsvTable(const std::string& path) : path_(path) {
  std::ifstream in(path);
  if (!in) throw_error("%s: cannot read the measurement file (is the calibration data folder present? set "
                       "LYNX_DATA_DIR)", path.c_str());
  data_folder_check_file(path);  // the manifest's sha256 (common/data_manifest.hpp)
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line == "\r") continue;
    if (header_.empty()) {
      header_ = split(line);
      continue;
    }
    std::vector<std::string> fields = split(line);
    if (fields.size() != header_.size())
      throw_error("%s:%d: %zu fields, expected %zu as in the header", path.c_str(), number, fields.size(),
                  header_.size());
    rows_.push_back(std::move(fields));
    lines_.push_back(number);
  }
  if (header_.empty()) throw_error("%s: empty file (expected a CSV header and rows)", path.c_str());
}

bool CsvTable::has_column(const std::string& name) const {
  for (const auto& h : header_)
    if (h == name) return true;
  return false;
}

size_t CsvTable::column(const std::string& name) const {
  for (size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == name) return i;
  throw_error("%s:1: no column \"%s\" in the header", path_.c_str(), name.c_str());
}

const std::string& CsvTable::text(size_t row, const std::string& name) const { return rows_.at(row)[column(name)]; }

double CsvTable::number(size_t row, const std::string& name) const {
  const std::string& field = text(row, name);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(field.c_str(), &end);
  if (field.empty() || end != field.c_str() + field.size() || errno == ERANGE)
    throw_error("%s:%d: column %s is not a number: \"%s\"", path_.c_str(), lines_[row], name.c_str(), field.c_str());
  if (!std::isfinite(v))
    throw_error("%s:%d: column %s is \"%s\", not a finite number", path_.c_str(), lines_[row], name.c_str(),
                field.c_str());
  return v;
}

double CsvTable::time(size_t row, const std::string& name, bool zero_allowed) const {
  const double v = number(row, name);
  if (v < 0 || (v == 0 && !zero_allowed))
    throw_error("%s:%d: column %s is a measured time, expected %s, got %s", path_.c_str(), lines_[row], name.c_str(),
                zero_allowed ? ">= 0" : "> 0", text(row, name).c_str());
  return v;
}

}  // namespace lynx
