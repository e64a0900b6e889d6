// libdevice (ir/libdevice.def): the interpreter's meanings against values
// from the functions' definitions and tables; the generated code (the
// helpers of codegen/libdevice/ and the targets' built-ins) against the
// interpreter, through `tmetal run` on the emulator, for every function over
// a sweep of inputs; and NVRTC compiles the CUDA spelling of all of them.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <iomanip>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/unit/cli_test_support.h"
#include "tests/unit/cuda_test_support.h"
#include "tmetal/codegen/libdevice/libdevice_calls.h"
#include "tmetal/codegen/msl_dialect.h"
#include "tmetal/interp/libdevice_semantics.h"
#include "tmetal/ir/libdevice.h"
#include "tmetal/support/diagnostic.h"
#include "tmetal/support/npy.h"

using namespace tmetal;
using ir::LibdeviceFn;
using ir::LibdeviceType;

namespace {

interp::Element f(double v) {
  interp::Element e;
  e.f = v;
  return e;
}
interp::Element i(int64_t v) {
  interp::Element e;
  e.i = v;
  return e;
}

interp::Element call(const char* symbol, std::vector<interp::Element> args) {
  const ir::LibdeviceFunction* fn = ir::findLibdeviceFunction(symbol);
  if (!fn) throw std::runtime_error(std::string("no libdevice function ") + symbol);
  return interp::libdeviceSemantics(*fn)(args.data());
}
double callF(const char* symbol, std::vector<interp::Element> args) { return call(symbol, std::move(args)).f; }
int64_t callI(const char* symbol, std::vector<interp::Element> args) { return call(symbol, std::move(args)).i; }

}  // namespace

TEST(LibdeviceReference, EverySymbolHasAMeaningAndADistinctName) {
  std::map<std::string_view, int> seen;
  for (const ir::LibdeviceFunction& fn : ir::libdeviceFunctions()) {
    EXPECT_EQ(++seen[fn.symbol], 1) << fn.symbol;
    EXPECT_TRUE(interp::libdeviceSemantics(fn)) << fn.symbol;
    EXPECT_EQ(ir::findLibdeviceFunction(fn.symbol), &fn);
  }
  EXPECT_EQ(ir::findLibdeviceFunction("__nv_j0"), nullptr);  // float64: not on Apple GPUs
}

TEST(LibdeviceReference, SpecialFunctionsMatchPublishedValues) {
  // Values to 17 digits from the functions' series (Abramowitz & Stegun tables).
  EXPECT_FLOAT_EQ(callF("__nv_j0f", {f(1)}), 0.76519768655796655f);
  EXPECT_FLOAT_EQ(callF("__nv_j1f", {f(-2)}), -0.57672480775687339f);
  EXPECT_FLOAT_EQ(callF("__nv_y0f", {f(1)}), 0.088256964215676957f);
  EXPECT_FLOAT_EQ(callF("__nv_y1f", {f(2)}), -0.10703243154093754f);
  EXPECT_FLOAT_EQ(callF("__nv_jnf", {i(3), f(-2.5)}), -0.21660039103911204f);
  EXPECT_FLOAT_EQ(callF("__nv_ynf", {i(2), f(1)}), -1.6506826068162546f);
  EXPECT_FLOAT_EQ(callF("__nv_cyl_bessel_i0f", {f(1)}), 1.2660658777520082f);
  EXPECT_FLOAT_EQ(callF("__nv_cyl_bessel_i1f", {f(-1)}), -0.56515910399248503f);
  EXPECT_EQ(callF("__nv_y0f", {f(0)}), -INFINITY);
  EXPECT_TRUE(std::isnan(callF("__nv_y1f", {f(-1)})));
  EXPECT_FLOAT_EQ(callF("__nv_erfinvf", {f(0.5)}), 0.47693627620446987f);
  EXPECT_FLOAT_EQ(callF("__nv_erfcinvf", {f(0.1)}), 1.1630871536766743f);
  EXPECT_FLOAT_EQ(callF("__nv_normcdfinvf", {f(0.975)}), 1.9599639845400542f);
  EXPECT_FLOAT_EQ(callF("__nv_normcdff", {f(-3)}), 0.0013498980316300946f);
  EXPECT_FLOAT_EQ(callF("__nv_erfcxf", {f(30)}), 0.018795888861416751f);
  EXPECT_FLOAT_EQ(callF("__nv_erfcxf", {f(1e5)}), 5.6418958354493e-6f);
  EXPECT_EQ(callF("__nv_erfinvf", {f(1)}), INFINITY);
  EXPECT_TRUE(std::isnan(callF("__nv_erfinvf", {f(1.5)})));
  EXPECT_FLOAT_EQ(callF("__nv_lgammaf", {f(0.5)}), 0.57236494292470009f);
  EXPECT_FLOAT_EQ(callF("__nv_tgammaf", {f(5)}), 24.0f);
  EXPECT_FLOAT_EQ(callF("__nv_sinpif", {f(0.25)}), 0.70710678118654752f);
  EXPECT_EQ(callF("__nv_sinpif", {f(-3)}), 0.0);
  EXPECT_TRUE(std::signbit(callF("__nv_sinpif", {f(-3)})));
  EXPECT_EQ(callF("__nv_cospif", {f(0.5)}), 0.0);
}

