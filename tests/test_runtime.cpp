#include "cltest.h"
GST_START_TEST (test_placeholder) { } GST_END_TEST
static Suite *runtime_suite (void) { Suite *s = suite_create ("runtime"); TCase *tc = tcase_create ("general"); suite_add_tcase (s, tc); tcase_add_test (tc, test_placeholder); return s; }
GST_CHECK_MAIN (runtime);
