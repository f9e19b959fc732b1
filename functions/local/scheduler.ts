import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nextScheduleTimes, parseScheduleExpression } from '../shared/domain/workflows/schedule-expression';
import type { RunningService } from './dynamodb-local';
import { writeFileAtomically } from './state-file';

/**
 * The local stack's EventBridge Scheduler: an endpoint on loopback speaking the part of the Scheduler API
 * the platform calls (`CreateSchedule`, `UpdateSchedule`, `DeleteSchedule`, `GetSchedule`; REST JSON), the
 * schedules kept in a file under the data directory, and a clock that invokes each schedule's target when
 * it is due, with `<aws.scheduler.scheduled-time>` in its input replaced by the due time, as EventBridge
 * Scheduler does. Expressions mean what they mean there (`schedule-expression.ts`, UTC; a rate counts from
 * the schedule's creation). With `everyMs` (`npm start -- --schedule-every 2s`) every schedule is due that
 * often instead, so tests see schedules fire in seconds. A one-time schedule (`at(yyyy-mm-ddThh:mm:ss)`, UTC)
 * fires once at its time whatever `everyMs`, and is deleted then when it was created with
 * `ActionAfterCompletion: DELETE`. A stack that is down misses the times that fall while it is down; nothing is
 * fired late for them.
 */
export interface StoredSchedule {
  name: string;
  group: string;
  expression: string;
  targetArn: string;
  input: string;
  createdAt: string;
  /** `ActionAfterCompletion: DELETE`: a one-time schedule is deleted once it has fired. */
  deleteAfterCompletion?: boolean;
}

export interface LocalSchedulerOptions {
  file: string;
  /** Invokes a schedule's target (the local stack maps the target's ARN to its handler). */
  invoke: (targetArn: string, input: string) => Promise<void>;
  /** Every schedule is due this often (ms) instead of by its expression. */
  everyMs?: number;
  onError?: (error: unknown, schedule: StoredSchedule) => void;
}

class SchedulerError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const TICK_MS = 250;
const AT_EXPRESSION = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/;

/** The time of a one-time schedule's `at(…)` expression (UTC), or undefined for any other expression. */
const oneTimeAt = (expression: string): number | undefined => {
  const match = AT_EXPRESSION.exec(expression);
  return match ? Date.parse(`${match[1]}Z`) : undefined;
};
const SCHEDULED_TIME = /<aws\.scheduler\.scheduled-time>/g;

const readBody = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
};

