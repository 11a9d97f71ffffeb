// Intel's ISA-L deflate (Debian: libisal-dev), for the deflate comparison in deflate-ceiling.
#include <isa-l/igzip_lib.h>

// The level buffer each level needs by default: the macros are expressions Swift does not import.
static inline uint32_t fhl_isal_level_buffer_size(uint32_t level) {
    switch (level) {
    case 1: return ISAL_DEF_LVL1_DEFAULT;
    case 2: return ISAL_DEF_LVL2_DEFAULT;
    case 3: return ISAL_DEF_LVL3_DEFAULT;
    default: return ISAL_DEF_LVL0_DEFAULT;
    }
}
