// Names and parsing for the shared value types (types.hpp).
#include "text.hpp"
#include "types.hpp"

#include <cctype>

namespace origami {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
    case DType::Float32: return "float32";
    case DType::TFloat32: return "tfloat32";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view s) {
  std::string low;
  for (char c : s) low += char(std::tolower(static_cast<unsigned char>(c)));
  if (low.rfind("torch.", 0) == 0) low = low.substr(6);  // str(torch.float16)
  if (low == "float16" || low == "fp16" || low == "half" || low == "f16") return DType::Float16;
  if (low == "bfloat16" || low == "bf16") return DType::BFloat16;
  if (low == "float32" || low == "fp32" || low == "float" || low == "f32") return DType::Float32;
  if (low == "tfloat32" || low == "tf32") return DType::TFloat32;
  return std::nullopt;
}

std::string supported_dtypes() { return "float16, bfloat16, float32, tfloat32"; }

const char* family_name(Family f) {
  switch (f) {
    case Family::MmaSync: return "mma_sync";
    case Family::Wgmma: return "wgmma";
    case Family::Simt: return "simt";
  }
  return "?";
}

std::string TileConfig::to_string() const {
  Text os;
  os << family_name(family) << ' ' << block_m << 'x' << block_n << 'x' << block_k << " s" << stages << " w" << warps
     << " g" << group_size_m;
  if (split_k > 1) os << " sk" << split_k;
  if (swap_ab) os << " ab";
  return os.str();
}

const char* layout_name(bool a_k_contiguous, bool b_k_contiguous) {
  if (a_k_contiguous) return b_k_contiguous ? "nt" : "nn";
  return b_k_contiguous ? "tt" : "tn";
}

bool parse_layout(std::string_view s, bool& a_k_contiguous, bool& b_k_contiguous) {
  if (s.size() != 2) return false;
  auto letter = [](char c, bool& transposed) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (c != 'n' && c != 't') return false;
    transposed = c == 't';
    return true;
  };
  bool ta = false, tb = false;
  if (!letter(s[0], ta) || !letter(s[1], tb)) return false;
  a_k_contiguous = !ta;  // A row-major: K contiguous
  b_k_contiguous = tb;   // B transposed view: K contiguous
  return true;
}

}  // namespace origami
