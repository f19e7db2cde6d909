/** How many JSON Schemas this process has compiled: `tel --help` and other short commands compile none they do not use. */
let compilations = 0;

/** Counts schemas just compiled. */
export function noteCompilation(count = 1): void {
  compilations += count;
}

/** The number of schemas compiled so far in this process. */
export function schemaCompilations(): number {
  return compilations;
}
