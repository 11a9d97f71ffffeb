// libdeflate (Debian: libdeflate-dev): whole-buffer deflate. GZIP objects compressed in one call at
// delivery (GzipImplementation: libdeflate), and deflate-ceiling's comparison with zlib.
#include <libdeflate.h>
