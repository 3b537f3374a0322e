#include "text.hpp"
#include "json.hpp"

#include <cmath>
#include <cstdlib>

namespace origami::json {

Value Value::make_bool(bool b) { Value v; v.kind_ = Kind::Bool; v.b_ = b; return v; }
Value Value::make_number(double d) { Value v; v.kind_ = Kind::Number; v.d_ = d; return v; }
Value Value::make_string(std::string s) { Value v; v.kind_ = Kind::String; v.s_ = std::move(s); return v; }
Value Value::make_array(std::vector<Value> a) {
  Value v; v.kind_ = Kind::Array; v.a_ = std::make_shared<std::vector<Value>>(std::move(a)); return v;
}
Value Value::make_object(std::map<std::string, Value> o) {
  Value v; v.kind_ = Kind::Object; v.o_ = std::make_shared<std::map<std::string, Value>>(std::move(o)); return v;
}

const char* kind_name(Value::Kind k) {
  switch (k) {
    case Value::Kind::Null: return "null";
    case Value::Kind::Bool: return "boolean";
    case Value::Kind::Number: return "number";
    case Value::Kind::String: return "string";
    case Value::Kind::Array: return "array";
    case Value::Kind::Object: return "object";
  }
  return "?";
}

static void expect_kind(const Value& v, Value::Kind k) {
  if (v.kind() != k)
    throw JsonError(std::string("expected a JSON ") + kind_name(k) + ", found " + kind_name(v.kind()));
}
bool Value::as_bool() const { expect_kind(*this, Kind::Bool); return b_; }
double Value::as_number() const { expect_kind(*this, Kind::Number); return d_; }
const std::string& Value::as_string() const { expect_kind(*this, Kind::String); return s_; }
const std::vector<Value>& Value::as_array() const { expect_kind(*this, Kind::Array); return *a_; }
const std::map<std::string, Value>& Value::as_object() const { expect_kind(*this, Kind::Object); return *o_; }
const Value* Value::find(const std::string& key) const {
  if (kind_ != Kind::Object) return nullptr;
  auto it = o_->find(key);
  return it == o_->end() ? nullptr : &it->second;
}

namespace {

class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}

  Value document() {
    skip_ws();
    Value v = value(0);
    skip_ws();
    if (i_ != t_.size()) fail("unexpected trailing characters");
    return v;
  }

 private:
  const std::string& t_;
  size_t i_ = 0;

