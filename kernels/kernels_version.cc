// Placeholder translation unit until the kernels land (issue: reference attention kernels).
namespace kvsim::kernels {
int version() { return 0; }
}  // namespace kvsim::kernels
