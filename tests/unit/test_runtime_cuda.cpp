// The CUDA runtime. Without an NVIDIA driver (CI, developer machines) the
// launches are skipped and the tests check that every entry point says so
// clearly; on the GPU machine (scripts/gpu_check.sh) they launch real
// kernels: suite kernels against values computed here, device-resident
// buffers, the timing API, and argument errors.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "tests/unit/cuda_test_support.h"
#include "tmetal/codegen/debug_buffer.h"
#include "tmetal/runtime/cuda/cuda_launcher.h"
#include "tmetal/runtime/cuda/dynamic_library.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal {
namespace {

namespace cuda = runtime::cuda;
using cuda::LaunchArg;

// Whether this machine has the NVIDIA driver (what the cuda device needs).
bool hasDriver() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h) dlclose(h);
  return h != nullptr;
}

#define TMETAL_REQUIRE_GPU()                                                       \
  do {                                                                            \
    if (!hasDriver()) GTEST_SKIP() << "no NVIDIA driver (libcuda.so.1) here";    \
    TMETAL_REQUIRE_NVRTC();                                                       \
  } while (0)

codegen::CompiledKernel compileCase(const std::string& name, int numWarps = 4) {
  auto module = cudatest::parseCase(name);
  codegen::CompileOptions options;
  options.target = "cuda";
  options.numWarps = numWarps;
  return codegen::compileKernel(*module, options);
}

TEST(CudaRuntime, WithoutADriverEveryEntryPointSaysWhatIsMissing) {
  if (hasDriver()) GTEST_SKIP() << "this machine has an NVIDIA driver";
  auto expectMessage = [](const std::function<void()>& call) {
    try {
      call();
      ADD_FAILURE() << "no error without a driver";
    } catch (const cuda::CudaError& e) {
      EXPECT_NE(std::string(e.what()).find("CUDA driver not found (libcuda.so.1): the cuda device needs an NVIDIA GPU"),
                std::string::npos)
          << e.what();
    }
  };
  expectMessage([] { cuda::deviceInfo(); });
  expectMessage([] { cuda::DeviceBuffer buffer(64); });
  codegen::CompiledKernel k = compileCase("vector_add_f32");
  expectMessage([&] { cuda::compile(k.source, k.metadata); });
}

TEST(CudaRuntime, RefusesKernelsOfAnotherTarget) {
  codegen::CompiledKernel k = compileCase("vector_add_f32");
  k.metadata.target = "metal";
  try {
    cuda::compile(k.source, k.metadata);
    FAIL() << "a metal kernel was accepted";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("compiled for 'metal'"), std::string::npos) << e.what();
  }
}

TEST(DynamicLibrary, VersionedLibrariesNewestFirst) {
  auto dir = std::filesystem::temp_directory_path() / ("tmetal_dl_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const char* f : {"libnvrtc.so.12", "libnvrtc.so.13", "libnvrtc.so.12.4", "libnvrtc.so", "libnvrtc-builtins.so.13.0",
                        "libnvrtc.so.13.alt", "libnvrtc.alt.so.13"})
    std::ofstream(dir / f) << "";
  std::vector<std::string> found = cuda::versionedLibrariesIn(dir.string(), "libnvrtc");
  std::vector<std::string> names;
  for (const std::string& p : found) names.push_back(std::filesystem::path(p).filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"libnvrtc.so.13", "libnvrtc.so.12.4", "libnvrtc.so.12"}));
  EXPECT_TRUE(cuda::versionedLibrariesIn((dir / "missing").string(), "libnvrtc").empty());
  std::filesystem::remove_all(dir);
  std::string tried;
  EXPECT_EQ(cuda::DynamicLibrary::openFirst({"/nonexistent/libnothing.so.1"}, &tried), nullptr);
  EXPECT_NE(tried.find("/nonexistent/libnothing.so.1"), std::string::npos) << tried;
}

// ---- on an NVIDIA GPU ---------------------------------------------------------

TEST(CudaRuntime, DeviceInfo) {
  TMETAL_REQUIRE_GPU();
  cuda::CudaDeviceInfo info = cuda::deviceInfo();
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.computeMajor, 7);
  EXPECT_GT(info.multiprocessors, 0);
  EXPECT_GT(info.l2CacheBytes, 0);
  EXPECT_GE(info.sharedMemoryPerBlockBytes, 48 * 1024);
  std::cout << "device: " << info.name << ", " << info.arch() << ", " << info.multiprocessors << " SMs, L2 "
            << info.l2CacheBytes / (1 << 20) << " MiB, driver " << info.driverVersion << " (" << info.driverLibrary
            << ")\n";
  EXPECT_THROW(cuda::deviceInfo(1 << 20), cuda::CudaError);
}

