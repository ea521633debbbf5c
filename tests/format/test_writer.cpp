// The writer: building from scratch, round trips, byte-for-byte rewrites of canonically
// written real files, and atomic replacement.
#include <gtest/gtest.h>

#include <time.h>

#include <cstring>

#include "compare_files.h"
#include "gguf/model_files.h"
#include "gguf/writer.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::data_file;
using gguf::value;

namespace {

std::vector<std::byte> bytes_of(const std::vector<float>& v) {
  std::vector<std::byte> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

gguf::file reparse(const gguf::writer& w) {
  auto f = gguf::file::from_buffer(w.to_bytes());
  EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message());
  return std::move(f).value();
}

}  // namespace

TEST(Writer, BuildsEveryValueTypeFromScratch) {
  gguf::writer w;
  ASSERT_TRUE(w.set("t.u8", value::u8(200)).ok());
  ASSERT_TRUE(w.set("t.i8", value::i8(-100)).ok());
  ASSERT_TRUE(w.set("t.u16", value::u16(60000)).ok());
  ASSERT_TRUE(w.set("t.i16", value::i16(-30000)).ok());
  ASSERT_TRUE(w.set("t.u32", value::u32(4000000000u)).ok());
  ASSERT_TRUE(w.set("t.i32", value::i32(-2000000000)).ok());
  ASSERT_TRUE(w.set("t.f32", value::f32(1.5e-5f)).ok());
  ASSERT_TRUE(w.set("t.bool", value::boolean(true)).ok());
  ASSERT_TRUE(w.set("t.str", value::string("héllo")).ok());
  ASSERT_TRUE(w.set("t.u64", value::u64(~uint64_t{0})).ok());
  ASSERT_TRUE(w.set("t.i64", value::i64(INT64_MIN)).ok());
  ASSERT_TRUE(w.set("t.f64", value::f64(3.141592653589793)).ok());
  std::vector<int32_t> ints{1, -2, 3};
  ASSERT_TRUE(w.set("t.arr_i32", value::array<int32_t>(ints)).ok());
  std::vector<std::string> strs{"a", "", "ccc"};
  ASSERT_TRUE(w.set("t.arr_str", value::string_array(strs)).ok());
  std::vector<bool> flags{true, false};
  bool flag_arr[] = {true, false};
  ASSERT_TRUE(w.set("t.arr_bool", value::array<bool>(flag_arr)).ok());
  std::vector<value> inner{value::array<int32_t>(ints), value::string_array(strs)};
  ASSERT_TRUE(w.set("t.nested", *value::array_of_arrays(inner)).ok());

  std::vector<float> data(64 * 2);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i) * 0.5f;
  uint64_t ne[] = {64, 2};
  ASSERT_TRUE(w.add_tensor("w.f32", gguf::ggml_type::f32, ne, bytes_of(data)).ok());
  std::vector<std::byte> q(18 * 4, std::byte{7});
  uint64_t qne[] = {64, 2};
  ASSERT_TRUE(w.add_tensor("w.q4_0", gguf::ggml_type::q4_0, qne, q).ok());

  auto f = reparse(w);
  EXPECT_EQ(f.version(), 3u);
  EXPECT_EQ(f.byte_order(), gguf::byte_order::little);
  EXPECT_EQ(*f.get("t.u8")->get<uint8_t>(), 200);
  EXPECT_EQ(*f.get("t.i8")->get<int8_t>(), -100);
  EXPECT_EQ(*f.get("t.u16")->get<uint16_t>(), 60000);
  EXPECT_EQ(*f.get("t.i16")->get<int16_t>(), -30000);
  EXPECT_EQ(*f.get("t.u32")->get<uint32_t>(), 4000000000u);
  EXPECT_EQ(*f.get("t.i32")->get<int32_t>(), -2000000000);
  EXPECT_EQ(*f.get("t.f32")->get<float>(), 1.5e-5f);
  EXPECT_EQ(*f.get("t.bool")->get<bool>(), true);
  EXPECT_EQ(*f.get("t.str")->get<std::string_view>(), "héllo");
  EXPECT_EQ(*f.get("t.u64")->get<uint64_t>(), ~uint64_t{0});
  EXPECT_EQ(*f.get("t.i64")->get<int64_t>(), INT64_MIN);
  EXPECT_EQ(*f.get("t.f64")->get<double>(), 3.141592653589793);
  EXPECT_EQ(*f.get_array("t.arr_i32")->to_vector<int32_t>(), ints);
  auto sa = *f.get_array("t.arr_str");
  ASSERT_EQ(sa.size(), 3u);
  EXPECT_EQ(*sa.get<std::string_view>(2), "ccc");
  EXPECT_EQ(*sa.get<std::string_view>(1), "");
  EXPECT_EQ(*f.get_array("t.arr_bool")->to_vector<bool>(), flags);
  auto nested = *f.get_array("t.nested");
  EXPECT_EQ(nested.size(), 2u);
  EXPECT_EQ(nested.nesting(), 2u);
  EXPECT_EQ(*nested.at(1)->array()->get<std::string_view>(2), "ccc");
  EXPECT_EQ(*nested.at(0)->array()->get<int32_t>(1), -2);

  ASSERT_EQ(f.tensor_count(), 2u);
  const auto* t = *f.get_tensor("w.f32");
  EXPECT_EQ(t->offset, 0u);
  ASSERT_EQ(t->data.size(), data.size() * 4);
  EXPECT_EQ(std::memcmp(t->data.data(), data.data(), t->data.size()), 0);
  const auto* tq = *f.get_tensor("w.q4_0");
  EXPECT_EQ(tq->offset % 32, 0u);
  EXPECT_EQ(tq->type, gguf::ggml_type::q4_0);
  EXPECT_EQ(std::memcmp(tq->data.data(), q.data(), q.size()), 0);
}