TEST(LibdeviceReference, IntegerFunctionsFollowCuda) {
  EXPECT_EQ(callI("__nv_clz", {i(1)}), 31);
  EXPECT_EQ(callI("__nv_clz", {i(0)}), 32);
  EXPECT_EQ(callI("__nv_clzll", {i(int64_t{1} << 40)}), 23);
  EXPECT_EQ(callI("__nv_popcll", {i(-1)}), 64);
  EXPECT_EQ(callI("__nv_ffs", {i(0)}), 0);
  EXPECT_EQ(callI("__nv_ffs", {i(12)}), 3);
  EXPECT_EQ(callI("__nv_ffsll", {i(int64_t{1} << 40)}), 41);
  EXPECT_EQ(callI("__nv_brev", {i(1)}), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(callI("__nv_brevll", {i(1)}), std::numeric_limits<int64_t>::min());
  // byte_perm: selector nibbles 0, 4, 1, 5 pick x.b0, y.b0, x.b1, y.b1.
  EXPECT_EQ(callI("__nv_byte_perm", {i(0x33221100), i(0x77665544), i(0x5140)}), 0x55114400);
  EXPECT_EQ(callI("__nv_mulhi", {i(-0x40000000), i(8)}), -2);
  EXPECT_EQ(callI("__nv_umulhi", {i(-1), i(-1)}), -2);  // 0xfffffffe
  EXPECT_EQ(callI("__nv_mul64hi", {i(-1), i(1)}), -1);
  EXPECT_EQ(callI("__nv_umul64hi", {i(-1), i(2)}), 1);
  EXPECT_EQ(callI("__nv_mul24", {i(0x00800000), i(2)}), -0x01000000);  // bit 23 is the sign
  EXPECT_EQ(callI("__nv_umul24", {i(0x01000003), i(5)}), 15);          // bits above 24 ignored
  EXPECT_EQ(callI("__nv_hadd", {i(-3), i(0)}), -2);                     // floor((a + b) / 2)
  EXPECT_EQ(callI("__nv_rhadd", {i(-3), i(0)}), -1);
  EXPECT_EQ(callI("__nv_uhadd", {i(-1), i(-1)}), -1);                   // no overflow
  EXPECT_EQ(callI("__nv_sad", {i(-5), i(5), i(1)}), 11);
  EXPECT_EQ(callI("__nv_abs", {i(std::numeric_limits<int32_t>::min())}), std::numeric_limits<int32_t>::min());
}

TEST(LibdeviceReference, RoundingModesAndConversions) {
  const double tiny = std::ldexp(1.0, -30);
  EXPECT_EQ(callF("__nv_fadd_rz", {f(1), f(tiny)}), 1.0);
  EXPECT_EQ(callF("__nv_fadd_ru", {f(1), f(tiny)}), std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(callF("__nv_fadd_rd", {f(1), f(-tiny)}), std::nextafter(1.0f, 0.0f));
  EXPECT_TRUE(std::signbit(callF("__nv_fsub_rd", {f(1), f(1)})));  // x - x is -0 rounding down
  EXPECT_EQ(callF("__nv_fmul_rz", {f(3.4e38), f(2)}), std::numeric_limits<float>::max());
  EXPECT_EQ(callF("__nv_fdiv_rd", {f(1), f(3)}), std::nextafter(1.0f / 3.0f, 0.0f));  // 1/3 rounds up to nearest
  EXPECT_EQ(callF("__nv_fdiv_ru", {f(1), f(25)}), std::nextafter(1.0f / 25.0f, 1.0f));  // 1/25 rounds down to nearest
  EXPECT_EQ(callF("__nv_fsqrt_rd", {f(2)}), 1.41421353816986083984375);
  EXPECT_EQ(callI("__nv_float2int_rn", {f(2.5)}), 2);
  EXPECT_EQ(callI("__nv_float2int_rd", {f(-0.5)}), -1);
  EXPECT_EQ(callI("__nv_float2int_rz", {f(1e10)}), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(callI("__nv_float2int_ru", {f(NAN)}), 0);
  EXPECT_EQ(callI("__nv_float2uint_rn", {f(-3)}), 0);
  EXPECT_EQ(callI("__nv_float2ull_rz", {f(1e30)}), -1);  // all ones
  EXPECT_EQ(callF("__nv_int2float_rz", {i(16777217)}), 16777216.0);
  EXPECT_EQ(callF("__nv_int2float_ru", {i(16777217)}), 16777218.0);
  EXPECT_EQ(callF("__nv_ull2float_rd", {i(-1)}), std::nextafter(18446744073709551616.0f, 0.0f));
  EXPECT_EQ(callI("__nv_llroundf", {f(-2.5)}), -3);
  EXPECT_EQ(callI("__nv_ilogbf", {f(0)}), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(callF("__nv_logbf", {f(std::ldexp(1.0, -140))}), -140.0);
  EXPECT_EQ(callF("__nv_remainderf", {f(5), f(2)}), 1.0);  // 5 - 2 * 2 (2.5 ties to even)
  EXPECT_EQ(callF("__nv_saturatef", {f(NAN)}), 0.0);
}

// ---- generated code against the interpreter ------------------------------

namespace {

constexpr int kN = 1024;  // inputs per function

std::string ttirType(LibdeviceType t) { return ir::scalarName(ir::libdeviceScalarKind(t)); }

struct Group {
  std::vector<LibdeviceType> arguments;
  LibdeviceType result;
  std::vector<const ir::LibdeviceFunction*> functions;
};

// Functions of the same signature share a kernel (one emulator build each).
// Those whose helpers are not written yet are refused by the code generators
// (NotImplementedYet below) and left out here.
std::vector<Group> groups() {
  std::vector<Group> out;
  for (const ir::LibdeviceFunction& fn : ir::libdeviceFunctions()) {
    if (!codegen::libdeviceImplemented(fn)) continue;
    auto sameKind = [&](LibdeviceType a, LibdeviceType b) {
      return ir::libdeviceScalarKind(a) == ir::libdeviceScalarKind(b);
    };
    Group* group = nullptr;
    for (Group& g : out) {
      bool same = g.arguments.size() == fn.arguments.size() && sameKind(g.result, fn.result);
      for (size_t k = 0; same && k < fn.arguments.size(); ++k) same = sameKind(g.arguments[k], fn.arguments[k]);
      if (same) group = &g;
    }
    if (!group) group = &out.emplace_back(Group{fn.arguments, fn.result, {}});
    group->functions.push_back(&fn);
  }
  return out;
}

// out[j * N + i] = f_j(in0[i], in1[i], ...).
std::string groupKernel(const Group& g) {
  auto tensor = [](const std::string& e) { return "tensor<" + std::to_string(kN) + "x" + e + ">"; };
  auto ptrs = [&](const std::string& e) { return tensor("!tt.ptr<" + e + ">"); };
  std::string params, body;
  body += "    %r = tt.make_range {end = " + std::to_string(kN) + " : i32, start = 0 : i32} : " + tensor("i32") + "\n";
  for (size_t k = 0; k < g.arguments.size(); ++k) {
    const std::string e = ttirType(g.arguments[k]), n = std::to_string(k);
    params += "%in" + n + ": !tt.ptr<" + e + ">, ";
    body += "    %p" + n + " = tt.splat %in" + n + " : !tt.ptr<" + e + "> -> " + ptrs(e) + "\n";
    body += "    %q" + n + " = tt.addptr %p" + n + ", %r : " + ptrs(e) + ", " + tensor("i32") + "\n";
    body += "    %x" + n + " = tt.load %q" + n + " : " + ptrs(e) + "\n";
  }
  const std::string re = ttirType(g.result);
  params += "%out: !tt.ptr<" + re + ">";
  body += "    %po = tt.splat %out : !tt.ptr<" + re + "> -> " + ptrs(re) + "\n";
  for (size_t j = 0; j < g.functions.size(); ++j) {
    const std::string n = std::to_string(j);
    std::string operands, types;
    for (size_t k = 0; k < g.arguments.size(); ++k) {
      operands += (k ? ", %x" : "%x") + std::to_string(k);
      types += (k ? ", " : "") + tensor(ttirType(g.arguments[k]));
    }
    body += "    %y" + n + " = tt.extern_elementwise " + operands +
            " {libname = \"\", libpath = \"\", pure = true, symbol = \"" + std::string(g.functions[j]->symbol) +
            "\"} : (" + types + ") -> " + tensor(re) + "\n";
    body += "    %c" + n + " = arith.constant dense<" + std::to_string(j * kN) + "> : " + tensor("i32") + "\n";
    body += "    %o" + n + " = arith.addi %r, %c" + n + " : " + tensor("i32") + "\n";
    body += "    %s" + n + " = tt.addptr %po, %o" + n + " : " + ptrs(re) + ", " + tensor("i32") + "\n";
    body += "    tt.store %s" + n + ", %y" + n + " : " + ptrs(re) + "\n";
  }
  return "module {\n  tt.func public @libdevice_group(" + params + ") attributes {noinline = false} {\n" + body +
         "    tt.return\n  }\n}\n";
}

// Float inputs: specials, a dense stretch around zero, [-1, 1] and its ends
// (the inverse error functions), and every binade of both signs.
std::vector<float> floatInputs(int salt) {
  std::vector<float> v = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 2.0f, 0.5f, -0.5f, 1.5f,
                          std::numeric_limits<float>::max(), std::numeric_limits<float>::min(),
                          std::numeric_limits<float>::denorm_min(), 16777217.0f, -2.5f, 3.0f, 0.1f};
  for (int k = 0; k < 400; ++k) v.push_back(-10.0f + 20.0f * float(k) / 399.0f + 0.013f * float(salt));
  for (int k = 0; k < 100; ++k) v.push_back(std::nextafter(1.0f, 0.0f) - float(k) * 1e-3f * float(k));
  for (int e = -140; v.size() < kN; e += 1) {
    const float mantissa = 1.0f + float((e * 37 + salt * 11) & 127) / 128.0f;
    v.push_back(std::ldexp(mantissa, e % 128));
    if (v.size() < kN) v.push_back(-std::ldexp(mantissa * 1.37f, (e * 3) % 128));
  }
  v.resize(kN);
  if (salt) std::rotate(v.begin(), v.begin() + 17 * salt, v.end());
  return v;
}

std::vector<int64_t> intInputs(LibdeviceType t, const Group& g, int salt) {
  std::vector<int64_t> v;
  const bool smallOrder = g.arguments.size() == 2 && g.arguments[1] == LibdeviceType::F32;  // jn, yn
  const bool exponent = g.arguments.size() == 2 && g.arguments[0] == LibdeviceType::F32;    // ldexp, powi
  uint64_t state = 0x9E3779B97F4A7C15ull * uint64_t(salt + 1);
  for (int k = 0; k < kN; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    int64_t r = static_cast<int64_t>(state >> (t == LibdeviceType::I64 || t == LibdeviceType::U64 ? 0 : 32));
    if (t == LibdeviceType::I32 || t == LibdeviceType::U32) r = static_cast<int32_t>(r);
    if (smallOrder) r = k % 40 - 2;
    if (exponent) r = k % 5 == 0 ? (k % 700) - 350 : k % 81 - 40;
    if (!smallOrder && !exponent && k < 8) r = std::vector<int64_t>{0, 1, -1, 2, -2, 0x7fffffff, -0x80000000ll, 3}[k];
    v.push_back(r);
  }
  return v;
}

NpyArray npyOf(LibdeviceType t, const std::vector<float>& fs, const std::vector<int64_t>& is) {
  switch (t) {
    case LibdeviceType::F32: {
      NpyArray a{"f4", {kN}, std::vector<uint8_t>(kN * 4)};
      std::memcpy(a.data.data(), fs.data(), a.data.size());
      return a;
    }
    case LibdeviceType::I32:
    case LibdeviceType::U32: {
      NpyArray a{"i4", {kN}, std::vector<uint8_t>(kN * 4)};
      for (int k = 0; k < kN; ++k) {
        const int32_t x = static_cast<int32_t>(is[k]);
        std::memcpy(a.data.data() + 4 * k, &x, 4);
      }
      return a;
    }
    default: {
      NpyArray a{"i8", {kN}, std::vector<uint8_t>(kN * 8)};
      std::memcpy(a.data.data(), is.data(), a.data.size());
      return a;
    }
  }
}

// How far the generated code may be from the interpreter's (nearly
// correctly rounded) value: ulps of the reference, or an absolute error
// (the Bessel functions near their zeros); exact where both sides compute
// the same correctly rounded or bit-defined result.
struct Tolerance {
  double ulps = 0;
  double absolute = 0;
};

Tolerance toleranceOf(LibdeviceFn fn) {
  switch (fn) {
    case LibdeviceFn::J0f:
    case LibdeviceFn::J1f:
    case LibdeviceFn::Y0f:
    case LibdeviceFn::Y1f:
    case LibdeviceFn::Jnf:
    case LibdeviceFn::Ynf: return {16, 2.5e-6};
    case LibdeviceFn::CylBesselI0f:
    case LibdeviceFn::CylBesselI1f:
    case LibdeviceFn::Lgammaf:
    case LibdeviceFn::Tgammaf: return {16, 1e-6};
    case LibdeviceFn::Erfcf:
    case LibdeviceFn::Erfcxf:
    case LibdeviceFn::Erfcinvf:
    case LibdeviceFn::Normcdff:
    case LibdeviceFn::Normcdfinvf:
    case LibdeviceFn::Erfinvf:
    case LibdeviceFn::Erff:
    case LibdeviceFn::Powf:
    case LibdeviceFn::FastPowf:
    case LibdeviceFn::Powif: return {6, 0};
    case LibdeviceFn::Expm1f:
    case LibdeviceFn::Log1pf:
    case LibdeviceFn::Cbrtf:
    case LibdeviceFn::Rcbrtf:
    case LibdeviceFn::Hypotf:
    case LibdeviceFn::Rhypotf:
    case LibdeviceFn::Norm3df:
    case LibdeviceFn::Rnorm3df:
    case LibdeviceFn::Norm4df:
    case LibdeviceFn::Rnorm4df:
    case LibdeviceFn::Rsqrtf:
    case LibdeviceFn::FastFdividef: return {3, 0};
    default: break;
  }
  const ir::LibdeviceFunction* self = nullptr;
  for (const auto& f : ir::libdeviceFunctions())
    if (f.fn == fn) self = &f;
  // The targets' own transcendental functions (and fast_ ones, which the
  // emulator computes precisely): within a few ulps.
  const std::string_view code = self->code;
  if (code.starts_with("@exp") || code.starts_with("@log") || code.starts_with("@sin") ||
      code.starts_with("@cos") || code.starts_with("@tan") || code.starts_with("@a") || code.starts_with("@fast_"))
    return {4, 0};
  return {0, 0};
}

bool withinTolerance(double got, double want, Tolerance t) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want) || t.ulps == 0) return std::bit_cast<uint32_t>(float(got)) == std::bit_cast<uint32_t>(float(want));
  const double ulp = std::max(std::ldexp(1.0, -149), std::ldexp(1.0, std::ilogb(float(want)) - 23));
  return std::fabs(got - want) <= t.ulps * ulp || std::fabs(got - want) <= t.absolute;
}

class LibdeviceCodegen : public clitest::CliTest {
 protected:
  void SetUp() override { startIn("tmetal_libdevice_"); }

  // Runs group `g`'s kernel on `device`; returns the output's bytes.
  std::vector<uint8_t> run(const Group& g, const std::string& device) {
    std::string args;
    for (size_t k = 0; k < g.arguments.size(); ++k) {
      const auto floats = floatInputs(int(k));
      const auto ints = intInputs(g.arguments[k], g, int(k));
      writeNpy((dir_ / ("in" + std::to_string(k) + ".npy")).string(), npyOf(g.arguments[k], floats, ints));
      args += " --arg " + std::to_string(k) + "=in" + std::to_string(k) + ".npy";
    }
    const int width = ir::scalarBits(ir::libdeviceScalarKind(g.result)) / 8;
    const size_t outBytes = g.functions.size() * kN * width;
    writeNpy((dir_ / "out.npy").string(),
             NpyArray{width == 4 ? (g.result == LibdeviceType::F32 ? "f4" : "i4") : "i8",
                      {static_cast<int64_t>(g.functions.size() * kN)},
                      std::vector<uint8_t>(outBytes, 0)});
    std::ofstream(dir_ / "group.ttir") << groupKernel(g);
    const std::string outIndex = std::to_string(g.arguments.size());
    auto [code, output] = tmetal("run group.ttir --grid 1" + args + " --arg " + outIndex + "=out.npy --out " +
                                 outIndex + "=result.npy --device " + device);
    EXPECT_EQ(code, 0) << output;
    if (code != 0) return {};
    return readNpy((dir_ / "result.npy").string()).data;
  }
};

}  // namespace

