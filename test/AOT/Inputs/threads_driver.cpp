// Several threads calling one layer at once, on every path, with good and
// bad arguments: the launcher's shared state (the per-context module, the
// cuBLASLt handle and algorithm cache, the log's first-call set) is taken
// under its lock and each thread's last error is its own; meanwhile another
// thread unloads the module again and again (each unload waits for the calls
// in progress, and the next call loads the module again). Run under
// ThreadSanitizer; prints one line per thread.
#include "th.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {
void *at(uintptr_t offset) { return reinterpret_cast<void *>(0x10000000u + offset); }

void worker(int id, std::string *report) {
  int ok = 0, refused = 0, wrongMessage = 0;
  const int64_t rows[] = {1, 4, 16, 64, 256};
  for (int i = 0; i < 200; ++i) {
    int64_t m = rows[(i + id) % 5];
    qmat_status status = th_layer_run(
        reinterpret_cast<CUstream>(at(0x7000000)), m, at(0x3000000), at(0), at(0x1000000),
        nullptr, nullptr, nullptr, at(0x2000000), at(0x4000000), th_layer_workspace_size(256));
    ok += status == QMAT_OK;
    // A failure of this thread's own: its message, not another thread's.
    status = th_layer_run(nullptr, -int64_t(id) - 1, at(0x3000000), at(0), at(0x1000000),
                          nullptr, nullptr, nullptr, at(0x2000000), nullptr, 0);
    refused += status == QMAT_ERROR_INVALID_ARGUMENT;
    std::string expected = "layer: m must be positive, got " + std::to_string(-id - 1);
    wrongMessage += expected != th_last_error();
  }
  *report = "thread " + std::to_string(id) + ": " + std::to_string(ok) + " ok, " +
            std::to_string(refused) + " refused, " + std::to_string(wrongMessage) +
            " wrong messages";
}

void unloader(std::string *report) {
  int ok = 0;
  for (int i = 0; i < 50; ++i) {
    ok += th_unload() == QMAT_OK;
    std::this_thread::yield();
  }
  *report = "unloader: " + std::to_string(ok) + " of 50 unloads ok";
}
} // namespace

int main() {
  std::vector<std::string> reports(5);
  std::vector<std::thread> threads;
  for (int id = 0; id < 4; ++id)
    threads.emplace_back(worker, id, &reports[id]);
  threads.emplace_back(unloader, &reports[4]);
  for (std::thread &thread : threads)
    thread.join();
  for (const std::string &report : reports)
    std::fprintf(stderr, "%s\n", report.c_str());
  return th_unload() == QMAT_OK ? 0 : 1;
}
