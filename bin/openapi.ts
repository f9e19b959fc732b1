import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../functions/shared/http/openapi';

// `npm run openapi [-- <file>] [--server URL]`: writes the OpenAPI 3.0 document generated from the route table.
const args = process.argv.slice(2);
const serverIndex = args.indexOf('--server');
const server = serverIndex >= 0 ? args[serverIndex + 1] : undefined;
const file =
  args.find((a, i) => !a.startsWith('--') && (serverIndex < 0 || i !== serverIndex + 1)) ?? 'openapi.json';
writeFileSync(file, `${JSON.stringify(buildOpenApiDocument(server), null, 2)}\n`);
process.stdout.write(`wrote ${file}\n`);