  [[noreturn]] void fail(const std::string& what) const {
    size_t line = 1, col = 1;
    for (size_t k = 0; k < i_ && k < t_.size(); ++k) {
      if (t_[k] == '\n') { ++line; col = 1; } else { ++col; }
    }
    Text os;
    os << what << " at line " << line << ", column " << col;
    throw JsonError(os.str());
  }
  void skip_ws() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    if (i_ < t_.size() && t_[i_] == c) { ++i_; return true; }
    return false;
  }
  void literal(const char* word) {
    for (const char* p = word; *p; ++p) {
      if (i_ >= t_.size() || t_[i_] != *p) fail(std::string("invalid literal (expected '") + word + "')");
      ++i_;
    }
  }

  Value value(int depth) {
    if (depth > 200) fail("nesting too deep");
    if (i_ >= t_.size()) fail("unexpected end of input");
    char c = t_[i_];
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (c == '"') return Value::make_string(string());
    if (c == 't') { literal("true"); return Value::make_bool(true); }
    if (c == 'f') { literal("false"); return Value::make_bool(false); }
    if (c == 'n') { literal("null"); return Value(); }
    if (c == '-' || (c >= '0' && c <= '9')) return Value::make_number(number());
    fail(std::string("unexpected character '") + c + "'");
  }

  Value object(int depth) {
    ++i_;  // {
    std::map<std::string, Value> out;
    skip_ws();
    if (eat('}')) return Value::make_object(std::move(out));
    for (;;) {
      skip_ws();
      if (i_ >= t_.size() || t_[i_] != '"') fail("expected a string key");
      std::string key = string();
      skip_ws();
      if (!eat(':')) fail("expected ':' after key \"" + key + "\"");
      skip_ws();
      Value v = value(depth + 1);
      if (out.count(key)) fail("duplicate key \"" + key + "\"");
      out.emplace(std::move(key), std::move(v));
      skip_ws();
      if (eat(',')) continue;
      if (eat('}')) break;
      fail("expected ',' or '}' in object");
    }
    return Value::make_object(std::move(out));
  }

  Value array(int depth) {
    ++i_;  // [
    std::vector<Value> out;
    skip_ws();
    if (eat(']')) return Value::make_array(std::move(out));
    for (;;) {
      skip_ws();
      out.push_back(value(depth + 1));
      skip_ws();
      if (eat(',')) continue;
      if (eat(']')) break;
      fail("expected ',' or ']' in array");
    }
    return Value::make_array(std::move(out));
  }

  static void put_utf8(std::string& s, unsigned cp) {
    if (cp < 0x80) s += char(cp);
    else if (cp < 0x800) { s += char(0xC0 | (cp >> 6)); s += char(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) {
      s += char(0xE0 | (cp >> 12)); s += char(0x80 | ((cp >> 6) & 0x3F)); s += char(0x80 | (cp & 0x3F));
    } else {
      s += char(0xF0 | (cp >> 18)); s += char(0x80 | ((cp >> 12) & 0x3F));
      s += char(0x80 | ((cp >> 6) & 0x3F)); s += char(0x80 | (cp & 0x3F));
    }
  }
  unsigned hex4() {
    if (i_ + 4 > t_.size()) fail("truncated \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = t_[i_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= unsigned(c - 'A' + 10);
      else fail("invalid hex digit in \\u escape");
    }
    return v;
  }
  std::string string() {
    ++i_;  // "
    std::string out;
    for (;;) {
      if (i_ >= t_.size()) fail("unterminated string");
      char c = t_[i_++];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') { out += c; continue; }
      if (i_ >= t_.size()) fail("unterminated escape");
      char e = t_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00) {
            if (!(eat('\\') && eat('u'))) fail("unpaired surrogate in \\u escape");
            unsigned lo = hex4();
            if (lo < 0xDC00 || lo >= 0xE000) fail("invalid low surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          put_utf8(out, cp);
          break;
        }
        default: fail(std::string("invalid escape '\\") + e + "'");
      }
    }
    return out;
  }
  double number() {
    size_t start = i_;
    eat('-');
    if (eat('0')) {
    } else if (i_ < t_.size() && t_[i_] >= '1' && t_[i_] <= '9') {
      while (i_ < t_.size() && isdigit(static_cast<unsigned char>(t_[i_]))) ++i_;
    } else {
      fail("invalid number");
    }
    if (eat('.')) {
      if (i_ >= t_.size() || !isdigit(static_cast<unsigned char>(t_[i_]))) fail("invalid number: digit expected after '.'");
      while (i_ < t_.size() && isdigit(static_cast<unsigned char>(t_[i_]))) ++i_;
    }
    if (i_ < t_.size() && (t_[i_] == 'e' || t_[i_] == 'E')) {
      ++i_;
      if (!eat('+')) eat('-');
      if (i_ >= t_.size() || !isdigit(static_cast<unsigned char>(t_[i_]))) fail("invalid number: digit expected in exponent");
      while (i_ < t_.size() && isdigit(static_cast<unsigned char>(t_[i_]))) ++i_;
    }
    std::string s = t_.substr(start, i_ - start);
    // strtod is locale-dependent for the decimal point; JSON numbers use '.', and the C locale
    // is what Python extension modules run under unless the host changed LC_NUMERIC.
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) fail("invalid number '" + s + "'");
    if (!std::isfinite(d)) fail("number out of range '" + s + "'");
    return d;
  }
};

}  // namespace

Value parse(const std::string& text) { return Parser(text).document(); }

}  // namespace origami::json
