// Snappy's C interface (Debian: libsnappy-dev), for the Snappy and HADOOP_SNAPPY compression formats.
#include <snappy-c.h>
