/**
 * The newest schema this tel understands: how many migrations it knows (`MIGRATIONS` in
 * migrations.ts; test/cli/refused-files.test.ts keeps the two equal). A number of its own, apart
 * from the migrations, so that what only names it (`tel --version`, the program every command
 * builds) does not load 60 KB of SQL: 2 ms of `tel --help`.
 */
export const SCHEMA_VERSION = 41;
