// Must not compile: the presentation layer cannot see the CLI layer.
#include "flags.h"
