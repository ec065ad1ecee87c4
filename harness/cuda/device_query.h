// File: harness/cuda/device_query.h
// -----------------------------------------------------------------------------
// Host-callable device queries, implemented in harness/cuda/device_query.cu
// (CUDA builds only). Host code calls them through harness/device_info.h.
#ifndef CB_HARNESS_CUDA_DEVICE_QUERY_H_
#define CB_HARNESS_CUDA_DEVICE_QUERY_H_

#include <string>
#include <vector>

#include "harness/device_info.h"

namespace cb::harness::cuda_internal {

// See cb::harness::QueryDevices.
std::vector<DeviceInfo> QueryDevicesCuda(std::string* reason_if_none);

// cudaRuntimeGetVersion / cudaDriverGetVersion as integers (13000 = 13.0);
// the driver version is 0 when no driver is installed.
int RuntimeVersionNumber();
int DriverVersionNumber();

}  // namespace cb::harness::cuda_internal

#endif  // CB_HARNESS_CUDA_DEVICE_QUERY_H_
