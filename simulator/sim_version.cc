// Placeholder translation unit until the simulator lands (issue: discrete-event simulator).
namespace kvsim::sim {
int version() { return 0; }
}  // namespace kvsim::sim
