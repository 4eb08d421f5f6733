// Must not compile: core cannot see the CLI layer.
#include "flags.h"
