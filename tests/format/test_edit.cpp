// gguf::edit (gguf/edit.h): in place when it fits (filler, same data offset, tensor
// bytes and inode untouched), streamed otherwise, the journal and its recovery.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cstring>

#include "gguf/edit.h"
#include "journal_builder.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::edit_op;
using gguf::value;
using gguf::test::data_file;

namespace {

fs::path copy_of(const std::string& rel, const std::string& name) {
  auto dir = gguf::test::temp_dir() / "edit-lib";
  fs::create_directories(dir);
  auto dst = dir / name;
  fs::remove(dst);
  fs::copy_file(data_file(rel), dst);
  fs::permissions(dst, fs::perms::owner_write, fs::perm_options::add);
  return dst;
}

ino_t inode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0);
  return st.st_ino;
}

// Tensor infos and bytes equal (names, types, shapes, offsets, data).
void expect_same_tensors(const gguf::file& a, const gguf::file& b) {
  ASSERT_EQ(a.tensor_count(), b.tensor_count());
  for (size_t i = 0; i < a.tensor_count(); ++i) {
    const auto& x = a.tensors()[i];
    const auto& y = b.tensors()[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.ne, y.ne);
    ASSERT_EQ(x.nbytes, y.nbytes);
    EXPECT_EQ(std::memcmp(x.data.data(), y.data.data(), x.nbytes), 0) << x.name;
  }
}

std::vector<edit_op> rename_to(const std::string& name) { return {edit_op::set("general.name", value::string(name))}; }

}  // namespace

TEST(Edit, InPlaceWhenItFitsKeepsTheDataSectionAndInode) {
  GGUF_REQUIRE_DATA();
  auto path = copy_of("models/stories260K-Q8_0.gguf", "inplace.gguf");
  auto original = gguf::file::open(data_file("models/stories260K-Q8_0.gguf"));
  ASSERT_TRUE(original.ok());
  // A long description first (does not fit: streamed), then removed (in place: the
  // filler takes up the room it leaves).
  auto desc = std::vector<edit_op>{edit_op::set("general.description", value::string(std::string(300, 'd')))};
  auto r = gguf::edit(path, desc);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_FALSE(r->in_place);
  auto grown = gguf::file::open(path);
  auto before_bytes = gguf::test::read_bytes(path);
  auto ino = inode_of(path);
  r = gguf::edit(path, std::vector<edit_op>{edit_op::remove("general.description"),
                                            edit_op::set("general.name", value::string("s"))});
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_TRUE(r->in_place);
  EXPECT_EQ(inode_of(path), ino);
  auto f = gguf::file::open(path);
  ASSERT_TRUE(f.ok()) << f.error().message();
  EXPECT_EQ(*f->get_string("general.name"), "s");
  EXPECT_EQ(f->data_offset(), grown->data_offset());
  EXPECT_EQ(f->size(), grown->size());
  ASSERT_TRUE(f->find(gguf::padding_key).has_value());
  EXPECT_EQ(f->get_array(gguf::padding_key)->element_type(), gguf::value_type::uint8);
  expect_same_tensors(*original, *f);
  auto after_bytes = gguf::test::read_bytes(path);
  ASSERT_EQ(after_bytes.size(), before_bytes.size());
  EXPECT_EQ(std::memcmp(after_bytes.data() + f->data_offset(), before_bytes.data() + f->data_offset(),
                        after_bytes.size() - f->data_offset()),
            0);
  EXPECT_FALSE(fs::exists(gguf::journal_path(path)));
  // The next edit drops the filler and grows back into the room.
  r = gguf::edit(path, std::vector<edit_op>{edit_op::set("general.description", value::string(std::string(300, 'e')))});
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_TRUE(r->in_place);
  f = gguf::file::open(path);
  EXPECT_FALSE(f->find(gguf::padding_key).has_value());
  EXPECT_EQ(f->kv_count(), grown->kv_count());
  expect_same_tensors(*original, *f);
}

