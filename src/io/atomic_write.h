// Small files written whole or not at all, through safe_output (gguf/output.h): the
// caches' records and files; and the folder fsync that makes a rename durable. Not
// installed.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <span>

#include "gguf/error.h"

namespace gguf::io {

/// Writes the concatenation of `parts` to `path` through a temporary file beside it and
/// a rename (no signal handler installed). `durable`: fsync the file and its folder
/// (a cache whose files carry their own checksum passes false). Errors: io_error.
result<void> write_file_atomic(const std::filesystem::path& path, std::initializer_list<std::span<const std::byte>> parts,
                               bool durable = false);

/// fsync of the folder holding `path`, so that a rename or unlink of `path` there is
/// durable (best effort: some file systems refuse, and nothing is reported).
void fsync_folder_of(const std::filesystem::path& path) noexcept;

}  // namespace gguf::io
