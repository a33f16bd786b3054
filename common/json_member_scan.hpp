// The text of one member deep inside a JSON document, found without parsing the rest: a scan that follows strings
// (escapes included) and brackets only. For large files of which a run needs one entry: the accuracy file holds
// every KV format's statistics (0.7 MB for stories260k) and a simulation reads one format's 55 KB. The caller parses
// the text it gets back (errors then name the entry; a caller that wants the whole file checked parses the whole
// file instead: the plain way, which the simulation falls back to where the scan finds nothing).
// Measured (callgrind, instructions): reading the lynx-a4r4-g64 entry of models/accuracy/stories260k.json by this
// scan and nlohmann's parse of the entry takes 15.5 M; nlohmann's parse of the whole file 177 M; a whole one-request
// simulation of experiments/configs/mooncake_8x8_h200_100g.json (`--set workload.first_n=1`) takes 138 M with the
// scan, 290 M with the whole file parsed instead, and 0.68x the CPU time of the latter (median of 15 alternated
// pairs, whole processes). Reproduce: make accuracy_model (sim/config/simulation_setup.cpp) skip the scan.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace lynx {

// The raw text of the object or array at root[keys[0]][keys[1]]... (each step an object member, keys compared as
// they are written, without unescaping); empty if the document is not objects down that path, a step is missing,
// the value there is not an object or array, or the brackets do not close.
std::string_view json_member_text(std::string_view text, const std::vector<std::string>& keys);

}  // namespace lynx
