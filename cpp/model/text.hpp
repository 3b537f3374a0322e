// Message text built without iostreams.
//
// Why: on the GPU machines' image (torch 2.11+cu130), once torch's CUDA libraries are loaded, any
// integer or floating-point insertion into a std::ostream from our modules crashed the process (strings
// streamed fine; imbuing the classic locale did not help). That is the signature of libstdc++'s exported
// std::ostream::_M_insert<T> being interposed by a copy of libstdc++ linked statically into a library
// loaded with RTLD_GLOBAL (the same crash as llama.cpp#22434, tilelang#855, pytorch#109923): the foreign
// code looks facets up with its own facet ids in our locale. snprintf (libc) and inline header code do
// not go through those symbols, so every number the model turns into text goes through here.
#pragma once
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>

namespace origami {

class Text {
 public:
  Text& operator<<(std::string_view s) { s_.append(s.data(), s.size()); return *this; }
  Text& operator<<(const std::string& s) { s_ += s; return *this; }
  Text& operator<<(const char* s) { s_ += s; return *this; }
  Text& operator<<(char c) { s_ += c; return *this; }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, char> && !std::is_same_v<T, bool>, int> = 0>
  Text& operator<<(T v) {
    char buf[32];
    if constexpr (std::is_signed_v<T>) std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    else std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
    s_ += buf;
    return *this;
  }
  Text& operator<<(bool v) { s_ += v ? "true" : "false"; return *this; }
  // Same rendering as an ostream's default (%g, 6 significant digits).
  Text& operator<<(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    s_ += buf;
    return *this;
  }
  Text& operator<<(float v) { return *this << static_cast<double>(v); }
  const std::string& str() const { return s_; }

 private:
  std::string s_;
};

}  // namespace origami
