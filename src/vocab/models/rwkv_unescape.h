// RWKV token text unescaping (llama.cpp's llama_unescape_rwkv_token), for the model and
// for detokenization: the GGUF stores RWKV "world" tokens as escaped strings.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace gguf::vocab_detail {

/// The raw bytes of an escaped RWKV token text: `\t` `\n` `\r` become the control
/// characters, `\xHH` one byte (lowercase hex; other digits follow llama.cpp's
/// arithmetic), `\c` the character c; an unfinished escape at the end is dropped.
std::string rwkv_unescape(std::string_view escaped);
/// rwkv_unescape into `out`, which has room for escaped.size() bytes (unescaping never
/// lengthens a text); returns the end of what it wrote.
char* rwkv_unescape_to(std::string_view escaped, char* out);
/// Whether `text` holds a backslash (needs unescaping). Where the 8-byte words from its
/// start that cover it all lie inside `readable` (the mapped file the texts are views
/// into), it is read a word at a time, the bytes past its end masked off; elsewhere byte
/// by byte (memchr).
bool rwkv_has_escape(std::string_view text, std::span<const std::byte> readable) noexcept;

}  // namespace gguf::vocab_detail