TEST(CudaRuntime, VectorAddFromTheSuiteMatchesTheHost) {
  TMETAL_REQUIRE_GPU();
  codegen::CompiledKernel k = compileCase("vector_add_f32");
  cuda::CudaKernel kernel = cuda::compile(k.source, k.metadata);
  EXPECT_GT(kernel.registersPerThread(), 0);
  EXPECT_EQ(kernel.localMemoryBytesPerThread(), 0) << "registers spilled";
  const int n = 98432 + 17;  // a ragged end exercises the masks
  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.25f * static_cast<float>(i % 1000);
    y[i] = 1.0f - static_cast<float>(i % 7);
  }
  const nlohmann::json& entry = cudatest::manifest()["vector_add_f32"];
  int block = 0;
  for (const auto& a : entry["args"])
    if (a["kind"] == "constexpr") block = a["value"].get<int>();
  ASSERT_GT(block, 0);
  uint32_t programs = static_cast<uint32_t>((n + block - 1) / block);
  cuda::launch(kernel,
               {LaunchArg::hostBuffer(x.data(), n * 4), LaunchArg::hostBuffer(y.data(), n * 4),
                LaunchArg::hostBuffer(out.data(), n * 4), LaunchArg::scalar<int32_t>(n)},
               {programs, 1, 1});
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], x[i] + y[i]) << "element " << i;
}

TEST(CudaRuntime, FailedAssertionIsReportedAfterTheLaunch) {
  TMETAL_REQUIRE_GPU();
  codegen::CompileOptions options;
  options.target = "cuda";
  codegen::CompiledKernel k = codegen::compileKernel(*cudatest::parseAssertKernel(), options);
  cuda::CudaKernel kernel = cuda::compile(k.source, k.metadata);
  std::vector<int32_t> x(256), out(256, 0);
  for (int i = 0; i < 256; ++i) x[i] = i % 100;
  auto args = [&] { return std::vector<LaunchArg>{LaunchArg::hostBuffer(x.data(), 1024), LaunchArg::hostBuffer(out.data(), 1024)}; };
  cuda::launch(kernel, args(), {4, 1, 1});
  for (int i = 0; i < 256; ++i) ASSERT_EQ(out[i], x[i] + 1) << "element " << i;
  x[2 * 64 + 5] = 1000;  // element [5] of program 2, the only one failing
  try {
    cuda::launch(kernel, args(), {4, 1, 1});
    FAIL() << "the failed assertion was not reported";
  } catch (const codegen::DeviceAssertionError& e) {
    const std::string expected =
        "assert.py:5:5: error: device-side assertion failed: x must stay below 100 (program (2, 0, 0), thread ";
    EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected);
    EXPECT_NE(std::string(e.what()).find(", element [5])"), std::string::npos) << e.what();
  }
  // The next launch starts from a clean buffer.
  x[2 * 64 + 5] = 5;
  cuda::launch(kernel, args(), {4, 1, 1});
}

TEST(CudaRuntime, DeviceBuffersStayOnTheDeviceAndTimingGivesEveryLaunch) {
  TMETAL_REQUIRE_GPU();
  codegen::CompiledKernel k = compileCase("vector_add_f32");
  cuda::CudaKernel kernel = cuda::compile(k.source, k.metadata);
  const int n = 1 << 24;  // 64 MiB per buffer: more than the L2
  std::vector<float> x(n, 1.5f), y(n, 2.0f), out(n, 0.0f);
  cuda::DeviceBuffer dx = cuda::DeviceBuffer::upload(x.data(), n * 4);
  cuda::DeviceBuffer dy = cuda::DeviceBuffer::upload(y.data(), n * 4);
  cuda::DeviceBuffer dout(n * 4);
  int block = 0;
  for (const auto& a : cudatest::manifest()["vector_add_f32"]["args"])
    if (a["kind"] == "constexpr") block = a["value"].get<int>();
  std::array<uint32_t, 3> grid{static_cast<uint32_t>((n + block - 1) / block), 1, 1};
  std::vector<LaunchArg> args = {LaunchArg::deviceBuffer(dx), LaunchArg::deviceBuffer(dy),
                                 LaunchArg::deviceBuffer(dout), LaunchArg::scalar<int32_t>(n)};
  cuda::TimingOptions timing;
  timing.iterations = 10;
  std::vector<double> ms = cuda::timeLaunches(kernel, args, grid, timing);
  ASSERT_EQ(ms.size(), 10u);
  for (double t : ms) EXPECT_GT(t, 0.0);
  dout.copyToHost(out.data(), n * 4);
  EXPECT_EQ(out[0], 3.5f);
  EXPECT_EQ(out[n - 1], 3.5f);
  double sorted = *std::min_element(ms.begin(), ms.end());
  double gbs = 3.0 * n * 4 / (sorted * 1e-3) / 1e9;
  std::cout << "vector_add_f32, 3 x 64 MiB: best " << sorted << " ms, " << gbs << " GB/s\n";
  EXPECT_GT(gbs, 100.0) << "far below any NVIDIA GPU's bandwidth: is the timing right?";
  // Host buffers in timeLaunches: uploaded once, downloaded after the last launch.
  std::vector<float> hostOut(n, 0.0f);
  std::vector<LaunchArg> hostArgs = {LaunchArg::hostBuffer(x.data(), n * 4), LaunchArg::hostBuffer(y.data(), n * 4),
                                     LaunchArg::hostBuffer(hostOut.data(), n * 4), LaunchArg::scalar<int32_t>(n)};
  timing.flushL2 = false;
  timing.iterations = 2;
  EXPECT_EQ(cuda::timeLaunches(kernel, hostArgs, grid, timing).size(), 2u);
  EXPECT_EQ(hostOut[n / 2], 3.5f);
}

