// The jq library (Debian: libjq-dev), as AWS's dynamic partitioning runs it (JQ-1.6).
#include <jq.h>
#include <jv.h>
