// Number formatting that cannot be broken by another library's C++ locale.
//
// Why: on the GPU machines' image, formatting an integer through a std::ostream crashed the process
// (strings streamed fine) once torch and its CUDA libraries were loaded: the stream's locale (copied from
// the process-global one at construction) carried facets registered by another copy of libstdc++, so
// num_put lookups landed on the wrong facet (the pattern of pytorch/pytorch#109923 and
// pybind/pybind11#3206). Every stream the model formats numbers into is imbued with the classic locale,
// which belongs to the libstdc++ we link, before anything is written to it.
#pragma once
#include <locale>
#include <sstream>

namespace origami {

inline std::ostringstream classic_ostream() {
  std::ostringstream os;
  os.imbue(std::locale::classic());
  return os;
}

}  // namespace origami
