// <Eigen/Core> and the x86 intrinsics, as every kernels/ file includes them.
//
// GCC 12's AVX-512 headers trip its own -Wuninitialized / -Wmaybe-uninitialized through the
// `_mm512_undefined_*` idiom when inlined at -O3 (GCC bug 105593, fixed in GCC 13); the
// warnings are silenced for these system headers only, so kvsim's code keeps them.
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#pragma GCC diagnostic pop
