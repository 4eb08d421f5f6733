// Must not compile: the request layer cannot see the presentation layer.
#include "report.h"
