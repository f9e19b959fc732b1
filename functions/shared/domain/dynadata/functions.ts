import type { AuthContext } from '../../types/auth';
import type { Scope } from '../../types/scopes';
import type * as z from '../../zod';

/**
 * The registry of Dynadata functions (`executeFunction`). A function is bound to a type (`typeNames`, or
 * `'*'` for every type) and runs either on the type or on one item. It declares its scope, its input schema
 * (zod; violations answer 400 with pointers under `/body`) and its implementation. Built-ins:
 *
 * - `count` (every type, on the type): number of items, honouring an optional `filter` (the list filter).
 * - `sendMessage` (contacts, on an item): sends a message to that contact, as `send_message` does.
 *
 * Later capabilities (workflows) bind their own functions with `registerDynadataFunction`; a custom type
 * lists the names of registered functions it offers (`types put --functions a,b`).
 */
export interface FunctionContext {
  companyId: string;
  auth: AuthContext;
  typeName: string;
  itemId?: string;
  requestId: string;
  now: Date;
}

export interface DynadataFunction {
  name: string;
  description: string;
  target: 'type' | 'item';
  /** Type names the function is available on; `'*'` for every type. */
  typeNames: string[] | '*';
  scope: Scope;
  /** Further scopes the caller must hold (a function that does what another route does needs its scope too). */
  alsoRequires?: Scope[];
  input: z.ZodType;
  /** Answers a JSON object, the shape the function routes declare (`executeFunctionResponse`). */
  run: (input: unknown, ctx: FunctionContext) => Promise<{ status?: number; body: Record<string, unknown> }>;
}

const registry = new Map<string, DynadataFunction>();

export const registerDynadataFunction = (fn: DynadataFunction): void => {
  registry.set(fn.name, fn);
};

export const findDynadataFunction = (
  typeName: string,
  declared: string[],
  name: string,
  target: 'type' | 'item',
): DynadataFunction | undefined => {
  const fn = registry.get(name);
  if (!fn || fn.target !== target) return undefined;
  const bound = fn.typeNames === '*' || fn.typeNames.includes(typeName) || declared.includes(name);
  return bound ? fn : undefined;
};

/** Names of the functions a type offers (for `GET /v1/dynadata/types`). */
export const functionsOfType = (typeName: string, declared: string[]): string[] =>
  [...registry.values()]
    .filter((fn) => fn.typeNames === '*' || fn.typeNames.includes(typeName) || declared.includes(fn.name))
    .map((fn) => fn.name)
    .sort();

export const registeredFunctionNames = (): string[] => [...registry.keys()].sort();