TEST_F(LibdeviceCodegen, EmulatorAgreesWithTheInterpreterOnEveryFunction) {
  for (const Group& g : groups()) {
    const std::vector<uint8_t> want = run(g, "interpreter");
    const std::vector<uint8_t> got = run(g, "emulator");
    ASSERT_EQ(want.size(), got.size()) << "group of " << g.functions.front()->symbol;
    const int width = ir::scalarBits(ir::libdeviceScalarKind(g.result)) / 8;
    for (size_t j = 0; j < g.functions.size(); ++j) {
      const ir::LibdeviceFunction& fn = *g.functions[j];
      const Tolerance tolerance = toleranceOf(fn.fn);
      int failures = 0;
      for (int k = 0; k < kN && failures < 3; ++k) {
        const size_t at = (j * kN + k) * width;
        bool same;
        std::string shown;
        if (g.result == LibdeviceType::F32) {
          float a, b;
          std::memcpy(&a, &want[at], 4);
          std::memcpy(&b, &got[at], 4);
          same = withinTolerance(b, a, tolerance);
          std::ostringstream text;
          text << std::setprecision(9) << "interpreter " << a << ", emulator " << b;
          shown = text.str();
        } else {
          same = std::memcmp(&want[at], &got[at], width) == 0;
          int64_t a = 0, b = 0;
          std::memcpy(&a, &want[at], width);
          std::memcpy(&b, &got[at], width);
          if (width == 4) a = static_cast<int32_t>(a), b = static_cast<int32_t>(b);
          shown = "interpreter " + std::to_string(a) + ", emulator " + std::to_string(b);
        }
        if (!same) {
          ++failures;
          ADD_FAILURE() << fn.symbol << " at input " << k << ": " << shown;
        }
      }
    }
  }
}

