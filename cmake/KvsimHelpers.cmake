# Shared build settings: warnings, sanitizers and the one helper that declares a test.

# kvsim_target_settings(<target>): warnings (errors when KVSIM_WERROR) and sanitizers.
function(kvsim_target_settings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                                           -Wnon-virtual-dtor -Wold-style-cast)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    # GCC 12 at -O3 reports false -Wrestrict positives inside std::string (GCC bug 105329),
    # which -Werror turns into a failed Release build.
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(KVSIM_NATIVE AND NOT KVSIM_SANITIZE)
    target_compile_options(${target} PRIVATE -march=native)
  endif()
  if(KVSIM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(KVSIM_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined
                                             -fno-sanitize-recover=undefined
                                             -fno-omit-frame-pointer)
    # Lets slow data-driven tests check a subset under the sanitizers (they hunt memory
    # errors there; the full numbers are checked in the plain build).
    target_compile_definitions(${target} PRIVATE KVSIM_SANITIZED=1)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

# kvsim_library(<name> SOURCES ... DEPS ...): a static library whose headers are
# included as "<folder>/<file>.h" from the project root.
function(kvsim_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  kvsim_target_settings(${name})
  if(KVSIM_LTO_ACTIVE)
    target_compile_options(${name} PRIVATE -flto=auto -ffat-lto-objects)
  endif()
endfunction()

# kvsim_lto_program(<target>): the program links with link-time optimisation across the
# libraries when KVSIM_LTO_ACTIVE (Release, GCC); other programs link their machine code.
function(kvsim_lto_program target)
  if(KVSIM_LTO_ACTIVE)
    target_compile_options(${target} PRIVATE -flto=auto)
    target_link_options(${target} PRIVATE -flto=auto)
  endif()
endfunction()

# kvsim_test(<name> SOURCES ... DEPS ... [LABELS ...]): a GoogleTest executable registered
# with CTest. Tests find ../shared through KVSIM_DATA_DIR (default: <source>/../shared).
function(kvsim_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest GTest::gtest_main)
  kvsim_target_settings(${name})
  gtest_discover_tests(${name}
    PROPERTIES LABELS "${ARG_LABELS}"
    ENVIRONMENT "KVSIM_SOURCE_DIR=${PROJECT_SOURCE_DIR};KVSIM_BINARY_DIR=${PROJECT_BINARY_DIR}"
    DISCOVERY_TIMEOUT 60)
endfunction()
