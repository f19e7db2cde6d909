/*
 * The one native piece of tel: what a server's memory tidy (src/http/native-memory.ts) asks of the
 * system that Node cannot.
 *
 * trim(): hands the free memory in glibc's heaps back to the system (malloc_trim). glibc gives back
 * only the free top of a heap when a block is freed; what a burst of large bodies leaves free below
 * memory still in use stays resident until a trim. Answers whether any memory was given back.
 *
 * releaseCode(): takes out of the process's resident set the pages of its own executable's
 * read-only mappings (machine code and constants). Each page fault maps the pages around it too
 * (the kernel's fault-around), so start-up leaves most of Node's 40 MB of code mapped while a
 * server runs a fraction of it. The pages stay in the system's page cache: those the server runs
 * again come back at the next touch (a minor fault, no read). Only mappings that cannot hold a
 * page of the process's own are touched: private, not writable, backed by the executable, inside
 * one of the main program's read-only segments (not the dynamic loader's, when Node was started
 * through it) and outside its relocation-read-only segment (written by the loader before it was
 * made read-only); code Node moved to anonymous memory (--use-largepages) is not backed by the
 * file and is left.
 * Answers the bytes of address space released.
 */
#define _GNU_SOURCE
#include <link.h>
#include <malloc.h>
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value released;
  napi_get_boolean(env, malloc_trim(0) == 1, &released);
  return released;
}

struct range {
  uintptr_t start, end;
};

/* The most read-only segments of the main program kept (ELF executables have two to four). */
#define MAX_SEGMENTS 16

/* The main program's read-only loaded segments, and its relocation-read-only range. */
struct program {
  struct range read_only[MAX_SEGMENTS];
  int segments;
  struct range relro;
};

/* Reads the main program's segments: the first object dl_iterate_phdr reports. */
static int segments_of_main(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct program *program = data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    struct range range = {info->dlpi_addr + ph->p_vaddr, info->dlpi_addr + ph->p_vaddr + ph->p_memsz};
    if (ph->p_type == PT_GNU_RELRO) program->relro = range;
    else if (ph->p_type == PT_LOAD && !(ph->p_flags & PF_W) && program->segments < MAX_SEGMENTS) program->read_only[program->segments++] = range;
  }
  return 1;
}

/* Whether [start, end) lies inside one of the main program's read-only segments (page-rounded). */
static int inside_read_only_segment(const struct program *program, uintptr_t start, uintptr_t end, uintptr_t page) {
  for (int i = 0; i < program->segments; i++) {
    uintptr_t from = program->read_only[i].start & ~(page - 1);
    uintptr_t to = (program->read_only[i].end + page - 1) & ~(page - 1);
    if (from <= start && end <= to) return 1;
  }
  return 0;
}

static napi_value release_code(napi_env env, napi_callback_info info) {
  (void)info;
  double released = 0;
  char exe[4096];
  ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
  struct program program = {.segments = 0};
  dl_iterate_phdr(segments_of_main, &program);
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t relro_start = program.relro.start & ~(page - 1);
  uintptr_t relro_end = (program.relro.end + page - 1) & ~(page - 1);
  FILE *maps = length > 0 ? fopen("/proc/self/maps", "re") : NULL;
  if (maps) {
    exe[length] = '\0';
    char line[4352];
    while (fgets(line, sizeof line, maps)) {
      unsigned long start, end, offset, inode;
      char perms[5], device[32];
      int path_at = 0;
      if (sscanf(line, "%lx-%lx %4s %lx %31s %lu %n", &start, &end, perms, &offset, device, &inode, &path_at) < 6 || path_at == 0) continue;
      char *path = line + path_at;
      path[strcspn(path, "\n")] = '\0';
      int read_only_private = perms[1] == '-' && perms[3] == 'p';
      int overlaps_relro = start < relro_end && relro_start < end;
      if (!read_only_private || overlaps_relro || strcmp(path, exe) != 0) continue;
      /* the main program's own (not the loader's, when the program was started through it) */
      if (!inside_read_only_segment(&program, start, end, page)) continue;
      if (madvise((void *)start, end - start, MADV_DONTNEED) == 0) released += (double)(end - start);
    }
    fclose(maps);
  }
  napi_value result;
  napi_create_double(env, released, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, trim, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "releaseCode", NAPI_AUTO_LENGTH, release_code, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "releaseCode", fn) != napi_ok) return NULL;
  return exports;
}
