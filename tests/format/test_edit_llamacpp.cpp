// Files edited in place are read by llama.cpp as the same model: for each file recorded
// by scripts/record-edit-llamacpp.sh (llama.cpp's own gguf reader on files edited by
// `gguf edit`, checked there with its gguf-hash and loaded by libllama), the same edits
// made here give a file in which our reader sees exactly what llama.cpp saw: version,
// alignment, data section offset, every key and type, every tensor's type, offset and
// size; and the tensor bytes are the original's.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "gguf/edit.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace {

fs::path recorded_dir() { return fs::path(GGUF_SOURCE_DIR) / "tests" / "format" / "data" / "llamacpp-inplace"; }

// ggml's gguf_type_name spelling.
const char* ggml_name(gguf::value_type t) {
  static const char* names[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr", "u64", "i64", "f64"};
  return names[static_cast<int>(t)];
}

// Our reader's view in the format of scripts/llamacpp_gguf_view.cpp (without --load).
std::string view(const gguf::file& f) {
  std::ostringstream o;
  // ggml puts the data section of a file without tensors where the metadata ends (these
  // files are written unpadded); our data_offset() is the aligned offset after it.
  uint64_t data = f.tensor_count() == 0 ? std::min(f.data_offset(), f.size()) : f.data_offset();
  o << "version " << f.version() << "\nalignment " << f.alignment() << "\ndata_offset " << data << "\n";
  for (const auto& kv : f.kvs()) {
    o << "kv " << kv.key << " " << ggml_name(kv.value.type());
    if (kv.value.type() == gguf::value_type::string) o << " = " << *kv.value.get<std::string_view>();
    if (kv.value.type() == gguf::value_type::array) {
      auto a = *kv.value.array();
      o << " [" << ggml_name(a.element_type()) << " x " << a.size() << "]";
    }
    o << "\n";
  }
  for (const auto& t : f.tensors()) {
    o << "tensor " << t.name << " " << static_cast<int>(t.type) << " " << t.offset << " " << t.nbytes << "\n";
  }
  return o.str();
}

}  // namespace

TEST(EditLlamaCpp, InPlaceEditsReadAsLlamaCppReadThem) {
  GGUF_REQUIRE_DATA();
  size_t checked = 0;
  for (const auto& e : fs::directory_iterator(recorded_dir())) {
    std::string name = e.path().stem().string();
    std::string rel = (name.rfind("ggml-vocab-", 0) == 0 ? "vocab/" : "models/") + name + ".gguf";
    auto src = gguf::test::data_file(rel);
    auto path = gguf::test::temp_dir() / ("llamacpp-" + name + ".gguf");
    fs::copy_file(src, path, fs::copy_options::overwrite_existing);
    fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);
    // The edits of scripts/record-edit-llamacpp.sh.
    gguf::edit_options never, always;
    never.in_place = gguf::in_place_mode::never;
    always.in_place = gguf::in_place_mode::always;
    auto r = gguf::edit(path,
                        std::vector<gguf::edit_op>{gguf::edit_op::set("general.description",
                                                                      gguf::value::string(std::string(200, 'd')))},
                        never);
    ASSERT_TRUE(r.ok()) << name << ": " << r.error().message();
    r = gguf::edit(path,
                   std::vector<gguf::edit_op>{gguf::edit_op::remove("general.description"),
                                              gguf::edit_op::set("general.name", gguf::value::string("edited in place"))},
                   always);
    ASSERT_TRUE(r.ok()) << name << ": " << r.error().message();
    auto f = gguf::file::open(path);
    ASSERT_TRUE(f.ok()) << name;
    std::string recorded = gguf::test::read_text(e.path());
    recorded = recorded.substr(0, recorded.find("llama_model_load"));
    EXPECT_EQ(view(*f), recorded) << name;
    EXPECT_NE(recorded.find("kv gguf.padding arr [u8 x "), std::string::npos) << name;  // the filler was used
    auto original = gguf::file::open(src);
    ASSERT_EQ(original->tensor_count(), f->tensor_count());
    for (size_t i = 0; i < f->tensor_count(); ++i) {
      const auto& a = original->tensors()[i];
      const auto& b = f->tensors()[i];
      EXPECT_EQ(std::memcmp(a.data.data(), b.data.data(), a.nbytes), 0) << name << " " << a.name;
    }
    ++checked;
  }
  EXPECT_GE(checked, 14u);
}
