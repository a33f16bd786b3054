// The text of one member deep inside a JSON document, found without parsing the rest: a scan that follows strings
// (escapes included) and brackets only. For large files of which a run needs one entry: the accuracy file holds
// every KV format's statistics (0.7 MB for stories260k) and a simulation reads one format's 55 KB; parsing the
// whole file was a fifth of a one-request run's start-up. The caller parses the text it gets back (errors then
// name the entry; a caller that wants the whole file checked parses the whole file instead).
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
