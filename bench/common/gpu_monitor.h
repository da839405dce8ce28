//===- gpu_monitor.h - Clocks, power and clock-event reasons while timing -===//
//
// The lm_head GEMV's speed has moved by 5-10 % from one H200 machine to
// the next while a copy timed next to it did not (bench/README.md, the
// 2026-12-01 GEMV rows).
// A kernel that decodes and multiplies draws more power per byte than a
// copy, so a power or thermal limit slows it alone; to tell that apart from
// the kernel itself, a background thread samples NVML during each sweep and
// the harness records the SM clock, the power and the reasons the driver
// gives for holding the clocks down.
//
// NVML is opened at run time (the driver ships libnvidia-ml.so.1; the CUDA
// toolkit here has neither its header nor a stub), so a machine without it
// still times, and records the monitor as unavailable.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_BENCH_COMMON_GPU_MONITOR_H
#define QMAT_BENCH_COMMON_GPU_MONITOR_H

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace bench {

/// What the driver reported over one monitored stretch.
/// Power is NVML's power usage, which Hopper reports averaged over the last
/// second: within a short sweep it also carries what ran before. The
/// sustained runs (GpuMonitor::energyJoules over seconds) are the measure
/// of a kernel's own power.
struct GpuMonitorSummary {
  bool available = false;
  size_t samples = 0;
  unsigned smClockMinMhz = 0, smClockMedianMhz = 0, smClockMaxMhz = 0;
  unsigned memClockMedianMhz = 0;
  double powerMedianW = 0, powerMaxW = 0, powerLimitW = 0;
  unsigned temperatureMaxC = 0;
  /// The union of the clock-event reasons seen, and in how many samples any
  /// reason that slows the clocks (power cap, slowdowns) was active.
  uint64_t reasons = 0;
  size_t limitedSamples = 0;

  /// The reasons by NVML's names (nvmlClocksEventReason*), "|"-joined.
  std::string reasonNames() const {
    static const std::pair<uint64_t, const char *> kNames[] = {
        {0x1, "gpu_idle"},        {0x2, "applications_clocks"},
        {0x4, "sw_power_cap"},    {0x8, "hw_slowdown"},
        {0x10, "sync_boost"},     {0x20, "sw_thermal"},
        {0x40, "hw_thermal"},     {0x80, "hw_power_brake"},
        {0x100, "display_clocks"}};
    std::string out;
    for (const auto &[bit, name] : kNames)
      if (reasons & bit)
        out += (out.empty() ? "" : "|") + std::string(name);
    return out.empty() ? "none" : out;
  }

  /// The summary as a JSON object, or `null` without NVML or samples.
  std::string json() const {
    if (!available || samples == 0)
      return "null";
    char text[512];
    std::snprintf(text, sizeof(text),
                  "{\"samples\": %zu, \"sm_clock_mhz_min\": %u, "
                  "\"sm_clock_mhz_median\": %u, \"sm_clock_mhz_max\": %u, "
                  "\"mem_clock_mhz_median\": %u, \"power_w_median\": %.1f, "
                  "\"power_w_max\": %.1f, \"power_limit_w\": %.1f, "
                  "\"temperature_c_max\": %u, \"clock_event_reasons\": \"%s\", "
                  "\"limited_samples\": %zu}",
                  samples, smClockMinMhz, smClockMedianMhz, smClockMaxMhz,
                  memClockMedianMhz, powerMedianW, powerMaxW, powerLimitW,
                  temperatureMaxC, reasonNames().c_str(), limitedSamples);
    return text;
  }
};

/// Samples the current CUDA device every `periodMs` between start() and
/// stop().
class GpuMonitor {
public:
  explicit GpuMonitor(int periodMs = 5) : periodMs(periodMs) {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      return;
    auto sym = [&](const char *name) { return dlsym(lib, name); };
    init = reinterpret_cast<InitFn>(sym("nvmlInit_v2"));
    byBus = reinterpret_cast<ByBusFn>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
    clockInfo = reinterpret_cast<ClockFn>(sym("nvmlDeviceGetClockInfo"));
    powerUsage = reinterpret_cast<UIntFn>(sym("nvmlDeviceGetPowerUsage"));
    powerLimit =
        reinterpret_cast<UIntFn>(sym("nvmlDeviceGetEnforcedPowerLimit"));
    temperature = reinterpret_cast<TempFn>(sym("nvmlDeviceGetTemperature"));
    // The name since driver 535; older drivers have only the old one.
    eventReasons = reinterpret_cast<ReasonsFn>(
        sym("nvmlDeviceGetCurrentClocksEventReasons"));
    totalEnergy =
        reinterpret_cast<EnergyFn>(sym("nvmlDeviceGetTotalEnergyConsumption"));
    if (!eventReasons)
      eventReasons = reinterpret_cast<ReasonsFn>(
          sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
    int cudaDevice = 0;
    char bus[32] = {};
    if (!init || !byBus || !clockInfo || !powerUsage || !temperature ||
        !eventReasons || init() != 0 ||
        cudaGetDevice(&cudaDevice) != cudaSuccess ||
        cudaDeviceGetPCIBusId(bus, sizeof(bus), cudaDevice) != cudaSuccess ||
        byBus(bus, &device) != 0)
      return;
    unsigned limitMw = 0;
    if (powerLimit && powerLimit(device, &limitMw) == 0)
      limitW = limitMw / 1000.0;
    available = true;
  }

  GpuMonitor(const GpuMonitor &) = delete;
  GpuMonitor &operator=(const GpuMonitor &) = delete;
  ~GpuMonitor() {
    stop();
    // NVML stays initialised until exit: dlclose would race its threads.
  }

  bool isAvailable() const { return available; }

  /// The board's energy counter (joules since the driver loaded), or a
  /// negative value where NVML or the counter is missing.
  double energyJoules() {
    unsigned long long mj = 0;
    if (!available || !totalEnergy || totalEnergy(device, &mj) != 0)
      return -1;
    return mj / 1000.0;
  }

  void start() {
    if (!available || running)
      return;
    {
      std::lock_guard<std::mutex> lock(mutex);
      taken.clear();
    }
    running = true;
    sampler = std::thread([this] {
      while (running) {
        Sample s;
        unsigned mw = 0;
        if (clockInfo(device, kClockSm, &s.smMhz) == 0 &&
            clockInfo(device, kClockMem, &s.memMhz) == 0 &&
            powerUsage(device, &mw) == 0 &&
            temperature(device, kTemperatureGpu, &s.celsius) == 0 &&
            eventReasons(device, &s.reasons) == 0) {
          s.watts = mw / 1000.0;
          std::lock_guard<std::mutex> lock(mutex);
          taken.push_back(s);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(periodMs));
      }
    });
  }

  GpuMonitorSummary stop() {
    GpuMonitorSummary out;
    out.available = available;
    out.powerLimitW = limitW;
    if (!running)
      return out;
    running = false;
    sampler.join();
    std::lock_guard<std::mutex> lock(mutex);
    out.samples = taken.size();
    if (taken.empty())
      return out;
    std::vector<unsigned> sm, mem;
    std::vector<double> watts;
    for (const Sample &s : taken) {
      sm.push_back(s.smMhz);
      mem.push_back(s.memMhz);
      watts.push_back(s.watts);
      out.temperatureMaxC = std::max(out.temperatureMaxC, s.celsius);
      out.reasons |= s.reasons;
      out.limitedSamples += (s.reasons & kSlowingReasons) != 0;
    }
    std::sort(sm.begin(), sm.end());
    std::sort(mem.begin(), mem.end());
    std::sort(watts.begin(), watts.end());
    out.smClockMinMhz = sm.front();
    out.smClockMaxMhz = sm.back();
    out.smClockMedianMhz = sm[sm.size() / 2];
    out.memClockMedianMhz = mem[mem.size() / 2];
    out.powerMedianW = watts[watts.size() / 2];
    out.powerMaxW = watts.back();
    return out;
  }

private:
  struct Sample {
    unsigned smMhz = 0, memMhz = 0, celsius = 0;
    double watts = 0;
    unsigned long long reasons = 0;
  };
  // nvml.h's values: NVML_CLOCK_SM, NVML_CLOCK_MEM, NVML_TEMPERATURE_GPU.
  static constexpr int kClockSm = 1, kClockMem = 2, kTemperatureGpu = 0;
  // Power cap, hardware slowdown, software and hardware thermal, power brake.
  static constexpr uint64_t kSlowingReasons = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

  using Device = void *;
  using InitFn = int (*)();
  using ByBusFn = int (*)(const char *, Device *);
  using ClockFn = int (*)(Device, int, unsigned *);
  using UIntFn = int (*)(Device, unsigned *);
  using TempFn = int (*)(Device, int, unsigned *);
  using ReasonsFn = int (*)(Device, unsigned long long *);
  using EnergyFn = int (*)(Device, unsigned long long *);

  int periodMs;
  void *lib = nullptr;
  Device device = nullptr;
  InitFn init = nullptr;
  ByBusFn byBus = nullptr;
  ClockFn clockInfo = nullptr;
  UIntFn powerUsage = nullptr, powerLimit = nullptr;
  TempFn temperature = nullptr;
  ReasonsFn eventReasons = nullptr;
  EnergyFn totalEnergy = nullptr;
  bool available = false;
  double limitW = 0;
  std::atomic<bool> running{false};
  std::thread sampler;
  std::mutex mutex;
  std::vector<Sample> taken;
};

} // namespace bench

#endif // QMAT_BENCH_COMMON_GPU_MONITOR_H
