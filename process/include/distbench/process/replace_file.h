// Writing a file whole, by rename, without following anything planted where
// it is written. distbench often runs as root (a local run with --links or
// --slow) in directories others can write (/tmp), so a predictable temporary
// name such as PATH.partial could be a symbolic link to any file on the
// machine: opening it would overwrite that file with a report.
#pragma once

#include <string>

namespace distbench::process {

// Replaces `path` with `text`: writes a new sibling (an unguessable name,
// created with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0644) and renames it over
// `path`, so a reader sees the old file or the new one, never half of one, and
// a failed write leaves the old file as it was. Refuses a `path` that is a
// symbolic link or not a regular file. Throws std::runtime_error naming
// `path`: "cannot write PATH: <reason>" or "refusing to write PATH: ...".
void replaceFile(const std::string& path, const std::string& text);

}  // namespace distbench::process
