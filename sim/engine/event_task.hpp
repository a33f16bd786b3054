// A move-only `void()` callable for the event loop's handlers, kept inline when its captures fit in kInlineBytes
// (every handler the simulator queues holds a few pointers and numbers), else on the heap. Why not std::function:
// it allocates for captures over 16 bytes, and the Mooncake benchmark queues about three handlers per network
// flow (a flow's start, its sent and delivered handlers); their allocations and frees were about a sixth of the
// simulator's own instructions (callgrind). A `nullptr`, an empty std::function or a null function
// pointer makes an empty task.
#pragma once
#include <cstddef>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace lynx {

class EventTask {
 public:
  static constexpr size_t kInlineBytes = 48;

  EventTask() = default;
  EventTask(std::nullptr_t) {}  // NOLINT: an empty task, as std::function's
  template <class F, class D = std::decay_t<F>,
            class = std::enable_if_t<!std::is_same_v<D, EventTask> && std::is_invocable_r_v<void, D&>>>
  EventTask(F&& f) {  // NOLINT: implicit, as std::function's
    if constexpr (std::is_pointer_v<D> || std::is_same_v<D, std::function<void()>>)
      if (!f) return;  // a null function pointer or an empty std::function: an empty task
    if constexpr (sizeof(D) <= kInlineBytes && alignof(D) <= alignof(std::max_align_t) &&
                  std::is_nothrow_move_constructible_v<D>) {
      ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
      ops_ = &kInlineOps<D>;
    } else {
      *reinterpret_cast<D**>(storage_) = new D(std::forward<F>(f));
      ops_ = &kHeapOps<D>;
    }
  }
  EventTask(EventTask&& other) noexcept { take(other); }
  EventTask& operator=(EventTask&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  EventTask(const EventTask&) = delete;
  EventTask& operator=(const EventTask&) = delete;
  ~EventTask() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  void operator()() { ops_->invoke(storage_); }
  void reset() {
    if (ops_ != nullptr) ops_->destroy(storage_);
    ops_ = nullptr;
  }

 private:
  struct Ops {
    void (*invoke)(void* storage);
    void (*move)(void* to, void* from);  // constructs at `to` from `from`, then destroys `from`
    void (*destroy)(void* storage);
  };
  template <class D>
  static constexpr Ops kInlineOps{
      [](void* s) { (*static_cast<D*>(s))(); },
      [](void* to, void* from) {
        ::new (to) D(std::move(*static_cast<D*>(from)));
        static_cast<D*>(from)->~D();
      },
      [](void* s) { static_cast<D*>(s)->~D(); }};
  template <class D>
  static constexpr Ops kHeapOps{
      [](void* s) { (**static_cast<D**>(s))(); },
      [](void* to, void* from) { *static_cast<D**>(to) = *static_cast<D**>(from); },
      [](void* s) { delete *static_cast<D**>(s); }};

  void take(EventTask& other) noexcept {
    if (other.ops_ == nullptr) return;
    other.ops_->move(storage_, other.storage_);
    ops_ = other.ops_;
    other.ops_ = nullptr;
  }

  alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace lynx
