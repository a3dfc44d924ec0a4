// SPDX-License-Identifier: MIT
// The Vulkan context: the device it chose and what it reports, the device choice by index and name,
// the self-test's verdict, and the faults — an allocation past the device's limits, a lost device.
#include "device_memory.h"
#include "gpu_test.h"

#include <mote/bytecode/program.h>
#include <mote/gpu/context.h>
#include <mote/gpu/vm_cases.h>

#include <gtest/gtest.h>

#include <string>

namespace mote {
namespace {

using test::GpuTest;

class GpuContext : public GpuTest {};

TEST_F(GpuContext, ReportsTheDeviceItChose) {
  const gpu::DeviceInfo& d = context()->device();
  EXPECT_FALSE(d.name.empty());
  EXPECT_TRUE(d.usable);
  EXPECT_GT(d.subgroupSize, 0u);
  EXPECT_GE(d.maxStorageBufferRange, 1u << 20);
  EXPECT_GE(d.maxComputeWorkGroupInvocations, 64u);
  EXPECT_TRUE(context()->validationEnabled());
  const std::string text = gpu::describe(d);
  EXPECT_NE(text.find("device: " + d.name), std::string::npos) << text;
  EXPECT_NE(text.find("subgroup size: " + std::to_string(d.subgroupSize)), std::string::npos);
  // Every device Mote runs on in CI and on the lent GPUs (lavapipe, NVIDIA) has a family with
  // both, which Mote's own context picks.
  EXPECT_TRUE(d.graphics);
  EXPECT_NE(text.find("graphics on the compute queue: yes"), std::string::npos) << text;
}

// Exact mode where the device has fp64: every operation of the self-test right on every case,
// through whatever emulation it chose; the emulated ones are those its own instructions got wrong.
TEST_F(GpuContext, TheSelfTestChoosesExactModeWhereFp64Exists) {
  const gpu::SelfTest& t = context()->selfTest();
  const gpu::DeviceInfo& d = context()->device();
  // Twelve float operations, and with fp64 the six double ones of the newborns' spawn times.
  ASSERT_EQ(t.ops.size(), d.float64 && d.int64 ? 18u : 12u);
  EXPECT_GT(t.cases, 10000u);
  EXPECT_FALSE(t.reason.empty());
  if (!(d.float64 && d.int64)) {
    EXPECT_EQ(t.mode, gpu::Mode::Fast);
    EXPECT_NE(t.reason.find("no fp64"), std::string::npos) << t.reason;
    return;
  }
  EXPECT_EQ(t.mode, gpu::Mode::Exact) << t.reason;
  EXPECT_EQ(t.ops[12].name, "dadd");
  EXPECT_EQ(t.ops[17].name, "d2f");
  for (const gpu::SelfTestOp& op : t.ops) {
    EXPECT_EQ(op.wrong, 0u) << op.name << ": " << op.firstWrong;
    EXPECT_EQ(op.emulated,
              op.nativeWrong != 0 && (op.name == "fma" || op.name == "div" || op.name == "sqrt"))
        << op.name;
  }
  const bool arithmeticWrong =
      t.ops[0].nativeWrong + t.ops[1].nativeWrong + t.ops[2].nativeWrong > 0;
  EXPECT_EQ((t.flags & 1u) != 0, arithmeticWrong) << "special values guarded where add, sub or mul "
                                                     "went wrong";
}

TEST_F(GpuContext, ADeviceIsChosenByIndexOrByName) {
  gpu::ContextDesc byIndex;
  byIndex.device = std::to_string(context()->device().index);
  Result<std::unique_ptr<gpu::Context>> a = gpu::Context::create(byIndex);
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_EQ((*a)->device().name, context()->device().name);

  gpu::ContextDesc byName;
  byName.device = context()->device().name.substr(0, 4);
  Result<std::unique_ptr<gpu::Context>> b = gpu::Context::create(byName);
  ASSERT_TRUE(b.ok()) << b.status().toString();
  EXPECT_EQ((*b)->device().name, context()->device().name);

  gpu::ContextDesc missing;
  missing.device = "no such device anywhere";
  Result<std::unique_ptr<gpu::Context>> c = gpu::Context::create(missing);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::NotFound);
  EXPECT_NE(c.status().message().find("'no such device anywhere'"), std::string::npos);
  EXPECT_NE(c.status().message().find("0: " + context()->device().name), std::string::npos)
      << c.status().message();
}

// A buffer past what one storage buffer may span is OutOfMemory naming what it was for.
TEST_F(GpuContext, AnAllocationPastTheDeviceLimitIsAnErrorNamingIt) {
  const std::uint64_t tooBig = context()->device().maxStorageBufferRange + 16;
  Result<gpu::Buffer> b = gpu::Buffer::create(*context(), tooBig, "the particle pool");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::OutOfMemory);
  EXPECT_NE(b.status().message().find("the particle pool needs"), std::string::npos)
      << b.status().message();
}

// After a device loss every call is the same DeviceLost error, never a crash or a hang.
TEST_F(GpuContext, ALostDeviceFailsEveryLaterCallCleanly) {
  Result<std::unique_ptr<gpu::Context>> made = gpu::Context::create();
  ASSERT_TRUE(made.ok()) << made.status().toString();
  gpu::Context& c = **made;
  EXPECT_TRUE(c.health().ok());
  c.simulateDeviceLoss();
  ASSERT_FALSE(c.health().ok());
  EXPECT_EQ(c.health().code(), StatusCode::DeviceLost);
  EXPECT_NE(c.health().message().find("was lost"), std::string::npos);

  bytecode::Program p;
  p.particleWords = 1;
  Result<bytecode::VerifiedProgram> v = bytecode::verify(p);
  ASSERT_TRUE(v.ok());
  std::vector<gpu::VmCase> cases(3);
  for (gpu::VmCase& k : cases)
    k.particle = {1.0f};
  for (int attempt = 0; attempt < 2; ++attempt) {
    Result<std::vector<gpu::VmCaseResult>> r =
        gpu::runCases(c, *v, bytecode::Section::Update, cases);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::DeviceLost);
  }
  Result<gpu::Buffer> b = gpu::Buffer::create(c, 64, "a buffer");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::DeviceLost);
}

}  // namespace
}  // namespace mote
