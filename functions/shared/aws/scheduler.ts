import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { env, type ScheduleSettings } from '../env';
import { tracer } from '../observability/tracer';

/**
 * The EventBridge Scheduler adapter: one schedule per name in the configured group, invoking the configured
 * target with a JSON input, in UTC, without a flexible window. Locally the endpoint points at the local
 * stack's scheduler, which speaks the same API.
 */
let client: SchedulerClient | undefined;
const scheduler = () => {
  const { region, schedulerEndpoint } = env();
  client ??= tracer.captureAWSv3Client(
    new SchedulerClient({
      region,
      ...(schedulerEndpoint
        ? { endpoint: schedulerEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
    }),
  );
  return client;
};

const settings = () => {
  const config = env().workflowSchedules;
  if (!config) throw new Error('Workflow schedules are not configured (WORKFLOW_SCHEDULE_GROUP is not set)');
  return config;
};

/**
 * Creates or replaces the schedule `name`: `expression` (`rate(…)`/`cron(…)`/`at(…)`, UTC) invokes the target
 * with `input`. By default a workflow schedule; `options.settings` names another group and target, and
 * `options.deleteAfterCompletion` has a one-time schedule (`at(…)`) deleted once it has invoked its target.
 */
export const putSchedule = async (
  name: string,
  expression: string,
  input: string,
  options: { settings?: ScheduleSettings; deleteAfterCompletion?: boolean } = {},
): Promise<void> => {
  const { groupName, roleArn, targetArn } = options.settings ?? settings();
  const schedule = {
    ...(options.deleteAfterCompletion ? { ActionAfterCompletion: 'DELETE' as const } : {}),
    Name: name,
    GroupName: groupName,
    ScheduleExpression: expression,
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' as const },
    Target: { Arn: targetArn, RoleArn: roleArn, Input: input },
    State: 'ENABLED' as const,
  };
  try {
    await scheduler().send(new CreateScheduleCommand(schedule));
  } catch (error) {
    if (!(error instanceof ConflictException)) throw error;
    await scheduler().send(new UpdateScheduleCommand(schedule));
  }
};

/**
 * Deletes the schedule `name` (of workflow schedules, or of the group `config` names); one that does not exist
 * (or schedules not configured here) is nothing to do.
 */
export const deleteSchedule = async (
  name: string,
  config: ScheduleSettings | undefined = env().workflowSchedules,
): Promise<void> => {
  if (!config) return;
  try {
    await scheduler().send(new DeleteScheduleCommand({ Name: name, GroupName: config.groupName }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
};
