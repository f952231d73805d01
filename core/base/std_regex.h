// <regex> for kvsim's sources and tests. GCC 12 with -fsanitize=address,undefined reports
// -Wmaybe-uninitialized inside libstdc++'s regex automaton (std::function moved out of a
// _State under construction): a false positive in the header, which -Werror would turn into a
// failed sanitizer build. Include this instead of <regex>.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <regex>  // IWYU pragma: export
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
