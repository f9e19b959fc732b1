import { OPERATIONS } from './generated/operations.js';
import type { OperationId } from './operation-types.js';

/**
 * Finds the operation a request is for, from its method and URL, in the table generated from the document.
 * The request layer sees only a `Request` (whatever built it: the typed client, the iterator, the caller's
 * own middleware), so it matches the URL's path against the document's path templates, literal segments
 * before parameters, anchored at the end so that a base URL with a path of its own (a custom domain's base
 * path mapping) still matches.
 */

export type OperationFacts = (typeof OPERATIONS)[OperationId];

interface Matcher {
  id: OperationId;
  method: string;
  pattern: RegExp;
  parameters: number;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

const isOperationId = (id: string): id is OperationId => id in OPERATIONS;

const matchers: Matcher[] = Object.keys(OPERATIONS)
  .filter(isOperationId)
  .map((id) => {
    const { method, path } = OPERATIONS[id];
    const parts = path.split(/\{[^{}]+\}/);
    return {
      id,
      method: method.toUpperCase(),
      pattern: new RegExp(`${parts.map(escapeRegExp).join('[^/]+')}$`),
      parameters: parts.length - 1,
    };
  })
  .sort((a, b) => a.parameters - b.parameters);

/** The operation of a request, or undefined for a URL the document does not describe. */
export const operationOf = (method: string, url: string): OperationFacts | undefined => {
  const { pathname } = new URL(url);
  const found = matchers.find((m) => m.method === method.toUpperCase() && m.pattern.test(pathname));
  return found === undefined ? undefined : OPERATIONS[found.id];
};

/** The facts of an operation by id. */
export const operationFacts = <Id extends OperationId>(id: Id): (typeof OPERATIONS)[Id] => OPERATIONS[id];
