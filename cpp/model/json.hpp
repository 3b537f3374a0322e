// A small JSON reader (RFC 8259 subset sufficient for configuration files: objects, arrays,
// strings with escapes incl. \uXXXX to UTF-8, numbers, true/false/null). No dependencies.
// Errors throw JsonError with the 1-based line and column.
#pragma once
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace origami::json {

struct JsonError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Value {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Value() = default;
  static Value make_bool(bool b);
  static Value make_number(double d);
  static Value make_string(std::string s);
  static Value make_array(std::vector<Value> a);
  static Value make_object(std::map<std::string, Value> o);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::Null; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_number() const { return kind_ == Kind::Number; }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_object() const { return kind_ == Kind::Object; }

  bool as_bool() const;
  double as_number() const;
  const std::string& as_string() const;
  const std::vector<Value>& as_array() const;
  const std::map<std::string, Value>& as_object() const;

  // Object member or nullptr.
  const Value* find(const std::string& key) const;

 private:
  Kind kind_ = Kind::Null;
  bool b_ = false;
  double d_ = 0.0;
  std::string s_;
  std::shared_ptr<std::vector<Value>> a_;
  std::shared_ptr<std::map<std::string, Value>> o_;
};

const char* kind_name(Value::Kind k);

// Parse a whole document (trailing non-space is an error). Duplicate object keys are an error.
Value parse(const std::string& text);

}  // namespace origami::json
