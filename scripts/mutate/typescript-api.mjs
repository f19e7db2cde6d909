// Loaded into Stryker's type-checker process (`checkerNodeArgs` in stryker.config.mjs).
// The checker drives TypeScript's JavaScript compiler API, which TypeScript 7 (the project's
// `typescript`, a native compiler) no longer has: the checker's `typescript` is TypeScript 6
// (the dev dependency `typescript6`), which checks the same code the same way.
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/@stryker-mutator/')) {
      return next('typescript6', context);
    }
    return next(specifier, context);
  },
});
