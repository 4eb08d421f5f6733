# The request layer's headers live under include/modelcalc/app, on the include
# path every layer sees, so the include-path probes cannot catch the core
# including them; this scan does. It also holds the front ends apart: nothing
# under src/python or src/web includes a src/cli header (issue #30), once
# those front ends stand on the request layer alone (MODELCALC_SKIN_CHECK).
# Run by ctest as layering_app. Arguments: -DSOURCE_DIR.
file(GLOB core_files ${SOURCE_DIR}/include/modelcalc/*.h ${SOURCE_DIR}/src/core/*.h ${SOURCE_DIR}/src/core/*.cc)
set(bad "")
foreach(f ${core_files})
  file(STRINGS ${f} hits REGEX "^[ \t]*#[ \t]*include[ \t]*\"modelcalc/app/")
  if(hits)
    list(APPEND bad ${f})
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "the core includes the request layer (modelcalc/app/): ${bad}")
endif()
