// The in-place edit journal (journal.h): encoding, and the read-only probe readers use.
#include "format/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gguf/edit.h"
#include "gguf/io.h"

namespace gguf::detail {
namespace {

constexpr char journal_magic_v1[8] = {'G', 'G', 'U', 'F', 'J', 'R', 'N', '1'};
constexpr char journal_magic[8] = {'G', 'G', 'U', 'F', 'J', 'R', 'N', '2'};
constexpr size_t journal_header = 8 + 8 * 6;  // magic, dev, ino, size, offset, length, checksum

uint64_t fnv1a(const void* p, size_t n, uint64_t h = 0xcbf29ce484222325ull) {
  auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

}  // namespace

uint64_t edit_journal::checksum() const {
  uint64_t h = fnv1a(has_before ? journal_magic : journal_magic_v1, 8);
  for (uint64_t v : {dev, ino, size, offset, static_cast<uint64_t>(payload.size())}) h = fnv1a(&v, 8, h);
  h = fnv1a(payload.data(), payload.size(), h);
  return has_before ? fnv1a(before.data(), before.size(), h) : h;
}

std::vector<std::byte> edit_journal::encode() const {
  // written as version 2 only (a journal without its old bytes is never made)
  std::vector<std::byte> out(journal_header + payload.size() + before.size());
  std::memcpy(out.data(), journal_magic, 8);
  uint64_t fields[6] = {dev, ino, size, offset, payload.size(), checksum()};
  std::memcpy(out.data() + 8, fields, sizeof fields);
  if (!payload.empty()) std::memcpy(out.data() + journal_header, payload.data(), payload.size());
  if (!before.empty()) std::memcpy(out.data() + journal_header + payload.size(), before.data(), before.size());
  return out;
}

bool edit_journal::decode(const std::vector<std::byte>& in) {
  if (in.size() < journal_header) return false;
  if (std::memcmp(in.data(), journal_magic, 8) == 0) has_before = true;
  else if (std::memcmp(in.data(), journal_magic_v1, 8) == 0) has_before = false;
  else return false;
  uint64_t fields[6];
  std::memcpy(fields, in.data() + 8, sizeof fields);
  dev = fields[0], ino = fields[1], size = fields[2], offset = fields[3];
  const uint64_t body = in.size() - journal_header;
  if (has_before ? (body % 2 != 0 || fields[4] != body / 2) : fields[4] != body) return false;
  const auto payload_end = in.begin() + static_cast<std::ptrdiff_t>(journal_header + fields[4]);
  payload.assign(in.begin() + journal_header, payload_end);
  if (has_before) before.assign(payload_end, in.end());
  else before.clear();
  return checksum() == fields[5];
}

bool edit_journal::range_matches(std::span<const std::byte> now) const {
  if (!has_before) return true;
  if (now.size() != payload.size() || before.size() != payload.size()) return false;
  for (size_t i = 0; i < now.size(); ++i)
    if (now[i] != payload[i] && now[i] != before[i]) return false;
  return true;
}

bool edit_journal::belongs_to(const struct stat& st) const {
  return static_cast<uint64_t>(st.st_dev) == dev && static_cast<uint64_t>(st.st_ino) == ino &&
         static_cast<uint64_t>(st.st_size) == size && offset <= size && payload.size() <= size - offset;
}

result<std::vector<std::byte>> read_small_file(const std::filesystem::path& p) {
  auto fail = [&] { return make_error(errc::io_error, no_offset, "cannot read " + p.string() + ": " + std::strerror(errno)); };
  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail();
  struct stat st {};
  std::vector<std::byte> b;
  bool ok = ::fstat(fd, &st) == 0 && st.st_size <= (int64_t{1} << 30);
  if (ok) {
    b.resize(static_cast<size_t>(st.st_size));
    ok = io::pread_all(fd, b.data(), b.size(), 0) == static_cast<ssize_t>(b.size());
  }
  auto e = ok ? result<std::vector<std::byte>>(std::move(b)) : fail();
  ::close(fd);
  return e;
}

std::filesystem::path journal_beside(const std::filesystem::path& file) {
  std::string name = file.filename().string();
  name.insert(name.begin(), '.');
  name.append(".gguf-journal");
  return (file.has_parent_path() ? file.parent_path() : std::filesystem::path(".")) / name;
}

result<journal_probe> probe_journal(const std::filesystem::path& target, const struct stat& st,
                                    std::span<const std::byte> file_bytes) {
  journal_probe p;
  // A file that is not a symbolic link (the common case): its journal is .NAME.gguf-journal
  // in its folder as named, the same folder journal_path reaches by resolving every
  // component of the path (one lstat here instead of a readlink per component).
  struct stat lst {};
  const bool plain = ::lstat(target.c_str(), &lst) == 0 && !S_ISLNK(lst.st_mode);
  const auto jpath = plain ? journal_beside(target) : journal_path(target);
  struct stat jst {};
  if (::lstat(jpath.c_str(), &jst) != 0) return p;  // the common case: one failed lstat
  auto bytes = read_small_file(jpath);
  if (!bytes) {  // the file may be half-edited: not read without its journal
    return make_error(errc::io_error, no_offset,
                      "an interrupted in-place edit left its journal " + jpath.string() +
                          ", which cannot be read: " + bytes.error().detail);
  }
  // An incomplete journal never reached the file (it is renamed into place whole and
  // fsynced before the file is written): the file is as before.
  if (!p.journal.decode(*bytes)) {
    p.state = pending_edit::incomplete;
    p.journal = {};
    return p;
  }
  if (!p.journal.belongs_to(st) || file_bytes.size() != static_cast<uint64_t>(st.st_size) ||
      !p.journal.range_matches(file_bytes.subspan(p.journal.offset, p.journal.payload.size()))) {
    p.state = pending_edit::foreign;
    p.journal = {};
    return p;
  }
  p.state = pending_edit::applied;
  return p;
}

}  // namespace gguf::detail
