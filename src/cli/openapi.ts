import type { Command } from 'commander';
import { MODULES } from '../modules/index.js';
import { openApiDocument } from '../openapi/document.js';
import type { CliIo } from './io.js';

/** `tel openapi`: the OpenAPI 3.1 document a server answers at `GET /v2/openapi.json`. */
export function defineOpenApi(openapi: Command, io: CliIo): void {
  openapi
    .addHelpText(
      'after',
      `
Examples:
  $ tel openapi > openapi.json                 for a client generator or an API explorer
  $ tel openapi | jq '.paths | keys | length'  how many paths tel serves

Made from the routes tel serves and the JSON Schemas their handlers validate with: every path and
method, its parameters, its body ({data: …}), the envelope, the error answers, X-Auth-Token.`,
    )
    .action(() => {
      io.out(JSON.stringify(openApiDocument(MODULES), null, 2));
    });
}
