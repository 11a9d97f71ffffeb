// libdeflate (Debian: libdeflate-dev): whole-buffer deflate, for the comparison in deflate-ceiling.
#include <libdeflate.h>