// CI has no GPU: NVRTC proves the CUDA spelling of every function compiles
// (tests/python/test_plugin_cuda.py runs them on a GPU).
TEST(LibdeviceCuda, EveryFunctionCompilesWithNvrtc) {
  TMETAL_REQUIRE_NVRTC();
  for (const Group& g : groups()) cudatest::expectCompilesWithNvrtc(groupKernel(g), "group");
}

// The verifier holds a known function's operands to its types.
TEST(LibdeviceVerifier, OperandsOfAKnownFunctionHaveItsTypes) {
  const std::string ttir = R"(module {
  tt.func public @k(%x: i32, %out: !tt.ptr<f32>) attributes {noinline = false} {
    %y = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_sinf"} : (i32) -> f32 loc("k.py":3:8)
    tt.store %out, %y : !tt.ptr<f32>
    tt.return
  }
}
)";
  auto module = frontend::parseTtir(ttir, "k.ttir");
  try {
    ir::verify(*module);
    ADD_FAILURE() << "verified";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "k.py:3:8: error: 'tt.extern_elementwise': __nv_sinf: operand 0 must be f32, found 'i32'");
  }
}

TEST(LibdeviceCodegenErrors, EveryFunctionOfTheTableHasItsHelpers) {
  for (const ir::LibdeviceFunction& fn : ir::libdeviceFunctions())
    EXPECT_TRUE(codegen::libdeviceImplemented(fn)) << fn.symbol;
}

