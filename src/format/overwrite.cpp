// The overwrite policy of every writer of an output file (see check_overwrite in
// gguf/output.h): an existing OUT that is not the input is replaced only when forced.
#include <sys/stat.h>

#include "gguf/output.h"

namespace gguf {

result<void> check_overwrite(const std::filesystem::path& out, std::span<const std::filesystem::path> inputs,
                             bool force, bool may_replace_input) {
  struct stat o {};
  if (::stat(out.c_str(), &o) != 0) {
    struct stat l {};
    if (::lstat(out.c_str(), &l) != 0) return {};  // nothing there: a new file
    // A dangling symlink: writing follows it and creates the file it names.
    return force ? result<void>{}
                 : make_error(errc::io_error, no_offset,
                              out.string() + " exists (a symlink to a missing file); not replaced without --force");
  }
  for (const auto& in : inputs) {
    struct stat i {};
    if (::stat(in.c_str(), &i) == 0 && i.st_dev == o.st_dev && i.st_ino == o.st_ino) {
      if (may_replace_input) return {};
      return make_error(errc::invalid_argument, no_offset,
                        out.string() + " is the input " + in.string() + "; write the output elsewhere");
    }
  }
  if (force) return {};
  return make_error(errc::io_error, no_offset, out.string() + " exists; not replaced without --force");
}

}  // namespace gguf
