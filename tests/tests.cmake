# Test scripts run by ctest beside the GoogleTest binary (included from CMakeLists.txt).

# Headless Chromium renders `size --report`'s HTML page: no console messages,
# the SVG in the DOM, a screenshot that is not blank. Skips (exit 77) only
# where chromium is not installed; scripts/setup.sh --test installs it.
add_test(NAME browser_report
         COMMAND ${PROJECT_SOURCE_DIR}/tests/browser_test.sh $<TARGET_FILE:modelcalc>)
set_tests_properties(browser_report PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
