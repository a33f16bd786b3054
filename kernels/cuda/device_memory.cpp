#include "kernels/cuda/device_memory.hpp"

#include <cuda_runtime_api.h>

#include <utility>

#include "common/error.hpp"

namespace lynx {

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return count;
}

std::string cuda_device_name() {
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  return prop.name;
}

void cuda_check(int status, const char* what) {
  if (status != cudaSuccess)
    throw_error("%s: CUDA error %d: %s", what, status, cudaGetErrorString(static_cast<cudaError_t>(status)));
}

void cuda_synchronize(const char* what) {
  cuda_check(cudaGetLastError(), what);
  cuda_check(cudaDeviceSynchronize(), what);
}

DeviceBuffer::DeviceBuffer(size_t bytes) : size_(bytes) {
  if (bytes > 0) cuda_check(cudaMalloc(&data_, bytes), "cudaMalloc");
}
DeviceBuffer::~DeviceBuffer() {
  if (data_) cudaFree(data_);
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (data_) cudaFree(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}
void DeviceBuffer::upload(const void* host, size_t bytes) {
  if (bytes) cuda_check(cudaMemcpy(data_, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to device");
}
void DeviceBuffer::download(void* host, size_t bytes) const {
  if (bytes) cuda_check(cudaMemcpy(host, data_, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
}
void DeviceBuffer::fill(uint8_t value) {
  if (size_) cuda_check(cudaMemset(data_, value, size_), "cudaMemset");
}

}  // namespace lynx
