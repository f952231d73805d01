// ByteReader: bounds-checked reading of little-endian int32 / fp32 / byte runs from a buffer,
// for the binary model and tokenizer files (append_bytes is the writing side). A read past the end
// fails (returns false) and leaves the reader where it was; nothing is read out of bounds.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace kvsim::kernels {

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  size_t offset() const { return offset_; }
  size_t remaining() const { return bytes_.size() - offset_; }

  bool read_int32(int32_t* out) { return read_raw(out, sizeof(*out)); }
  bool read_float(float* out) { return read_raw(out, sizeof(*out)); }
  bool read_floats(float* out, size_t count) { return read_raw(out, count * sizeof(float)); }
  bool read_string(size_t length, std::string* out) {
    if (length > remaining()) return false;
    out->assign(reinterpret_cast<const char*>(bytes_.data() + offset_), length);
    offset_ += length;
    return true;
  }
  bool skip(size_t length) {
    if (length > remaining()) return false;
    offset_ += length;
    return true;
  }

 private:
  bool read_raw(void* out, size_t length) {
    if (length > remaining()) return false;
    if (length > 0) std::memcpy(out, bytes_.data() + offset_, length);
    offset_ += length;
    return true;
  }

  std::span<const uint8_t> bytes_;
  size_t offset_ = 0;
};

// Appends n raw bytes (the writer side, for tests and tools that make model files).
inline void append_bytes(const void* data, size_t n, std::vector<uint8_t>* out) {
  const size_t at = out->size();
  out->resize(at + n);
  if (n > 0) std::memcpy(out->data() + at, data, n);
}

}  // namespace kvsim::kernels