export const startLocalScheduler = async (
  options: LocalSchedulerOptions,
): Promise<RunningService & { schedules: () => StoredSchedule[] }> => {
  const schedules = new Map<string, StoredSchedule>(
    existsSync(options.file)
      ? (JSON.parse(readFileSync(options.file, 'utf8')) as StoredSchedule[]).map((s) => [
          `${s.group}/${s.name}`,
          s,
        ])
      : [],
  );
  const persist = () => {
    writeFileAtomically(options.file, JSON.stringify([...schedules.values()], null, 2));
  };
  /** The next due time of each schedule, from now on (times that fell while the stack was down are missed). */
  const due = new Map<string, number>();
  const nextDue = (schedule: StoredSchedule, after: number): number | undefined => {
    const at = oneTimeAt(schedule.expression);
    if (at !== undefined) return at > after ? at : undefined;
    if (options.everyMs) return after + options.everyMs;
    const parsed = parseScheduleExpression(schedule.expression);
    if ('problem' in parsed) return undefined;
    if (parsed.kind === 'rate') {
      const anchor = Date.parse(schedule.createdAt);
      return anchor + (Math.floor((after - anchor) / parsed.everyMs) + 1) * parsed.everyMs;
    }
    return nextScheduleTimes(parsed, new Date(after), 1)[0]?.getTime();
  };
  const arm = (key: string, schedule: StoredSchedule, after: number) => {
    const at = nextDue(schedule, after);
    if (at === undefined) due.delete(key);
    else due.set(key, at);
  };
  for (const [key, schedule] of schedules) arm(key, schedule, Date.now());

  const fire = (schedule: StoredSchedule, at: number) => {
    const time = new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
    options
      .invoke(schedule.targetArn, schedule.input.replace(SCHEDULED_TIME, time))
      .catch((error: unknown) => options.onError?.(error, schedule));
  };
  const timer = setInterval(() => {
    const now = Date.now();
    for (const [key, at] of due) {
      const schedule = schedules.get(key);
      if (!schedule || at > now) continue;
      fire(schedule, at);
      if (schedule.deleteAfterCompletion && oneTimeAt(schedule.expression) !== undefined) {
        schedules.delete(key);
        due.delete(key);
        persist();
        continue;
      }
      arm(key, schedule, Math.max(at, now));
    }
  }, TICK_MS);
  timer.unref();

  const put = (name: string, body: Record<string, unknown>, create: boolean) => {
    const group = typeof body.GroupName === 'string' ? body.GroupName : 'default';
    const key = `${group}/${name}`;
    if (create && schedules.has(key)) throw new SchedulerError(409, 'ConflictException', `${name} exists`);
    if (!create && !schedules.has(key))
      throw new SchedulerError(404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
    const target = body.Target as { Arn?: unknown; Input?: unknown } | undefined;
    const expression = String(body.ScheduleExpression ?? '');
    const oneTime = oneTimeAt(expression);
    if (
      (oneTime === undefined ? 'problem' in parseScheduleExpression(expression) : Number.isNaN(oneTime)) ||
      typeof target?.Arn !== 'string'
    )
      throw new SchedulerError(400, 'ValidationException', 'Invalid schedule expression or target.');
    const schedule: StoredSchedule = {
      name,
      group,
      expression,
      targetArn: target.Arn,
      input: typeof target.Input === 'string' ? target.Input : '{}',
      createdAt: new Date().toISOString(),
      ...(body.ActionAfterCompletion === 'DELETE' ? { deleteAfterCompletion: true } : {}),
    };
    schedules.set(key, schedule);
    persist();
    // A one-time schedule created for a time just past still fires (once, at once).
    if (oneTime !== undefined) due.set(key, oneTime);
    else arm(key, schedule, Date.now());
    return { ScheduleArn: `arn:aws:scheduler:local:000000000000:schedule/${group}/${name}` };
  };

  const handle = async (req: IncomingMessage) => {
    const url = new URL(req.url ?? '/', 'http://local');
    const match = /^\/schedules\/([^/]+)$/.exec(url.pathname);
    if (!match) throw new SchedulerError(404, 'UnknownOperationException', `No route ${url.pathname}`);
    const name = decodeURIComponent(match[1] ?? '');
    if (req.method === 'POST') return put(name, await readBody(req), true);
    if (req.method === 'PUT') return put(name, await readBody(req), false);
    const key = `${url.searchParams.get('groupName') ?? 'default'}/${name}`;
    const schedule = schedules.get(key);
    if (!schedule)
      throw new SchedulerError(404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
    if (req.method === 'DELETE') {
      schedules.delete(key);
      due.delete(key);
      persist();
      return {};
    }
    return {
      Name: schedule.name,
      GroupName: schedule.group,
      ScheduleExpression: schedule.expression,
      Target: { Arn: schedule.targetArn, Input: schedule.input },
      State: 'ENABLED',
    };
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, payload: unknown, type?: string) => {
      res.writeHead(status, {
        'content-type': 'application/json',
        ...(type ? { 'x-amzn-errortype': type } : {}),
      });
      res.end(JSON.stringify(payload));
    };
    handle(req).then(
      (payload) => send(200, payload),
      (error: unknown) =>
        error instanceof SchedulerError
          ? send(error.status, { message: error.message }, error.type)
          : send(500, { message: String(error) }, 'InternalServerException'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    schedules: () => [...schedules.values()],
    stop: async () => {
      clearInterval(timer);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
