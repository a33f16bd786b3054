// A shared library opened when a command first needs it (dlopen by its SONAME), not at every start: lynxsim links
// the decompressors of the Parquet reader (libzstd, libsnappy) this way, so that the commands and runs that read
// no AIConfigurator table do not pay for loading them. Loading the two with the program was about 3% of a
// one-request simulation's start-up (issue 29: an empty program linked with SimGrid alone starts in about 15 ms;
// each further C++ library adds its relocations and static constructors). A library or function that cannot be
// had is one LynxError naming it, the Debian package that ships it and what needed it.
#pragma once
#include <string>

namespace lynx {

class SharedLibrary {
 public:
  // The library `soname` (for example "libzstd.so.1"), opened once per process (RTLD_NOW | RTLD_LOCAL; thread-safe).
  // `package` and `purpose` word the error ("libzstd1", "reading ZSTD-compressed Parquet pages").
  static const SharedLibrary& open(const char* soname, const char* package, const char* purpose);

  // The address of `name`, cast to the function pointer type F; a LynxError where the library lacks it.
  template <class F>
  F function(const char* name) const {
    return reinterpret_cast<F>(symbol(name));
  }

 private:
  SharedLibrary() = default;
  void* symbol(const char* name) const;
  void* handle_ = nullptr;
  std::string soname_, package_, purpose_;
};

}  // namespace lynx
