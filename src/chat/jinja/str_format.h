// Python's str.format and its format-spec mini-language, for the `str.format` method of
// templates (internal), and the padding that str.center/ljust/rjust share with it.
#pragma once

#include <cstdint>
#include <string>

#include "chat/jinja/runtime.h"

namespace gguf::jinja {

/// `fmt.format(*a.pos, **a.kw)`: replacement fields {}, {0}, {name}, {x.attr}, {x[key]},
/// conversions !r !s !a, and format specs (format_spec); raises as Python does on bad fields.
std::string str_format(interp& in, const std::string& fmt, arguments& a);

/// One value formatted by a spec: [[fill]align][sign][#][0][width][,_][.precision][type].
std::string format_spec(interp& in, const value& v, const std::string& spec);

/// `s` padded with `fill` to `width` code points; align '<' left, '>' right, '^' centre.
std::string pad(const std::string& s, int64_t width, char align, const std::string& fill);

}  // namespace gguf::jinja