// A function whose helper is not written is a CompileError at the line of
// its call, not a kernel that fails to build. Every function of the table
// has its helpers, so the call is given a function of this test's making.
TEST(LibdeviceCodegenErrors, AFunctionWithoutItsHelperIsRefusedAtItsLine) {
  const ir::LibdeviceFunction& sinf = *ir::findLibdeviceFunction("__nv_sinf");
  Group g{sinf.arguments, sinf.result, {&sinf}};
  auto module = frontend::parseTtir(groupKernel(g), "group.ttir");
  const ir::Operation* call = nullptr;
  ir::walk(*module->functions().front()->body(), [&](const ir::Operation* op) {
    if (op->kind() == ir::OpKind::TtExternElementwise) call = op;
  });
  ASSERT_NE(call, nullptr);
  ir::LibdeviceFunction unwritten = sinf;
  unwritten.symbol = "__nv_unwrittenf";
  unwritten.code = "tmetal_unwritten(%0)";
  EXPECT_FALSE(codegen::libdeviceImplemented(unwritten));
  codegen::MslDialect msl;
  codegen::LibdeviceCalls calls(msl);
  try {
    calls.call(*call, unwritten, {"x"});
    ADD_FAILURE() << "a function without its helper was called";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("__nv_unwrittenf is not implemented yet (its helper tmetal_unwritten is missing)"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("group.ttir:"), std::string::npos) << e.what();
  }
}
