/*
 * trim(): hands the free memory in glibc's heaps back to the system (malloc_trim), for a server's
 * memory tidy (src/http/malloc-trim.ts). glibc gives back only the free top of a heap when a block
 * is freed; what a burst of large bodies leaves free below memory still in use stays resident
 * until a trim. Answers whether any memory was given back.
 */
#include <malloc.h>
#include <node_api.h>

static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value released;
  napi_get_boolean(env, malloc_trim(0) == 1, &released);
  return released;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, trim, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", fn) != napi_ok) return NULL;
  return exports;
}
