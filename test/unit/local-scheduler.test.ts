import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalScheduler } from '../../functions/local/scheduler';

/**
 * The local EventBridge Scheduler, driven through the platform's own Scheduler adapter (the SDK client):
 * schedules are created, replaced and deleted as on AWS, kept in a file, and their target is invoked with
 * the due time in place of `<aws.scheduler.scheduled-time>`.
 */
const dir = mkdtempSync(join(tmpdir(), 'local-scheduler-'));
const file = join(dir, 'schedules.json');
const invoked: { arn: string; input: string }[] = [];
const scheduler = await startLocalScheduler({
  file,
  everyMs: 300,
  invoke: async (arn, input) => {
    invoked.push({ arn, input });
  },
});
Object.assign(process.env, {
  TABLE_NAME: 'unused',
  BUCKET_NAME: 'unused',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  SCHEDULER_ENDPOINT: scheduler.endpoint,
  WORKFLOW_SCHEDULE_GROUP: 'workflows',
  WORKFLOW_SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/workflow-scheduler',
  WORKFLOW_SCHEDULE_TARGET_ARN: 'arn:aws:lambda:us-east-1:000000000000:function:workflow-schedule',
});
const { deleteSchedule, putSchedule } = await import('../../functions/shared/aws/scheduler');

afterAll(async () => {
  await scheduler.stop();
  rmSync(dir, { recursive: true, force: true });
});

const until = async (done: () => boolean) => {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
};

describe('the local EventBridge Scheduler', () => {
  it('creates, replaces and deletes a schedule through the Scheduler API, and fires its target with the due time', async () => {
    await putSchedule('wf-a', 'rate(15 minutes)', '{"at":"<aws.scheduler.scheduled-time>","v":1}');
    await putSchedule('wf-a', 'cron(0 9 * * ? *)', '{"at":"<aws.scheduler.scheduled-time>","v":2}');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as {
      name: string;
      group: string;
      expression: string;
    }[];
    expect(stored).toMatchObject([{ name: 'wf-a', group: 'workflows', expression: 'cron(0 9 * * ? *)' }]);
    await until(() => invoked.length > 0);
    const [first] = invoked;
    expect(first?.arn).toBe('arn:aws:lambda:us-east-1:000000000000:function:workflow-schedule');
    const input = JSON.parse(first?.input ?? '{}') as { at: string; v: number };
    expect(input.v).toBe(2);
    expect(input.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    await deleteSchedule('wf-a');
    await deleteSchedule('wf-a');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([]);
    expect(scheduler.schedules()).toEqual([]);
  });

  it('refuses an expression EventBridge Scheduler would refuse', async () => {
    await expect(putSchedule('wf-b', 'every 5 minutes', '{}')).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });

  it('fires a one-time at() schedule once at its time, whatever everyMs, and deletes it when asked to', async () => {
    const settings = {
      groupName: 'messages',
      roleArn: 'arn:aws:iam::000000000000:role/message-scheduler',
      targetArn: 'arn:aws:lambda:us-east-1:000000000000:function:message-sweep',
    };
    const at = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000);
    const before = invoked.length;
    await putSchedule('m-once', `at(${at.toISOString().slice(0, 19)})`, '{"messageId":"m1"}', {
      settings,
      deleteAfterCompletion: true,
    });
    expect(scheduler.schedules()).toMatchObject([
      { name: 'm-once', group: 'messages', deleteAfterCompletion: true },
    ]);
    await new Promise((r) => setTimeout(r, 700));
    expect(invoked.length).toBe(before);
    await until(() => invoked.length > before);
    expect(Date.now()).toBeGreaterThanOrEqual(at.getTime());
    expect(invoked.slice(before)).toEqual([{ arn: settings.targetArn, input: '{"messageId":"m1"}' }]);
    expect(scheduler.schedules()).toEqual([]);
    await new Promise((r) => setTimeout(r, 700));
    expect(invoked.length).toBe(before + 1);
  });
});
