// Small files written whole or not at all, through safe_output (gguf/output.h): the
// caches' records and files. Not installed.
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

}  // namespace gguf::io