TEST(Edit, StreamedWhenItDoesNotFitAndAlwaysRefuses) {
  GGUF_REQUIRE_DATA();
  auto path = copy_of("models/stories260K.gguf", "streamed.gguf");
  auto before = gguf::test::read_bytes(path);
  auto ino = inode_of(path);
  std::string big(5000, 'x');
  gguf::edit_options always;
  always.in_place = gguf::in_place_mode::always;
  auto r = gguf::edit(path, rename_to(big), always);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, gguf::errc::unsupported);
  EXPECT_NE(r.error().message().find("does not fit"), std::string::npos) << r.error().message();
  EXPECT_EQ(gguf::test::read_bytes(path), before);
  r = gguf::edit(path, rename_to(big));
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_FALSE(r->in_place);
  EXPECT_NE(inode_of(path), ino);
  auto f = gguf::file::open(path);
  auto original = gguf::file::open(data_file("models/stories260K.gguf"));
  EXPECT_EQ(*f->get_string("general.name"), big);
  EXPECT_FALSE(f->find(gguf::padding_key).has_value());
  expect_same_tensors(*original, *f);
}

TEST(Edit, NeverAndDryRunAndOutput) {
  GGUF_REQUIRE_DATA();
  auto path = copy_of("models/stories260K-F16.gguf", "never.gguf");
  auto before = gguf::test::read_bytes(path);
  gguf::edit_options dry;
  dry.dry_run = true;
  auto r = gguf::edit(path, rename_to("x"), dry);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->in_place);
  EXPECT_EQ(gguf::test::read_bytes(path), before);
  gguf::edit_options out;
  out.output = path.parent_path() / "never-out.gguf";
  r = gguf::edit(path, rename_to("x"), out);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->in_place);  // another file: always written in full
  EXPECT_EQ(gguf::test::read_bytes(path), before);
  EXPECT_EQ(*gguf::file::open(out.output)->get_string("general.name"), "x");
  gguf::edit_options never;
  never.in_place = gguf::in_place_mode::never;
  auto ino = inode_of(path);
  r = gguf::edit(path, rename_to("x"), never);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->in_place);
  EXPECT_NE(inode_of(path), ino);
  EXPECT_EQ(gguf::test::read_bytes(path), gguf::test::read_bytes(out.output));
}

TEST(Edit, BigEndianAndTensorlessFilesInPlace) {
  GGUF_REQUIRE_DATA();
  for (const char* rel : {"compat/stories260K-be.gguf", "vocab/ggml-vocab-llama-spm.gguf",
                          "vocab/ggml-vocab-bert-bge.gguf"}) {
    auto path = copy_of(rel, "small.gguf");
    auto original = gguf::file::open(data_file(rel));
    auto desc = std::vector<edit_op>{edit_op::set("general.description", value::string(std::string(200, 'd')))};
    ASSERT_TRUE(gguf::edit(path, desc).ok());
    auto grown = gguf::file::open(path);
    auto r = gguf::edit(path, std::vector<edit_op>{edit_op::remove("general.description")});
    ASSERT_TRUE(r.ok()) << rel << ": " << r.error().message();
    EXPECT_TRUE(r->in_place) << rel;
    auto f = gguf::file::open(path);
    ASSERT_TRUE(f.ok()) << rel << ": " << f.error().message();
    EXPECT_EQ(f->byte_order(), original->byte_order());
    EXPECT_EQ(f->size(), grown->size()) << rel;
    EXPECT_FALSE(f->find("general.description").has_value());
    EXPECT_EQ(f->kv_count(), original->kv_count() + 1);  // the filler
    EXPECT_EQ(f->kv(f->kv_count() - 1).key, gguf::padding_key);
    expect_same_tensors(*original, *f);
  }
}

