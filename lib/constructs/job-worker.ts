import { Duration } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { DataResources, FunctionAccess } from '../access';
import { AppFunction } from './app-function';

/**
 * The worker function of a media job type (`Worker` of `scope`): the Lambda tasks of its state machine, with
 * the grants its entry in `WORKER_ACCESS` declares (the table, the meter, tenant files, MediaConvert's Probe
 * API for its probe step).
 */
export const mediaJobWorker = (
  scope: Construct,
  props: { entry: string; description: string; access: FunctionAccess; data: DataResources },
): AppFunction =>
  new AppFunction(scope, 'Worker', {
    entry: props.entry,
    description: props.description,
    access: props.access,
    data: props.data,
    timeout: Duration.seconds(60),
  });
