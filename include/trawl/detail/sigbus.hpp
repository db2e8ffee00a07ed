// trawl/detail/sigbus.hpp — the CLI's guards against files that shrink while mapped and
// signals that cut a file's write short. A
// process-wide signal handler is the application's business, not a library's: this is for
// trawl's own programs and tests. Not installed and not part of the API (see docs/API.md).
#pragma once

namespace trawl::io {

/// Makes a file that shrinks while mapped readable as zero bytes instead of killing the
/// process with SIGBUS, and records that it happened (see sigbus_seen()). Installs a
/// process-wide SIGBUS handler, so it is only called by applications, once, at start-up.
void install_sigbus_guard();
/// True once a guarded SIGBUS has happened: results computed since may rest on zeros.
bool sigbus_seen() noexcept;

/// Makes SIGINT, SIGTERM, SIGHUP and SIGXFSZ (a file-size limit) remove the temporary file of a
/// write_file_atomically in progress before they end the process as they would have: an
/// interrupted write leaves neither a partial file nor a stray temporary. Installs
/// process-wide handlers, so it is only called by applications, once, at start-up.
void install_interrupt_cleanup();

}  // namespace trawl::io