TEST(CudaRuntime, LaunchOnStreamRunsOnDevicePointersTheCallerOwns) {
  TMETAL_REQUIRE_GPU();
  codegen::CompiledKernel k = compileCase("vector_add_f32");
  cuda::CudaKernel kernel = cuda::compile(k.source, k.metadata);
  const int n = 4096;
  std::vector<float> x(n, 1.25f), y(n, 2.0f), out(n, 0.0f);
  cuda::DeviceBuffer dx = cuda::DeviceBuffer::upload(x.data(), n * 4);
  cuda::DeviceBuffer dy = cuda::DeviceBuffer::upload(y.data(), n * 4);
  cuda::DeviceBuffer dout(n * 4);
  int block = 0;
  for (const auto& a : cudatest::manifest()["vector_add_f32"]["args"])
    if (a["kind"] == "constexpr") block = a["value"].get<int>();
  std::array<uint32_t, 3> grid{static_cast<uint32_t>((n + block - 1) / block), 1, 1};
  // Raw pointers, as the Python binding passes PyTorch's data_ptr(); stream 0.
  cuda::launchOnStream(kernel,
                       {LaunchArg::devicePointer(dx.pointer()), LaunchArg::devicePointer(dy.pointer()),
                        LaunchArg::devicePointer(dout.pointer(), n * 4), LaunchArg::scalar<int32_t>(n)},
                       grid, 0);
  dout.copyToHost(out.data(), n * 4);
  EXPECT_EQ(out[0], 3.25f);
  EXPECT_EQ(out[n - 1], 3.25f);
  EXPECT_THROW(cuda::launchOnStream(kernel,
                                    {LaunchArg::hostBuffer(x.data(), n * 4), LaunchArg::devicePointer(dy.pointer()),
                                     LaunchArg::devicePointer(dout.pointer()), LaunchArg::scalar<int32_t>(n)},
                                    grid, 0),
               cuda::CudaError);
}

TEST(CudaRuntime, ArgumentsMustFitTheMetadata) {
  TMETAL_REQUIRE_GPU();
  codegen::CompiledKernel k = compileCase("vector_add_f32");
  cuda::CudaKernel kernel = cuda::compile(k.source, k.metadata);
  std::vector<float> buf(16);
  auto expectError = [&](const std::vector<LaunchArg>& args, const std::string& words) {
    try {
      cuda::launch(kernel, args, {1, 1, 1});
      ADD_FAILURE() << "launched with bad arguments";
    } catch (const cuda::CudaError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  LaunchArg b = LaunchArg::hostBuffer(buf.data(), 64);
  expectError({b, b, b}, "takes 4 arguments, 3 were given");
  expectError({b, b, b, b}, "scalar: pass its value");
  expectError({b, b, LaunchArg::scalar<int32_t>(1), LaunchArg::scalar<int32_t>(1)}, "pass a buffer");
  expectError({b, b, b, LaunchArg::scalar<int64_t>(1)}, "4 bytes; 8 were given");
}

TEST(CudaRuntime, EverySuiteKernelLoadsOnTheDevice) {
  TMETAL_REQUIRE_GPU();
  for (const std::string& name : cudatest::suiteCaseNames()) {
    SCOPED_TRACE(name);
    codegen::CompiledKernel k = compileCase(name, cudatest::manifest()[name].value("num_warps", 4));
    cuda::CudaKernel kernel = cuda::compile(k.source, k.metadata);
    EXPECT_GE(kernel.maxThreadsPerBlock(), k.metadata.threadsPerThreadgroup);
    EXPECT_LE(kernel.staticSharedMemoryBytes(), 48 * 1024);
    std::cout << name << ": " << kernel.registersPerThread() << " registers, " << kernel.localMemoryBytesPerThread()
              << " bytes local, " << kernel.staticSharedMemoryBytes() << " bytes shared (tmetal counted "
              << k.metadata.threadgroupMemoryBytes << ")\n";
  }
}

}  // namespace
}  // namespace tmetal
