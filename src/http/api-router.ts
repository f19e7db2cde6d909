import { MODULES } from '../modules/index.js';
import { buildRouter, type Router } from './router.js';

let router: Router | undefined;

/** The router of every module (built once per process; matching a path needs no server). */
export function apiRouter(): Router {
  router ??= buildRouter(MODULES);
  return router;
}
