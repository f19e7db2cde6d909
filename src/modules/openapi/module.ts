import type { TelModule } from '../types.js';

let served: Buffer | undefined;

/** `GET /v2/openapi.json` (no token): the OpenAPI document of every route, made once per process. */
export const openApiModule: TelModule = {
  name: 'openapi',
  endpoints: ['openapi.json'],
  routes: [
    {
      method: 'GET',
      path: 'openapi.json',
      auth: 'none',
      raw: 'application/json',
      handler: async () => {
        if (!served) {
          // loaded when asked: the module list includes this module
          const [{ MODULES }, { openApiDocument }] = await Promise.all([import('../index.js'), import('../../openapi/document.js')]);
          served = Buffer.from(JSON.stringify(openApiDocument(MODULES)));
        }
        return { file: served, headers: { 'Content-Type': 'application/json' } };
      },
    },
  ],
};