TEST(Edit, V1IsRewrittenAsV3AndSaysSo) {
  GGUF_REQUIRE_DATA();
  auto path = copy_of("compat/stories260K-v1.gguf", "v1.gguf");
  auto r = gguf::edit(path, rename_to("n"));
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->upgraded_from, 1u);
  EXPECT_FALSE(r->in_place);
  EXPECT_EQ(gguf::file::open(path)->version(), 3u);
}

TEST(Edit, HardLinkedFilesAreEditedInPlaceOrRefused) {
  GGUF_REQUIRE_DATA();
  auto path = copy_of("models/stories260K.gguf", "linked.gguf");
  auto other = path.parent_path() / "linked-2.gguf";
  fs::remove(other);
  fs::create_hard_link(path, other);
  auto r = gguf::edit(path, rename_to("n"));
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_TRUE(r->in_place);
  EXPECT_EQ(*gguf::file::open(other)->get_string("general.name"), "n");  // both names see it
  r = gguf::edit(path, rename_to(std::string(4000, 'y')));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("hard links"), std::string::npos);
  gguf::edit_options brk;
  brk.break_links = true;
  r = gguf::edit(path, rename_to(std::string(4000, 'y')), brk);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*gguf::file::open(other)->get_string("general.name"), "n");
  fs::remove(other);
}

TEST(Edit, ErrorsLeaveTheFileUnchanged) {
  GGUF_REQUIRE_DATA();
  auto path = copy_of("models/stories260K.gguf", "errors.gguf");
  auto before = gguf::test::read_bytes(path);
  EXPECT_EQ(gguf::edit(path, std::vector<edit_op>{edit_op::remove("no.such.key")}).error().code,
            gguf::errc::key_not_found);
  EXPECT_EQ(gguf::edit(path, std::vector<edit_op>{edit_op::set("general.alignment", value::u32(3))}).error().code,
            gguf::errc::invalid_alignment);
  gguf::edit_options o;
  int calls = 0;
  o.check = [&](const gguf::file& before_f, const gguf::file& after_f) -> gguf::result<void> {
    ++calls;
    EXPECT_EQ(*after_f.get_string("general.name"), "checked");
    EXPECT_EQ(after_f.tensor_count(), before_f.tensor_count());
    return gguf::make_error(gguf::errc::invalid_model, gguf::no_offset, "refused by check");
  };
  auto r = gguf::edit(path, rename_to("checked"), o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(r.error().detail, "refused by check");
  EXPECT_EQ(gguf::test::read_bytes(path), before);
}

using gguf::test::make_journal;

// What an in-place rename_to("from the journal") of the model writes, taken from the same
// edit done without interruption on a copy named `done_name`: the whole file after it, and
// the region before the data the journal of that edit holds.
struct finished_rename {
  std::vector<std::byte> bytes;
  long room = 0;  ///< the data offset: the region's size
  std::vector<std::byte> region;
};
finished_rename finish_rename(const std::string& done_name) {
  auto done = copy_of("models/stories260K.gguf", done_name);
  EXPECT_TRUE(gguf::edit(done, rename_to("from the journal")).ok());
  finished_rename r;
  r.bytes = gguf::test::read_bytes(done);
  r.room = static_cast<long>(gguf::file::open(done)->data_offset());
  r.region.assign(r.bytes.begin(), r.bytes.begin() + r.room);
  return r;
}

TEST(Edit, AJournalIsFinishedDiscardedOrLeftAlone) {
  GGUF_REQUIRE_DATA();
  // The expected result: the same edit done without interruption on another copy.
  const auto [done_bytes, room, region] = finish_rename("journal-done.gguf");

  // Crash after the journal, before (or while) the file was written: finished.
  auto path = copy_of("models/stories260K.gguf", "journal.gguf");
  auto old = gguf::test::read_bytes(path);
  std::vector<std::byte> half(region.begin(), region.begin() + static_cast<long>(room / 2));
  std::vector<std::byte> torn = old;
  std::memcpy(torn.data(), half.data(), half.size());  // half the region written
  gguf::test::write_bytes(path, torn);
  const std::vector<std::byte> old_region(old.begin(), old.begin() + static_cast<long>(room));
  gguf::test::write_bytes(gguf::journal_path(path), make_journal(path, 0, region, old_region));
  auto rec = gguf::recover_edit(path);
  ASSERT_TRUE(rec.ok()) << rec.error().message();
  EXPECT_EQ(*rec, gguf::recovery::finished);
  EXPECT_EQ(gguf::test::read_bytes(path), done_bytes);
  EXPECT_FALSE(fs::exists(gguf::journal_path(path)));
  EXPECT_EQ(*gguf::recover_edit(path), gguf::recovery::none);

  // A damaged journal never reached the file: discarded.
  gguf::test::write_bytes(path, old);
  auto j = make_journal(path, 0, region);
  j.back() ^= std::byte{1};
  gguf::test::write_bytes(gguf::journal_path(path), j);
  EXPECT_EQ(*gguf::recover_edit(path), gguf::recovery::discarded);
  EXPECT_EQ(gguf::test::read_bytes(path), old);

  // A journal of another file (other size): left alone, io_error; edits refuse too.
  j = make_journal(path, 0, region);
  gguf::test::write_bytes(gguf::journal_path(path), j);
  auto grown = old;
  grown.push_back(std::byte{0});
  fs::remove(path);
  gguf::test::write_bytes(path, grown);  // another inode and size
  rec = gguf::recover_edit(path);
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message().find("does not belong"), std::string::npos);
  EXPECT_TRUE(fs::exists(gguf::journal_path(path)));
  EXPECT_FALSE(gguf::edit(path, rename_to("x")).ok());
  EXPECT_EQ(gguf::test::read_bytes(path), grown);
  fs::remove(gguf::journal_path(path));

  // The next edit finishes a pending journal before it edits.
  gguf::test::write_bytes(path, old);
  gguf::test::write_bytes(gguf::journal_path(path), make_journal(path, 0, region));
  auto r = gguf::edit(path, std::vector<edit_op>{edit_op::set("general.author", value::string("a"))});
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_TRUE(r->recovered);
  auto f = gguf::file::open(path);
  EXPECT_EQ(*f->get_string("general.name"), "from the journal");
  EXPECT_EQ(*f->get_string("general.author"), "a");
}

