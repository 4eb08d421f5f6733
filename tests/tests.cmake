# Test scripts run by ctest beside the GoogleTest binary (included from CMakeLists.txt).

# Headless Chromium renders `size --report`'s HTML page: no console messages,
# the SVG in the DOM, a screenshot that is not blank. Skips (exit 77) only
# where chromium is not installed; scripts/setup.sh --test installs it.
add_test(NAME browser_report
         COMMAND ${PROJECT_SOURCE_DIR}/tests/browser_test.sh $<TARGET_FILE:modelcalc>)
set_tests_properties(browser_report PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

# The installable library: `cmake --install` to a temporary prefix, then the
# README's example built against it with find_package(modelcalc) (tests/install.cmake).
# Not in sanitized builds: their static library needs the sanitizer runtime in
# whatever links it, and the package this checks is the release one.
if(NOT MODELCALC_SANITIZE AND NOT MODELCALC_BUILD_FUZZ)
  add_test(NAME install_package
           COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                   -DWORK_DIR=${PROJECT_BINARY_DIR}/install_test -P ${PROJECT_SOURCE_DIR}/tests/install.cmake)
  set_tests_properties(install_package PROPERTIES TIMEOUT 300)
endif()
