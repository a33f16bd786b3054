#include "common/shared_library.hpp"

#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>

#include "common/error.hpp"

namespace lynx {

const SharedLibrary& SharedLibrary::open(const char* soname, const char* package, const char* purpose) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<SharedLibrary>> opened;  // never closed: their functions stay valid
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<SharedLibrary>& slot = opened[soname];
  if (!slot) {
    void* handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = ::dlerror();
      throw_error("%s: cannot load it for %s (install Debian's %s; scripts/install-deps.sh does): %s", soname, purpose,
                  package, why ? why : "dlopen failed");
    }
    slot.reset(new SharedLibrary());
    slot->handle_ = handle;
    slot->soname_ = soname;
    slot->package_ = package;
    slot->purpose_ = purpose;
  }
  return *slot;
}

void* SharedLibrary::symbol(const char* name) const {
  ::dlerror();
  void* address = ::dlsym(handle_, name);
  if (address == nullptr)
    throw_error("%s: has no function %s, needed for %s (a different version than Debian's %s?)", soname_.c_str(), name,
                purpose_.c_str(), package_.c_str());
  return address;
}

}  // namespace lynx
