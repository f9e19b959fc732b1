import { join } from 'node:path';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import type { IConstruct } from 'constructs';
import { AppFunction } from '../../lib/constructs/app-function';
import { bundleCalls } from './bundle-calls';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

/** Grants every function role holds for the Lambda platform itself, not for a call of its code. */
const PLATFORM_ACTIONS = new Set([
  'logs:CreateLogStream', // its own log group (AppFunction)
  'logs:PutLogEvents',
  'xray:PutTraceSegments', // active tracing
  'xray:PutTelemetryRecords',
]);

/** Grants an event source mapping needs (Lambda reads the stream or queue with the function's role). */
const EVENT_SOURCE_ACTIONS = new Set([
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
  'dynamodb:ListStreams',
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueUrl', // part of the consume grant CDK's SqsEventSource gives (`grantConsumeMessages`)
]);

/** What Lambda sends to an on-failure destination queue with the function's role (`lib/grants/failure-queue.ts`). */
const FAILURE_DESTINATION_ACTION = 'sqs:SendMessage';

/** Logical ids of the queues the function's asynchronous invocations go to when they fail. */
const failureQueuesOf = (resources: Record<string, Resource>, functionId: string): string[] =>
  Object.values(resources)
    .filter(
      (r) => r.Type === 'AWS::Lambda::EventInvokeConfig' && refersTo(r.Properties?.FunctionName, functionId),
    )
    .map(
      (r) =>
        (r.Properties?.DestinationConfig as { OnFailure?: { Destination?: unknown } } | undefined)?.OnFailure,
    )
    .map(
      (onFailure) =>
        (onFailure?.Destination as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt'],
    )
    .filter(
      (getAtt): getAtt is [string, string] =>
        getAtt?.[1] === 'Arn' && resources[getAtt[0]]?.Type === 'AWS::SQS::Queue',
    )
    .map(([queueId]) => queueId);

const logicalIdOf = (construct: IConstruct): string => {
  const resource = (construct.node.defaultChild ?? construct) as CfnElement;
  return Stack.of(resource).getLogicalId(resource);
};

const actionsOf = (statement: Statement): string[] =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action];

const refersTo = (value: unknown, logicalId: string): boolean =>
  JSON.stringify(value ?? null).includes(`"${logicalId}"`);

export interface FunctionGrants {
  path: string;
  calls: string[];
  /** IAM actions the role holds beyond the platform's. */
  granted: string[];
  problems: string[];
}

/**
 * For every `AppFunction` of the app: the calls its synthesized bundle can make, the actions its role holds,
 * and every disagreement between the two and its declared `neverCalls`. Also reports Lambda functions that
 * are not `AppFunction`s (they would escape the check) and roles with managed policies.
 */
export const checkFunctionGrants = async (
  root: IConstruct,
  assembly: CloudAssembly,
): Promise<{ functions: FunctionGrants[]; problems: string[] }> => {
  const functions = root.node.findAll().filter((c): c is AppFunction => c instanceof AppFunction);
  const problems: string[] = [];
  const known = new Set(functions.map((fn) => `${Stack.of(fn).artifactId}/${logicalIdOf(fn)}`));
  for (const artifact of assembly.stacks) {
    const resources = (artifact.template as { Resources?: Record<string, Resource> }).Resources ?? {};
    for (const [id, resource] of Object.entries(resources)) {
      if (resource.Type === 'AWS::Lambda::Function' && !known.has(`${artifact.id}/${id}`)) {
        problems.push(`${artifact.id}/${id} is not an AppFunction, so it declares no access to check`);
      }
    }
  }

  const results: FunctionGrants[] = [];
  for (const fn of functions) {
    const stack = Stack.of(fn);
    const resources = (
      assembly.getStackArtifact(stack.artifactId).template as { Resources: Record<string, Resource> }
    ).Resources;
    const functionId = logicalIdOf(fn);
    const assetPath = resources[functionId]?.Metadata?.['aws:asset:path'];
    if (typeof assetPath !== 'string')
      throw new Error(`${fn.node.path}: no bundled asset (synthesize with bundling)`);
    const bundle = await bundleCalls(join(assembly.directory, assetPath));

    if (!fn.role) throw new Error(`${fn.node.path} has no role`);
    const roleId = logicalIdOf(fn.role);
    const role = resources[roleId];
    const functionProblems = [...bundle.problems];
    if (role?.Properties?.ManagedPolicyArns) functionProblems.push('its role has managed policies');
    const statements = [
      ...((role?.Properties?.Policies as { PolicyDocument: { Statement: Statement[] } }[] | undefined) ?? []),
      ...Object.values(resources)
        .filter((r) => r.Type === 'AWS::IAM::Policy' && refersTo(r.Properties?.Roles, roleId))
        .map((r) => r.Properties as { PolicyDocument: { Statement: Statement[] } }),
    ].flatMap((policy) => policy.PolicyDocument.Statement);

    const hasEventSource = Object.values(resources).some(
      (r) => r.Type === 'AWS::Lambda::EventSourceMapping' && refersTo(r.Properties?.FunctionName, functionId),
    );
    const failureQueues = failureQueuesOf(resources, functionId);
    if (Boolean(fn.access.failureQueue) !== failureQueues.length > 0)
      functionProblems.push(
        fn.access.failureQueue
          ? 'declares a failure queue, but its asynchronous invocations have no on-failure queue'
          : 'sends failed invocations to a queue its access does not declare (failureQueue)',
      );
    const toFailureQueue = (statement: Statement) =>
      failureQueues.some(
        (queueId) =>
          JSON.stringify(statement.Resource) === JSON.stringify({ 'Fn::GetAtt': [queueId, 'Arn'] }),
      );
    const granted = new Set<string>();
    for (const statement of statements) {
      for (const action of actionsOf(statement)) {
        if (statement.Effect !== 'Allow') continue;
        if (action.includes('*')) functionProblems.push(`grants the wildcard action ${action}`);
        if (PLATFORM_ACTIONS.has(action)) continue;
        // The event source's grant, unless the code makes the call itself too (a worker that changes the
        // visibility of the messages it was handed: `sqs:ChangeMessageVisibility`).
        if (hasEventSource && EVENT_SOURCE_ACTIONS.has(action) && !bundle.actions.has(action)) continue;
        // Lambda, not the code, sends a failed invocation to its destination.
        if (action === FAILURE_DESTINATION_ACTION && toFailureQueue(statement)) continue;
        granted.add(action);
      }
    }

    const neverCalls = fn.access.neverCalls ?? {};
    for (const action of [...granted].sort()) {
      if (!bundle.actions.has(action))
        functionProblems.push(`grants ${action}, which its bundle never calls`);
      if (action in neverCalls)
        functionProblems.push(`grants ${action}, which its access says it never calls`);
    }
    for (const [action, calls] of [...bundle.actions].sort()) {
      if (!granted.has(action) && !(action in neverCalls)) {
        functionProblems.push(
          `calls ${action} (${[...new Set(calls)].join(', ')}) without a grant or a neverCalls reason`,
        );
      }
    }
    for (const action of Object.keys(neverCalls)) {
      if (!bundle.actions.has(action))
        functionProblems.push(`lists ${action} in neverCalls, which its bundle cannot call`);
    }
    problems.push(...functionProblems.map((p) => `${fn.node.path}: ${p}`));
    results.push({
      path: fn.node.path,
      calls: bundle.calls,
      granted: [...granted].sort(),
      problems: functionProblems,
    });
  }
  return { functions: results, problems };
};
