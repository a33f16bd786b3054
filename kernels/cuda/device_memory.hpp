// The few CUDA runtime services the kernels' tests and benchmark need, behind plain C++: how many devices there
// are, a device buffer that frees itself, copies, synchronization. Errors become LynxError with CUDA's message.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace lynx {

// Number of usable CUDA devices: 0 when there is no GPU or no driver (never throws).
int cuda_device_count();
// Name of device 0 (e.g. "NVIDIA H200").
std::string cuda_device_name();
// Throws LynxError("<what>: <CUDA error>") when `status` (a cudaError_t) is not cudaSuccess.
void cuda_check(int status, const char* what);
// Waits for the device; throws on an error of an earlier launch.
void cuda_synchronize(const char* what);

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return data_; }
  uint8_t* bytes() const { return static_cast<uint8_t*>(data_); }
  size_t size() const { return size_; }
  void upload(const void* host, size_t bytes);     // host -> device, synchronous
  void download(void* host, size_t bytes) const;   // device -> host, synchronous
  void fill(uint8_t value);                        // synchronous

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace lynx
