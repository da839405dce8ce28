# Included by the top-level CMakeLists.txt before qmat's libraries, so that
# qmat's own code carries libFuzzer's coverage counters and the sanitizers'
# checks (libMLIR.so does not: it comes prebuilt).
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "QMAT_ENABLE_FUZZERS needs clang (libFuzzer), got "
                      "${CMAKE_CXX_COMPILER_ID}: configure with "
                      "-DCMAKE_CXX_COMPILER=clang++-22")
endif()
# No recovery from undefined behaviour: each report must stop the run so
# that libFuzzer saves the input.
set(QMAT_FUZZ_SANITIZERS -fsanitize=address,undefined
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
add_compile_options(-fsanitize=fuzzer-no-link ${QMAT_FUZZ_SANITIZERS})
add_link_options(${QMAT_FUZZ_SANITIZERS})