TEST(Writer, RejectsBadInput) {
  gguf::writer w;
  EXPECT_EQ(w.set("", value::u8(1)).error().code, gguf::errc::invalid_key);
  EXPECT_EQ(w.set(std::string(65536, 'k'), value::u8(1)).error().code, gguf::errc::key_too_long);
  EXPECT_EQ(w.set("general.alignment", value::u32(48)).error().code, gguf::errc::invalid_alignment);
  EXPECT_EQ(w.set("general.alignment", value::u64(64)).error().code, gguf::errc::invalid_alignment);
  std::vector<std::byte> d(16);
  uint64_t ne[] = {4};
  EXPECT_EQ(w.add_tensor("", gguf::ggml_type::f32, ne, d).error().code, gguf::errc::invalid_tensor_name);
  EXPECT_EQ(w.add_tensor(std::string(65, 'x'), gguf::ggml_type::f32, ne, d).error().code,
            gguf::errc::invalid_tensor_name);
  uint64_t bad_ne[] = {3};
  EXPECT_EQ(w.add_tensor("x", gguf::ggml_type::f32, bad_ne, d).error().code, gguf::errc::invalid_argument);
  uint64_t partial[] = {4};
  EXPECT_EQ(w.add_tensor("x", gguf::ggml_type::q4_0, partial, d).error().code, gguf::errc::partial_block);
  uint64_t five[] = {1, 1, 1, 1, 4};
  EXPECT_EQ(w.add_tensor("x", gguf::ggml_type::f32, five, d).error().code, gguf::errc::too_many_dims);
  ASSERT_TRUE(w.add_tensor("x", gguf::ggml_type::f32, ne, d).ok());
  EXPECT_EQ(w.add_tensor("x", gguf::ggml_type::f32, ne, d).error().code, gguf::errc::duplicate_tensor);
  EXPECT_EQ(value::parse(gguf::value_type::uint8, "256").error().code, gguf::errc::invalid_argument);
  EXPECT_EQ(value::parse(gguf::value_type::boolean, "yes").error().code, gguf::errc::invalid_argument);
  EXPECT_EQ(value::parse(gguf::value_type::int32, "-5")->type(), gguf::value_type::int32);
}

TEST(Writer, SetReplacesInPlaceAndRemove) {
  gguf::writer w;
  ASSERT_TRUE(w.set("a.one", value::u32(1)).ok());
  ASSERT_TRUE(w.set("a.two", value::u32(2)).ok());
  ASSERT_TRUE(w.set("a.one", value::string("x")).ok());
  auto f = reparse(w);
  EXPECT_EQ(f.kv(0).key, "a.one");
  EXPECT_EQ(*f.kv(0).value.get<std::string_view>(), "x");
  EXPECT_TRUE(w.remove("a.one"));
  EXPECT_FALSE(w.remove("a.one"));
  EXPECT_EQ(reparse(w).kv_count(), 1u);
}

