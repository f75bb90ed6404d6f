// Package localworkspace is the daemon's own workspace owner: it serves
// byte reads, directory listings, file installs and tar exports of one
// bound local directory with the Go standard library, without an
// external helper process or a staging directory.
//
// Every path goes through an os.Root opened on the bound directory, so
// neither a `..` element nor a symbolic link (absolute or relative) can
// reach a file outside it. On top of that:
//
//   - a byte read refuses a symbolic link at the final component
//     (permission_denied) and anything that is not a regular file;
//     a file longer than max_bytes is answered truncated at the limit;
//     the answer is completed only after the file was closed;
//   - a listing needs a real directory (a missing path, a file or a
//     symbolic link is not_directory), sorts names, and marks the result
//     truncated when more entries exist than max_entries or when a name
//     cannot be carried (over 255 bytes, not UTF-8, or with \, CR, LF);
//   - a write goes to a fresh file beside the destination, is checked
//     against its declared size and SHA-256, and is renamed over the
//     destination; a destination directory is refused with
//     destination_directory, a symbolic link, special file or escaping
//     parent with unsafe_destination, always before anything changed;
//   - an export is one tar stream of directories, regular files and
//     symbolic links (stored as links, never followed), at most 528 MiB.
//
// Preparations is the read-only preparation profile's factory: its
// Prepared values are owners of the directory in
// agent.ExecutorConfig.WorkspaceRoot until Release.
package localworkspace
