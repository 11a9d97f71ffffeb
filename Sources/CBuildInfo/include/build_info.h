#ifndef FIREHOSE_LOCAL_BUILD_INFO_H
#define FIREHOSE_LOCAL_BUILD_INFO_H

/// The commit the binary was built from: what scripts/package passed in FIREHOSE_LOCAL_COMMIT
/// (through Package.swift), or the empty string for a build that was not given one.
const char *firehose_local_build_commit(void);

#endif