TEST(Writer, HonoursAlignment) {
  gguf::writer w;
  ASSERT_TRUE(w.set("general.alignment", value::u32(256)).ok());
  std::vector<std::byte> d(40);
  uint64_t ne[] = {10};
  ASSERT_TRUE(w.add_tensor("a", gguf::ggml_type::f32, ne, d).ok());
  ASSERT_TRUE(w.add_tensor("b", gguf::ggml_type::f32, ne, d).ok());
  auto f = reparse(w);
  EXPECT_EQ(f.alignment(), 256u);
  EXPECT_EQ(f.data_offset() % 256, 0u);
  EXPECT_EQ((*f.get_tensor("b"))->offset, 256u);
}

TEST(Writer, BigEndianOutputReadsBack) {
  gguf::writer_options o;
  o.order = gguf::byte_order::big;
  gguf::writer w(o);
  std::vector<float> scores{1.0f, -2.5f};
  ASSERT_TRUE(w.set("a.u32", value::u32(0x01020304)).ok());
  ASSERT_TRUE(w.set("a.scores", value::array<float>(scores)).ok());
  auto f = reparse(w);
  EXPECT_EQ(f.byte_order(), gguf::byte_order::big);
  EXPECT_EQ(*f.get_uint("a.u32"), 0x01020304u);
  EXPECT_EQ(*f.get_array("a.scores")->to_vector<float>(), scores);
}

TEST(Writer, RoundTripKeepsEveryRealFile) {
  GGUF_REQUIRE_DATA();
  int n = 0;
  for (const char* dir : {"vocab", "models", "quant", "compat"}) {
    for (const auto& e : fs::directory_iterator(data_file(dir))) {
      if (e.path().extension() != ".gguf" || e.path().filename().string().rfind("invalid-", 0) == 0) continue;
      auto f = gguf::file::open(e.path());
      ASSERT_TRUE(f.ok()) << e.path();
      auto w = gguf::writer::from_file(*f);
      auto g = gguf::file::from_buffer(w.to_bytes());
      ASSERT_TRUE(g.ok()) << e.path() << ": " << g.error().message();
      EXPECT_EQ(g->byte_order(), f->byte_order()) << e.path();
      gguf::test::expect_same_content(*f, *g);
      for (size_t i = 0; i < f->tensor_count(); ++i) {
        const auto& a = f->tensors()[i];
        const auto& b = g->tensors()[i];
        ASSERT_EQ(a.data.size(), b.data.size());
        EXPECT_EQ(std::memcmp(a.data.data(), b.data.data(), a.data.size()), 0) << e.path() << " " << a.name;
      }
      ++n;
    }
  }
  EXPECT_GE(n, 40);
}

// Every v2/v3 file in the data (written by gguf-py, ggml or llama-quantize, both byte
// orders) uses the canonical layout: key/values and tensor infos in order, zero padding,
// each tensor at the next multiple of the alignment. Rewriting reproduces every byte.
// (A file without tensors is padded or not as its source was: writer_options.)
// v1 files are upgraded to v3 on write, so they are the only ones that differ.
TEST(Writer, RewritesCanonicalFilesByteForByte) {
  GGUF_REQUIRE_DATA();
  int same = 0, upgraded = 0;
  for (const char* dir : {"vocab", "models", "quant", "compat"}) {
    for (const auto& e : fs::directory_iterator(data_file(dir))) {
      if (e.path().extension() != ".gguf" || e.path().filename().string().rfind("invalid-", 0) == 0) continue;
      auto f = gguf::file::open(e.path());
      ASSERT_TRUE(f.ok()) << e.path();
      auto out = gguf::writer::from_file(*f).to_bytes();
      auto original = gguf::test::read_bytes(e.path());
      if (f->version() == 1) {
        auto g = gguf::file::from_buffer(out);
        ASSERT_TRUE(g.ok());
        EXPECT_EQ(g->version(), 3u);
        gguf::test::expect_same_content(*f, *g);
        ++upgraded;
        continue;
      }
      ASSERT_EQ(out.size(), original.size()) << e.path();
      EXPECT_TRUE(out == original) << e.path();
      ++same;
    }
  }
  EXPECT_EQ(same, 38);
  EXPECT_EQ(upgraded, 3);
}

