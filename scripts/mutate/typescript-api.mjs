// Loaded into Stryker's own process (`npm run mutate`) and its type checker's (`checkerNodeArgs`
// in stryker.config.mjs). Both call TypeScript's JavaScript compiler API (to read tsconfig.json,
// to check mutants), which TypeScript 7 (the project's `typescript`, a native compiler) no longer
// has: their `typescript` is TypeScript 6 (the dev dependency `typescript6`), which reads and
// checks the same code the same way.
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/@stryker-mutator/')) {
      return next('typescript6', context);
    }
    return next(specifier, context);
  },
});
