// Result files are written whole or not at all: the text goes to "<path>.tmp.<pid>" and is renamed over
// <path> only after it was flushed and closed, so an interrupted run never leaves a half-written result. What is
// renamed over must be a regular file (checked at rename time; common/output_paths.hpp checks it before any work).
#pragma once
#include <cstdio>
#include <string>

namespace lynx {

// Writes `content` to `path` atomically (temporary file + rename). Throws LynxError naming the path on failure.
void write_file_atomic(const std::string& path, const std::string& content);

// Renames a finished temporary file over `path`, refusing (and removing the temporary) when `path` exists and is
// not a regular file; a LynxError names `shown` (default: `path`). The one rename of every writer that streams its own temporary
// file (requests.csv, the timeline) and of write_file_atomic.
void rename_into_place(const std::string& temporary, const std::string& path, const std::string& shown = "");

// Checks, before any work, that `path` can be written as a folder (is_directory) or a file: it is one already,
// or its nearest existing ancestor is a writable folder. Creates nothing; a LynxError names `option` and the
// reason (a regular file in the way, no permission).
void check_output_location(const std::string& path, bool is_directory, const char* option);

// Throws LynxError naming `path` unless it is an existing regular file (a folder, a FIFO that would hang the read,
// a device such as /dev/zero that never ends are refused before they are opened).
void check_input_file(const std::string& path);

// The one way lynxsim opens a file to read it (every reader calls one of these two): the path is opened without
// blocking (a FIFO with no writer would block a plain open forever), then the opened descriptor is checked to be a
// regular file, so nothing can change between the check and the read; a folder, FIFO, device (/dev/zero never ends)
// or socket is refused with a LynxError naming `path`, as is a file that cannot be opened. lynxsim reads no
// standard input: every input is a file it can check and hash. The descriptor is blocking again when returned.
int open_input_fd(const std::string& path);
// The same as a stdio stream ("rb"); the caller closes it.
std::FILE* open_input_file(const std::string& path);

// Reads a whole regular file; throws LynxError naming the path if it is not one or cannot be opened.
std::string read_file(const std::string& path);

}  // namespace lynx