// The old bytes in the journal tell the file it was made for from another one that took
// its inode and size (a copy or a download written over it in place): such a journal is
// left alone by writers and ignored by readers. A version-1 journal (no old bytes) is
// still finished.
TEST(Edit, AJournalOverAnotherFileOfTheSameInodeAndSizeIsLeftAlone) {
  GGUF_REQUIRE_DATA();
  const auto [done_bytes, room, region] = finish_rename("journal-same-inode-done.gguf");

  auto path = copy_of("models/stories260K.gguf", "journal-same-inode.gguf");
  const auto old = gguf::test::read_bytes(path);
  struct stat st0 {};
  ASSERT_EQ(::stat(path.c_str(), &st0), 0);
  gguf::test::write_bytes(gguf::journal_path(path), make_journal(path, 0, region));
  // Another model of the same size written over the file in place (same inode): the
  // Q8_0 file's bytes, cut or padded to this size.
  auto other = gguf::test::read_bytes(gguf::test::data_file("models/stories260K-Q8_0.gguf"));
  other.resize(old.size());
  {
    std::FILE* f = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(other.data(), 1, other.size(), f), other.size());
    std::fclose(f);
  }
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  ASSERT_EQ(st.st_ino, st0.st_ino) << "the same inode";
  auto probe = gguf::file::open(path);
  if (probe) {
    EXPECT_EQ(probe->interrupted_edit(), gguf::pending_edit::foreign);
  }
  auto rec = gguf::recover_edit(path);
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message().find("does not belong"), std::string::npos) << rec.error().message();
  EXPECT_FALSE(gguf::edit(path, rename_to("x")).ok());
  EXPECT_EQ(gguf::test::read_bytes(path), other) << "the other file is not touched";
  EXPECT_TRUE(fs::exists(gguf::journal_path(path)));

  // The same journal over the file as it was, and over a realistic torn write (every byte
  // old or new): finished.
  for (size_t written : {size_t{0}, size_t(room) / 3, size_t(room)}) {
    auto state = old;
    std::memcpy(state.data(), region.data(), written);
    gguf::test::write_bytes(path, state);
    const std::vector<std::byte> old_region(old.begin(), old.begin() + room);
    gguf::test::write_bytes(gguf::journal_path(path), make_journal(path, 0, region, old_region));
    auto f = gguf::file::open(path);
    ASSERT_TRUE(f) << f.error().message();
    EXPECT_EQ(f->interrupted_edit(), gguf::pending_edit::applied) << written;
    auto r = gguf::recover_edit(path);
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(*r, gguf::recovery::finished) << written;
    EXPECT_EQ(gguf::test::read_bytes(path), done_bytes) << written;
  }

  // A version-1 journal (no old bytes): matched by device, inode and size, and finished.
  gguf::test::write_bytes(path, old);
  gguf::test::write_bytes(gguf::journal_path(path), make_journal(path, 0, region, {}, true));
  auto r1 = gguf::recover_edit(path);
  ASSERT_TRUE(r1.ok()) << r1.error().message();
  EXPECT_EQ(*r1, gguf::recovery::finished);
  EXPECT_EQ(gguf::test::read_bytes(path), done_bytes);
}

