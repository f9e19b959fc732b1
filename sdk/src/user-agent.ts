import { PACKAGE_NAME, PACKAGE_VERSION } from './generated/package.js';

/**
 * The `User-Agent` every request of the client carries: the SDK and its version (from `package.json`, written
 * at build time), then the runtime, e.g. `messaging-dynadata-api-sdk/0.2.0 node/20.19.0`. The API records it
 * in the company's audit trail (`log_entries.userAgent`), so a request can be traced to the SDK's version.
 */
const product = `${PACKAGE_NAME.replace(/^@/, '').replace('/', '-')}/${PACKAGE_VERSION}`;
const node = typeof process === 'object' ? process.versions?.node : undefined;

export const USER_AGENT = node === undefined ? product : `${product} node/${node}`;
