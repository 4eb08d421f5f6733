// Must compile: the presentation layer renders the request layer's answers.
#include "modelcalc/app/answers.h"