// A reader finds the journal of an interrupted edit by any name of the file: the file
// itself (its folder as named: one lstat), a symbolic link to it from another folder (the
// link resolved), a path through a linked folder and a path with "..".
TEST(Edit, AReaderFindsTheJournalByEveryNameOfTheFile) {
  GGUF_REQUIRE_DATA();
  const auto [done_bytes, room, region] = finish_rename("journal-names-done.gguf");
  auto path = copy_of("models/stories260K.gguf", "journal-names.gguf");
  const auto old = gguf::test::read_bytes(path);
  const std::vector<std::byte> old_region(old.begin(), old.begin() + room);
  gguf::test::write_bytes(gguf::journal_path(path), make_journal(path, 0, region, old_region));

  const fs::path other = gguf::test::fresh_dir("journal-names-links");
  fs::create_symlink(path, other / "link.gguf");
  fs::create_directory_symlink(path.parent_path(), other / "folder");
  fs::create_directory(other / "sub");
  for (const fs::path& name : {path, other / "link.gguf", other / "folder" / path.filename(),
                               other / "sub" / ".." / "folder" / path.filename()}) {
    auto f = gguf::file::open(name);
    ASSERT_TRUE(f) << name << ": " << f.error().message();
    EXPECT_EQ(f->interrupted_edit(), gguf::pending_edit::applied) << name;
    EXPECT_EQ(*f->get_string("general.name"), "from the journal") << name;
  }
  EXPECT_EQ(gguf::test::read_bytes(path), old) << "readers never write";
}

TEST(Edit, ASecondEditorOfTheSameFileIsRefused) {
  GGUF_REQUIRE_DATA();
  auto path = copy_of("models/stories260K.gguf", "locked.gguf");
  int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);  // as an editor in another process holds it
  auto before = gguf::test::read_bytes(path);
  auto r = gguf::edit(path, rename_to("n"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, gguf::errc::io_error);
  EXPECT_NE(r.error().message().find("being edited by another process"), std::string::npos);
  EXPECT_EQ(gguf::test::read_bytes(path), before);
  ::close(fd);
  EXPECT_TRUE(gguf::edit(path, rename_to("n")).ok());
}
