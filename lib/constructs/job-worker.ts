import { Duration, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { type DataResources, dataEnvironment, type FunctionAccess, grantDataAccess } from '../access';
import { AppFunction } from './app-function';

/** A media job worker reads and writes jobs, stored objects and the meter, and tenant files. */
export const MEDIA_WORKER_ACCESS: FunctionAccess = { table: 'readWrite', meter: true, bucket: true };

/**
 * The worker function of a media job type (`Worker` of `scope`): the Lambda tasks of its state machine,
 * with the table, the meter and the tenant prefix of the bucket, and MediaConvert's Probe API (its probe
 * step reads a source's media properties).
 */
export const mediaJobWorker = (
  scope: Construct,
  props: { entry: string; description: string; data: DataResources },
): AppFunction => {
  const worker = new AppFunction(scope, 'Worker', {
    entry: props.entry,
    description: props.description,
    environment: dataEnvironment(MEDIA_WORKER_ACCESS, props.data),
    timeout: Duration.seconds(60),
  });
  const role = worker.role;
  if (!role) throw new Error(`${props.description} has no role`);
  grantDataAccess(role, MEDIA_WORKER_ACCESS, props.data);
  role.addToPrincipalPolicy(new PolicyStatement({ actions: ['mediaconvert:Probe'], resources: ['*'] }));
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'mediaconvert:Probe supports no resource-level permissions; the worker probes tenant sources.',
  });
  return worker;
};
