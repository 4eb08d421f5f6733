// Must not compile: the request layer cannot see the CLI.
#include "flags.h"
