//===- mock_base.h - The fake device address space of the launcher mocks --===//
//
// MOCK_BASE is where the drivers' fake device buffers start; the mocks print
// addresses relative to it, so the expected output does not depend on it.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_TEST_AOT_INPUTS_MOCK_BASE_H
#define QMAT_TEST_AOT_INPUTS_MOCK_BASE_H

#include <cstdint>
#include <cstdlib>

inline uintptr_t mockBase() {
  const char *b = std::getenv("MOCK_BASE");
  return b ? std::strtoull(b, nullptr, 0) : 0;
}

#endif // QMAT_TEST_AOT_INPUTS_MOCK_BASE_H
