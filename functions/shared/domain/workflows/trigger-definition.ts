import type { FieldError } from '../../errors';
import { MAX_DYNADATA_TYPE_FILTER } from '../../types/events';
import { TRIGGER_EVENT_TYPES } from '../../types/workflow-triggers';
import { normaliseTypeSchema, validateAgainst } from '../dynadata/json-schema';
import { TYPE_NAME_PATTERN } from '../dynadata/types';

/**
 * Validation of a definition's `on` (its triggers), every violation with a JSON pointer: an object with
 * `events` (1 or more distinct event types of `TRIGGER_EVENT_TYPES`) and/or `schedule` (an EventBridge
 * Scheduler `rate(…)` or `cron(…)` expression, runs at least 5 minutes apart). A triggered run starts with
 * the input `{}`, so the definition's input schema must accept it. `dynadataTypes` narrows the
 * `dynadata.item.*` events of `events` to items of those types.
 */
const TRIGGER_KEYS = new Set(['events', 'dynadataTypes', 'schedule']);
const EVENT_TYPES: ReadonlySet<string> = new Set(TRIGGER_EVENT_TYPES);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const eventProblems = (events: unknown): FieldError[] => {
  if (!Array.isArray(events) || events.length === 0)
    return [{ pointer: '/on/events', message: 'must be a list of at least one event type' }];
  const seen = new Set<unknown>();
  return events.flatMap((type, i): FieldError[] => {
    const pointer = `/on/events/${i}`;
    if (typeof type !== 'string' || !EVENT_TYPES.has(type))
      return [{ pointer, message: `must be one of ${TRIGGER_EVENT_TYPES.join(', ')}` }];
    if (seen.has(type)) return [{ pointer, message: `repeats ${type}` }];
    seen.add(type);
    return [];
  });
};

/** `dynadataTypes`: distinct type names narrowing the `dynadata.item.*` events that `events` lists. */
const dynadataTypeProblems = (types: unknown, events: unknown): FieldError[] => {
  if (!Array.isArray(types) || types.length === 0 || types.length > MAX_DYNADATA_TYPE_FILTER)
    return [
      {
        pointer: '/on/dynadataTypes',
        message: `must be a list of 1 to ${MAX_DYNADATA_TYPE_FILTER} Dynadata type names`,
      },
    ];
  if (!Array.isArray(events) || !events.some((t) => typeof t === 'string' && t.startsWith('dynadata.item.')))
    return [
      { pointer: '/on/dynadataTypes', message: 'narrows only dynadata.item.* events, and events lists none' },
    ];
  const seen = new Set<unknown>();
  return types.flatMap((name, i): FieldError[] => {
    const pointer = `/on/dynadataTypes/${i}`;
    if (typeof name !== 'string' || !TYPE_NAME_PATTERN.test(name))
      return [{ pointer, message: 'must be a type name' }];
    if (seen.has(name)) return [{ pointer, message: `repeats ${name}` }];
    seen.add(name);
    return [];
  });
};

export const triggerProblems = async (
  doc: Record<string, unknown>,
  now: Date = new Date(),
): Promise<FieldError[]> => {
  const on = doc.on;
  if (on === undefined) return [];
  if (!isObject(on) || (on.events === undefined && on.schedule === undefined))
    return [{ pointer: '/on', message: 'must be an object with events, schedule or both' }];
  const problems: FieldError[] = Object.keys(on)
    .filter((key) => !TRIGGER_KEYS.has(key))
    .map((key) => ({
      pointer: `/on/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`,
      message: 'is not a trigger',
    }));
  if (on.events !== undefined) problems.push(...eventProblems(on.events));
  if (on.dynadataTypes !== undefined) problems.push(...dynadataTypeProblems(on.dynadataTypes, on.events));
  if (on.schedule !== undefined) {
    // The cron parser (about 33 KB) loads with the first schedule checked: most saves have none.
    const problem =
      typeof on.schedule === 'string'
        ? (await import('#lazy/schedule-expression')).scheduleProblem(on.schedule, now)
        : 'must be a string';
    if (problem) problems.push({ pointer: '/on/schedule', message: problem });
  }
  const input = await normaliseTypeSchema(doc.input ?? { type: 'object' });
  if (input.problems.length === 0 && (await validateAgainst(input.schema, {}, '/input')).length > 0) {
    problems.push({
      pointer: '/on',
      message:
        'a triggered run starts with the input {}: the input schema must accept it (no required fields)',
    });
  }
  return problems;
};
