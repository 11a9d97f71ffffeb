#include "build_info.h"

// A C string, because a Swift compilation condition cannot carry a value: Package.swift defines
// this macro for this file alone, so a new commit recompiles one file, not the package.
#ifndef FIREHOSE_LOCAL_COMMIT
#define FIREHOSE_LOCAL_COMMIT ""
#endif

const char *firehose_local_build_commit(void) { return FIREHOSE_LOCAL_COMMIT; }