TEST(Writer, WriteFileIsAtomic) {
  auto dir = gguf::test::temp_dir() / "atomic";
  fs::create_directories(dir);
  gguf::writer w;
  ASSERT_TRUE(w.set("a.b", value::u32(1)).ok());
  auto target = dir / "out.gguf";
  ASSERT_TRUE(w.write_file(target).ok());
  auto first = gguf::test::read_bytes(target);
  EXPECT_EQ(first, w.to_bytes());
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::others_read, fs::perms::others_read);

  // Replacing works and leaves no temporary file.
  ASSERT_TRUE(w.set("a.c", value::string("more")).ok());
  ASSERT_TRUE(w.write_file(target).ok());
  EXPECT_EQ(gguf::test::read_bytes(target), w.to_bytes());

  // A target that cannot be replaced (a non-empty directory): io_error, the directory
  // stays, and no temporary file is left behind.
  auto blocker = dir / "blocker.gguf";
  fs::create_directories(blocker / "x");
  auto r = w.write_file(blocker);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, gguf::errc::io_error);
  EXPECT_TRUE(fs::is_directory(blocker / "x"));
  // A missing folder: io_error, nothing created.
  EXPECT_EQ(w.write_file(dir / "missing" / "out.gguf").error().code, gguf::errc::io_error);
  EXPECT_FALSE(fs::exists(dir / "missing"));
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 2);  // out.gguf and blocker.gguf only
}

// The one rule for a value given without a type (gguf edit --set-json, ggufkit.edit).
TEST(UntypedLeaves, InfersTheNarrowestTypeEveryLeafFits) {
  using gguf::value_type;
  auto infer = [](auto&&... add) {
    gguf::untyped_leaves k;
    (add(k), ...);
    return k.element_type();
  };
  auto i64 = [](int64_t v) { return [v](gguf::untyped_leaves& k) { k.add_integer(v); }; };
  auto u64 = [](uint64_t v) { return [v](gguf::untyped_leaves& k) { k.add_integer(v); }; };
  auto str = [](gguf::untyped_leaves& k) { k.add_string(); };
  auto boolean = [](gguf::untyped_leaves& k) { k.add_bool(); };
  auto flt = [](gguf::untyped_leaves& k) { k.add_float(); };
  EXPECT_EQ(*infer(str, str), value_type::string);
  EXPECT_EQ(*infer(boolean), value_type::boolean);
  EXPECT_EQ(*infer(flt), value_type::float32);
  EXPECT_EQ(*infer(i64(1), flt), value_type::float32);  // integers among floats
  EXPECT_EQ(*infer(i64(INT32_MIN), u64(INT32_MAX)), value_type::int32);
  EXPECT_EQ(*infer(i64(int64_t(INT32_MIN) - 1)), value_type::int64);
  EXPECT_EQ(*infer(u64(uint64_t(INT32_MAX) + 1)), value_type::int64);
  EXPECT_EQ(*infer(i64(INT64_MIN), u64(INT64_MAX)), value_type::int64);
  EXPECT_EQ(*infer(u64(uint64_t(INT64_MAX) + 1), i64(0)), value_type::uint64);
  EXPECT_EQ(*infer(u64(UINT64_MAX)), value_type::uint64);
  for (auto r : {infer(), infer(str, i64(1)), infer(boolean, flt), infer(str, boolean), infer(i64(-1), u64(UINT64_MAX))}) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, gguf::errc::invalid_argument) << r.error().message();
  }
  gguf::untyped_leaves none;
  EXPECT_TRUE(none.empty());
  none.add_bool();
  EXPECT_FALSE(none.empty());
}

// The duplicate check scanned every tensor added before: 200000 tensors (a 7 MB file) took
// minutes to split or quantize. Each check is now a lookup; the whole build stays within a
// CPU budget far above the linear time and far below the quadratic one (~10^10 comparisons).
TEST(Writer, ManyTensorsAreAddedInLinearTime) {
  timespec t0{}, t1{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  gguf::writer w;
  static const float one = 1.0f;
  const uint64_t ne[] = {1};
  const auto data = std::span<const std::byte>(reinterpret_cast<const std::byte*>(&one), 4);
  for (int i = 0; i < 200000; ++i) ASSERT_TRUE(w.add_tensor("t." + std::to_string(i), gguf::ggml_type::f32, ne, data));
  EXPECT_EQ(w.add_tensor("t.123456", gguf::ggml_type::f32, ne, data).error().code, gguf::errc::duplicate_tensor);
  auto f = reparse(w);
  EXPECT_EQ(f.tensor_count(), 200000u);
  // and the model view finds each one by name through the index
  auto m = gguf::model_files::from_file(f);
  ASSERT_TRUE(m);
  for (int i = 0; i < 200000; i += 997) {
    const auto* r = m->find_tensor("t." + std::to_string(i));
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->info->name, "t." + std::to_string(i));
  }
  EXPECT_EQ(m->find_tensor("t.200000"), nullptr);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
  EXPECT_LT(double(t1.tv_sec - t0.tv_sec) + 1e-9 * double(t1.tv_nsec - t0.tv_nsec), 20.0);
}
